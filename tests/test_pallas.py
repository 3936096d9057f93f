"""The Pallas kernel in the Pallas interpreter (CPU): hostile small shapes against the
float64 numpy reference, the split merge, vmap, shard_map and the schedule table."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from attention_cases import assert_close_per_token, paged
from numpy_ref import hostile_indices, hostile_pool, np_sparse_mla

from jax_glm_nope import layout, sparse_mla
from jax_glm_nope.pallas import (
    Schedule,
    choose_schedule,
    merge_splits,
    pool_unsupported_reason,
    sparse_mla_pallas,
    unavailable_reason,
)
from jax_glm_nope.pallas import schedule as schedule_module

SM_SCALE = 0.05


def _inputs(seed, num_tokens, num_heads, num_candidates, row_bytes, num_slots=None):
    rng = np.random.default_rng(seed)
    num_slots = num_slots or max(8, 2 * num_candidates)
    indices = hostile_indices(rng, num_tokens, num_candidates, num_slots)
    pool = hostile_pool(rng, num_slots, layout.row_format(row_bytes), indices.ravel())
    lens = np.full(num_tokens, num_candidates, np.int32)
    lens[2::5] = rng.integers(-1, num_candidates + 2, len(lens[2::5]))  # outside [0, K] clamps
    q = jnp.asarray(rng.standard_normal((num_tokens, num_heads, layout.HEAD_DIM)), jnp.bfloat16)
    return q, pool, indices, lens


def _assert_close(out, lse, q, pool2d, indices, lens):
    ref_out, ref_lse = np_sparse_mla(
        np.asarray(q.astype(jnp.float32)), pool2d, indices, np.clip(lens, 0, indices.shape[1]), SM_SCALE
    )
    assert_close_per_token(out, lse, ref_out, ref_lse)


# (T, H, K, row_bytes, page_size): K=1, odd head counts, both formats, 3-D pools, T=65.
CASES = [
    (1, 1, 1, 528, None),
    (7, 8, 70, 656, 5),
    (6, 24, 130, 528, None),
    (3, 64, 40, 528, 3),
    (2, 128, 33, 656, None),
    (65, 2, 9, 528, 7),
]


@pytest.mark.parametrize("num_tokens,num_heads,num_candidates,row_bytes,page_size", CASES)
def test_matches_float64_reference(num_tokens, num_heads, num_candidates, row_bytes, page_size):
    q, pool, indices, lens = _inputs(
        num_tokens * 1000 + num_heads, num_tokens, num_heads, num_candidates, row_bytes
    )
    shaped = pool if page_size is None else paged(pool, page_size)
    call = jax.jit(lambda q, p, i, n: sparse_mla(q, p, i, SM_SCALE, n, backend="pallas", interpret=True))
    out, lse = call(q, jnp.asarray(shaped), jnp.asarray(indices), jnp.asarray(lens))
    _assert_close(out, lse, q, np.asarray(shaped).reshape(-1, row_bytes), indices, lens)
    again = call(q, jnp.asarray(shaped), jnp.asarray(indices), jnp.asarray(lens))
    assert np.array_equal(np.asarray(out).view(np.uint16), np.asarray(again[0]).view(np.uint16))
    assert np.array_equal(np.asarray(lse).view(np.uint32), np.asarray(again[1]).view(np.uint32))


@pytest.mark.parametrize("prefetch", [False, True])
@pytest.mark.parametrize("candidates_major", [False, True])
@pytest.mark.parametrize("num_splits", [1, 2, 5])
def test_every_split_count_and_orientation(num_splits, candidates_major, prefetch):
    """One split writes final results in the kernel; more go through ``merge_splits``.

    150 candidates in 32-row steps: 5 steps, so with prefetching the last step's
    look-ahead (clamped, all masked) and splits of 1-5 steps are all exercised."""
    q, pool, indices, lens = _inputs(11, 5, 16, 150, 528)
    sched = Schedule(
        block_h=16,
        block_k=32,
        num_splits=num_splits,
        num_warps=4,
        num_stages=1,
        candidates_major=candidates_major,
        prefetch=prefetch,
    )
    out, lse = sparse_mla_pallas(
        q,
        jnp.asarray(pool),
        jnp.asarray(indices),
        jnp.asarray(lens),
        SM_SCALE,
        interpret=True,
        schedule=sched,
    )
    _assert_close(out, lse, q, pool, indices, lens)


@pytest.mark.parametrize(
    ("block_h", "candidates_major", "prefetch"),
    [(64, False, False), (32, False, True), (32, True, False), (64, False, True)],
)
def test_every_head_block(block_h, candidates_major, prefetch):
    """Tiny CPU shapes mostly take the small-launch rows of the table; run the others too.

    40 heads: one padded 64-head block, or a full and a padded 32-head block."""
    q, pool, indices, lens = _inputs(3, 7, 40, 200, 656)
    sched = Schedule(block_h, 32, 2, 4, 1, candidates_major=candidates_major, prefetch=prefetch)
    out, lse = sparse_mla_pallas(
        q,
        jnp.asarray(pool),
        jnp.asarray(indices),
        jnp.asarray(lens),
        SM_SCALE,
        interpret=True,
        schedule=sched,
    )
    _assert_close(out, lse, q, pool, indices, lens)


def test_empty_inputs():
    q, pool, indices, lens = _inputs(2, 3, 4, 10, 528)
    out, lse = sparse_mla_pallas(
        q[:0], jnp.asarray(pool), jnp.asarray(indices[:0]), jnp.asarray(lens[:0]), SM_SCALE, interpret=True
    )
    assert out.shape == (0, 4, layout.HEAD_DIM) and out.dtype == jnp.bfloat16 and lse.shape == (0, 4)
    zero_lens = np.zeros(3, np.int32)
    out, lse = sparse_mla_pallas(
        q, jnp.asarray(pool), jnp.asarray(indices), jnp.asarray(zero_lens), SM_SCALE, interpret=True
    )
    assert np.all(np.asarray(out, np.float32) == 0) and np.all(np.isneginf(np.asarray(lse)))


def test_vmap_batched_and_shared_pool():
    batch, num_tokens, num_heads, num_candidates = 2, 3, 4, 40
    parts = [_inputs(20 + b, num_tokens, num_heads, num_candidates, 528, num_slots=64) for b in range(batch)]
    q = jnp.stack([p[0] for p in parts])
    pools = np.stack([p[1] for p in parts])
    indices = np.stack([p[2] for p in parts])
    lens = np.stack([p[3] for p in parts])
    f = lambda q, p, i, n: sparse_mla(q, p, i, SM_SCALE, n, backend="pallas", interpret=True)  # noqa: E731
    out, lse = jax.jit(jax.vmap(f))(q, jnp.asarray(pools), jnp.asarray(indices), jnp.asarray(lens))
    for b in range(batch):
        _assert_close(out[b], lse[b], q[b], pools[b], indices[b], lens[b])
    # One pool shared by the batch (the pool of element 0 is safe for element 0's indices only).
    shared = jax.vmap(f, in_axes=(0, None, 0, 0))(
        q, jnp.asarray(pools[0]), jnp.asarray(indices[:1].repeat(2, 0)), jnp.asarray(lens[:1].repeat(2, 0))
    )
    for b in range(batch):
        _assert_close(shared[0][b], shared[1][b], q[b], pools[0], indices[0], lens[0])


def test_shard_map_heads_and_tokens():
    devices = jax.devices()
    if len(devices) < 2:
        pytest.skip("needs several (CPU) devices")
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    q, pool, indices, lens = _inputs(31, 4, 8, 24, 528)
    mesh = jax.make_mesh((2,), ("x",))

    def f(q, i, n):
        return sparse_mla(q, jnp.asarray(pool), i, SM_SCALE, n, backend="pallas", interpret=True)

    # check_vma=False: the Pallas *interpreter* trips JAX's varying-axes check inside
    # shard_map; the GPU lowering runs with the check on (tests/test_pallas_gpu.py).
    heads = jax.jit(
        jax.shard_map(
            f,
            mesh=mesh,
            in_specs=(P(None, "x"), P(), P()),
            out_specs=(P(None, "x"), P(None, "x")),
            check_vma=False,
        )
    )
    out, lse = heads(
        jax.device_put(q, NamedSharding(mesh, P(None, "x"))), jnp.asarray(indices), jnp.asarray(lens)
    )
    _assert_close(out, lse, q, pool, indices, lens)
    tokens = jax.jit(
        jax.shard_map(
            f, mesh=mesh, in_specs=(P("x"), P("x"), P("x")), out_specs=(P("x"), P("x")), check_vma=False
        )
    )
    out, lse = tokens(
        *(jax.device_put(jnp.asarray(x), NamedSharding(mesh, P("x"))) for x in (q, indices, lens))
    )
    _assert_close(out, lse, q, pool, indices, lens)


def test_merge_splits_is_exact():
    rng = np.random.default_rng(4)
    lse = rng.normal(size=(3, 2, 5)).astype(np.float32)
    lse[1, 0, :] = -np.inf  # an empty split
    lse[:, 1, 0] = -np.inf  # a token/head with nothing at all
    out = rng.normal(size=(3, 2, 5, layout.HEAD_DIM)).astype(np.float32)
    merged, merged_lse = merge_splits(jnp.asarray(out), jnp.asarray(lse))
    weights = np.exp(lse.astype(np.float64))
    total = weights.sum(0)
    expect = np.where(
        total[..., None] > 0, (weights[..., None] * out).sum(0) / np.maximum(total, 1e-300)[..., None], 0
    )
    np.testing.assert_allclose(np.asarray(merged, np.float64), expect, rtol=1e-2, atol=1e-2)
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(np.asarray(merged_lse), np.log(total), rtol=1e-5, atol=1e-6)
    assert np.asarray(merged_lse)[1, 0] == -np.inf and np.all(np.asarray(merged, np.float32)[1, 0] == 0)


@pytest.mark.parametrize("num_heads", [1, 8, 16, 24, 32, 64, 100, 128])
@pytest.mark.parametrize("num_tokens", [1, 4, 32, 128, 4096, 65536])
@pytest.mark.parametrize("num_candidates", [1, 2048, 2051, 2176])
def test_schedule_table(num_tokens, num_heads, num_candidates):
    sched = choose_schedule(num_tokens, num_heads, num_candidates)
    tiles = -(-num_candidates // sched.block_k)
    small_launch = num_tokens * -(-num_heads // schedule_module.head_block(num_heads)) * tiles
    if small_launch < schedule_module.NUM_SMS and num_heads > 32:
        assert sched.block_h == 32  # twice the programs when one per step cannot fill the SMs
    else:
        assert sched.block_h >= 16 and sched.block_h >= min(num_heads, schedule_module.LARGE_BLOCK_H)
    assert sched.block_h <= max(16, 2 * num_heads)  # 8 heads never pay for 64
    assert sched.candidates_major == (small_launch < schedule_module.NUM_SMS and 16 < num_heads <= 32)
    # Gathering ahead needs a next step, and 64-head blocks leave it to Triton's pipeline.
    assert not sched.prefetch or (sched.block_h < 64 and sched.tiles(num_candidates) > 1)
    padded = sched.padded_candidates(num_candidates)
    assert padded >= num_candidates and padded % (sched.block_k * sched.num_splits) == 0
    # No split is all padding: the last split still starts inside the candidate row.
    assert (sched.num_splits - 1) * sched.tiles(num_candidates) * sched.block_k < num_candidates
    head_blocks = -(-num_heads // sched.block_h)
    programs = num_tokens * head_blocks * sched.num_splits
    # Decode batches are split until the GPU is full (or every program has one tile).
    assert programs >= min(schedule_module.NUM_SMS // 2, num_tokens * head_blocks * tiles)


def test_schedule_is_a_value():
    sched = choose_schedule(8, 16, 2176)
    assert dataclasses.replace(sched) == sched and hash(sched) == hash(dataclasses.replace(sched))


def test_unavailable_reason():
    reason = unavailable_reason("cpu")
    assert "interpret=True" in reason and "cpu" in reason
    has_gpu = any(d.platform == "gpu" for d in jax.devices())
    assert (unavailable_reason("gpu") is None) == has_gpu  # SM89+ GPUs only; here: none


def test_pool_size_limit():
    """Pools of 2-4 GiB would overflow the kernel's int32 offsets: refused, not wrong."""
    assert pool_unsupported_reason(1 << 20, 528) is None
    assert pool_unsupported_reason(9 << 20, 528) is None  # > 4 GiB: 64-bit offsets
    reason = pool_unsupported_reason(5 << 20, 528)
    assert reason.startswith("pool:") and "GiB" in reason
