"""The Pallas kernel on a CUDA GPU at real sizes (STYLE.md's hostile cases).

Every case checks all tokens against the jnp reference (float32, HIGHEST) and a
sample of tokens against the float64 numpy reference on the dequantized values, at
SPEC 3's tolerances; ``-inf`` positions exactly; no NaN; the same bits on a repeat.
Skipped without a CUDA device.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from attention_cases import assert_close_per_token, paged
from numpy_ref import hostile_indices, np_sparse_mla, poison_unreferenced

from jax_glm_nope import layout, sparse_mla
from jax_glm_nope.pallas import Schedule, sparse_mla_pallas
from jax_glm_nope.quant import quantize_rows
from jax_glm_nope.reference import sparse_mla_reference

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not any(d.platform == "gpu" for d in jax.devices()), reason="needs a CUDA GPU"),
]

SM_SCALE = 0.0417
FLOAT64_SAMPLE = 12  # tokens checked against the float64 numpy reference per case

# (T, H, K, row_bytes, page_size or None): every H, every T, both K, both row sizes,
# 3-D pools with odd page sizes. Cheap cases first.
CASES = [
    (1, 8, 2051, 528, None),
    (1, 16, 2176, 656, 64),
    (1, 24, 2051, 656, None),
    (1, 32, 2176, 528, 7),
    (1, 64, 2051, 528, None),
    (1, 128, 2176, 656, None),
    (4, 8, 2176, 528, 3),
    (4, 128, 2051, 528, 64),
    (65, 64, 2176, 528, 37),
    (512, 128, 2176, 528, 13),
    (4096, 8, 2051, 528, None),
    (4096, 64, 2176, 656, 64),
]


def _pool(rng, num_slots, row_bytes, indices):
    """Random rows; every slot no candidate references, slot 0 included, holds NaN/Inf."""
    fmt = layout.row_format(row_bytes)
    latent = rng.standard_normal((num_slots, layout.HEAD_DIM)).astype(np.float32)
    latent *= np.repeat(np.exp(rng.uniform(-2.3, 2.3, (num_slots, layout.NUM_TILES))), layout.TILE, axis=1)
    pool = np.array(quantize_rows(jnp.asarray(latent), fmt))  # np_quantize is too slow at 2**18 rows
    flat = indices.ravel()
    return poison_unreferenced(pool, flat[flat != 0])  # slot 0 stays poisoned


def _case(seed, num_tokens, num_heads, num_candidates, row_bytes):
    rng = np.random.default_rng(seed)
    num_slots = max(4 * num_candidates, min(num_tokens * num_candidates // 2, 1 << 18))
    indices = hostile_indices(rng, num_tokens, num_candidates, num_slots)
    indices[indices == 0] = 1  # slot 0 stays unreferenced (poisoned)
    lens = np.full(num_tokens, num_candidates, np.int32)
    lens[5::7] = rng.integers(0, num_candidates + 1, len(lens[5::7]))
    q = rng.standard_normal((num_tokens, num_heads, layout.HEAD_DIM)).astype(np.float32)
    return jnp.asarray(q, jnp.bfloat16), _pool(rng, num_slots, row_bytes, indices), indices, lens


def _check(out, lse, ref_out, ref_lse, tokens=None):
    """SPEC 3 per token; ``tokens``: compare only these rows (the reference holds just them)."""
    if tokens is not None:
        out, lse = np.asarray(out)[tokens], np.asarray(lse)[tokens]
    assert_close_per_token(out, lse, ref_out, ref_lse)


@pytest.mark.parametrize("num_tokens,num_heads,num_candidates,row_bytes,page_size", CASES)
def test_hostile_real_sizes(num_tokens, num_heads, num_candidates, row_bytes, page_size):
    seed = hash((num_tokens, num_heads, num_candidates, row_bytes)) % 2**31
    q, pool, indices, lens = _case(seed, num_tokens, num_heads, num_candidates, row_bytes)
    shaped = pool if page_size is None else paged(pool, page_size)
    # A 3-D pool's padding rows are extra slots: indices beyond the 2-D pool now land there.
    call = jax.jit(lambda q, p, i, n: sparse_mla(q, p, i, SM_SCALE, n, backend="pallas"))
    out, lse = call(q, jnp.asarray(shaped), jnp.asarray(indices), jnp.asarray(lens))
    out2, lse2 = call(q, jnp.asarray(shaped), jnp.asarray(indices), jnp.asarray(lens))
    assert np.array_equal(np.asarray(out).view(np.uint16), np.asarray(out2).view(np.uint16))
    assert np.array_equal(np.asarray(lse).view(np.uint32), np.asarray(lse2).view(np.uint32))
    pool2d = np.asarray(shaped).reshape(-1, row_bytes)
    ref_out, ref_lse = jax.jit(sparse_mla_reference, static_argnums=4)(
        q, jnp.asarray(pool2d), jnp.asarray(indices), jnp.asarray(lens), SM_SCALE
    )
    _check(out, lse, ref_out, ref_lse)
    rng = np.random.default_rng(seed)
    sample = np.unique(rng.integers(0, num_tokens, FLOAT64_SAMPLE))
    q64 = np.asarray(q.astype(jnp.float32))[sample]
    ref64 = np_sparse_mla(q64, pool2d, indices[sample], lens[sample], SM_SCALE)
    _check(out, lse, *ref64, tokens=sample)


def test_vmap_and_shard_map_on_gpu():
    q, pool, indices, lens = _case(3, 8, 16, 2176, 528)
    batch = 3
    qb = jnp.stack([q] * batch) * jnp.arange(1, batch + 1, dtype=jnp.bfloat16)[:, None, None, None]
    f = lambda q, i, n: sparse_mla(q, jnp.asarray(pool), i, SM_SCALE, n, backend="pallas")  # noqa: E731
    out, lse = jax.jit(jax.vmap(f))(qb, jnp.stack([jnp.asarray(indices)] * batch), jnp.stack([lens] * batch))
    # vmap folds the batch into the token axis: the same bits as one call over B*T tokens.
    folded = f(
        qb.reshape(-1, *q.shape[1:]),
        jnp.asarray(np.concatenate([indices] * batch)),
        jnp.asarray(np.concatenate([lens] * batch)),
    )
    assert np.array_equal(
        np.asarray(out).reshape(folded[0].shape).view(np.uint16), np.asarray(folded[0]).view(np.uint16)
    )
    assert np.array_equal(np.asarray(lse).reshape(folded[1].shape), np.asarray(folded[1]))
    for b in range(batch):
        ref = np_sparse_mla(np.asarray(qb[b].astype(jnp.float32)), pool, indices, lens, SM_SCALE)
        _check(out[b], lse[b], *ref)
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((1,), ("tp",))
    spec = P(None, "tp")
    sharded = jax.jit(jax.shard_map(f, mesh=mesh, in_specs=(spec, P(), P()), out_specs=(spec, spec)))
    got = sharded(jax.device_put(q, NamedSharding(mesh, spec)), jnp.asarray(indices), jnp.asarray(lens))
    _check(*got, *np_sparse_mla(np.asarray(q.astype(jnp.float32)), pool, indices, lens, SM_SCALE))


@pytest.mark.parametrize(
    ("block_h", "candidates_major", "prefetch"),
    [(16, False, False), (16, False, True), (16, True, False), (32, False, True), (64, False, False)],
)
@pytest.mark.parametrize("num_warps", [4, 8])
def test_every_kernel_variant_real_size(block_h, candidates_major, prefetch, num_warps):
    """Both MMA orientations, gathering ahead or not, every head block: whatever the table picks."""
    q, pool, indices, lens = _case(9, 32, 40, 2176, 528)
    sched = Schedule(block_h, 64, 4, num_warps, 2, candidates_major=candidates_major, prefetch=prefetch)
    out, lse = sparse_mla_pallas(
        q, jnp.asarray(pool), jnp.asarray(indices), jnp.asarray(lens), SM_SCALE, schedule=sched
    )
    _check(out, lse, *np_sparse_mla(np.asarray(q.astype(jnp.float32)), pool, indices, lens, SM_SCALE))


def test_empty_and_tiny_on_gpu():
    q, pool, indices, lens = _case(5, 3, 8, 1, 528)
    out, lse = sparse_mla(
        q, jnp.asarray(pool), jnp.asarray(indices), SM_SCALE, jnp.asarray(lens), backend="pallas"
    )
    _check(out, lse, *np_sparse_mla(np.asarray(q.astype(jnp.float32)), pool, indices, lens, SM_SCALE))
    out, lse = sparse_mla(q[:0], jnp.asarray(pool), jnp.asarray(indices[:0]), SM_SCALE, backend="pallas")
    assert out.shape == (0, 8, layout.HEAD_DIM) and lse.shape == (0, 8)
