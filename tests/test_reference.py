"""The reference implementation: jit/vmap/shard_map against the plain call, automatic choice on
the CPU, and T=4096 x K=2176 in bounded memory (its accuracy is in tests/test_attention.py)."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import PartitionSpec as P

import jax_glm_nope as jgn
from jax_glm_nope.testing import (
    Case,
    assert_accurate,
    hostile_indices,
    make_case,
    poison_inactive,
    quantize_f64,
)


def assert_matches_reference(out, lse, case):
    assert_accurate(np.asarray(out.astype(jnp.float32)), np.asarray(lse), *case.reference(), label=case.label)


def test_zero_tokens():
    case = make_case(1, 0, 4, 16)
    out, lse = jgn.sparse_mla(jnp.asarray(case.q), case.pool, case.indices, 0.1)
    assert out.shape == (0, 4, 512) and lse.shape == (0, 4)


def test_auto_on_cpu_is_reference():
    case = make_case(2, 3, 2, 16)
    q = jnp.asarray(case.q)
    a = jgn.sparse_mla(q, case.pool, case.indices, case.sm_scale)  # numpy pool and indices
    b = jgn.sparse_mla(q, case.pool, case.indices, case.sm_scale, implementation="reference")
    np.testing.assert_array_equal(np.asarray(a[0]), np.asarray(b[0]))


def _call(case, **kw):
    return functools.partial(jgn.sparse_mla, sm_scale=case.sm_scale, implementation="reference", **kw)


def test_jit_vmap_shard_map_equal_plain_call():
    case = make_case(3, 8, 16, 96, with_lens=True, wide=True)
    case = Case(*(jnp.asarray(x) for x in (case.q, case.pool, case.indices, case.topk_lens)), case.sm_scale)
    plain = _call(case)(case.q, case.pool, case.indices, topk_lens=case.topk_lens)
    jitted = jax.jit(_call(case))(case.q, case.pool, case.indices, topk_lens=case.topk_lens)
    for a, b in zip(plain, jitted, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))

    # vmap over a leading batch axis: two halves of the tokens as a batch of 2
    def one(q, idx, lens):
        return jgn.sparse_mla(q, case.pool, idx, case.sm_scale, lens, implementation="reference")

    batched = jax.vmap(one)(
        case.q.reshape(2, 4, 16, 512), case.indices.reshape(2, 4, -1), case.topk_lens.reshape(2, 4)
    )
    np.testing.assert_array_equal(np.asarray(batched[0]).reshape(8, 16, 512), np.asarray(plain[0]))
    np.testing.assert_array_equal(np.asarray(batched[1]).reshape(8, 16), np.asarray(plain[1]))

    # shard_map: heads split across 8 CPU devices (tensor parallel), pool replicated
    assert jax.device_count() >= 8, "conftest sets --xla_force_host_platform_device_count=8"
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:8]), ("heads",))
    shard_map = getattr(jax, "shard_map", None)
    if shard_map is None:  # jax < 0.7 spelling
        from jax.experimental.shard_map import shard_map
    tp = shard_map(
        lambda q, pool, idx, lens: jgn.sparse_mla(
            q, pool, idx, case.sm_scale, lens, implementation="reference"
        ),
        mesh=mesh,
        in_specs=(P(None, "heads"), P(), P(), P()),
        out_specs=(P(None, "heads"), P(None, "heads")),
    )
    sharded = jax.jit(tp)(case.q, case.pool, case.indices, case.topk_lens)
    # 2 heads per device instead of 16: XLA's CPU dot picks another kernel for the
    # other shape, so float32 sums may round differently: within one bf16 ulp.
    out_s, out_p = (np.asarray(x.astype(jnp.float32)) for x in (sharded[0], plain[0]))
    np.testing.assert_allclose(out_s, out_p, rtol=2**-7, atol=0)
    # The lse of these scores reaches 1e6: a few float32 ulps of it, not 1e-5 absolute.
    np.testing.assert_allclose(np.asarray(sharded[1]), np.asarray(plain[1]), rtol=1e-6, atol=1e-5)
    np.testing.assert_array_equal(np.isneginf(np.asarray(sharded[1])), np.isneginf(np.asarray(plain[1])))


def _hostile_case(rng, num_tokens, width, num_slots=8192):
    indices = rng.integers(-64, num_slots + 64, (num_tokens, width)).astype(np.int32)
    indices[:12] = hostile_indices(rng, 12, width, num_slots)
    return Case(
        q=jnp.asarray(rng.standard_normal((num_tokens, 2, 512)).astype(np.float32) * 0.5).astype(
            jnp.bfloat16
        ),
        pool=jnp.asarray(poison_inactive(quantize_f64(rng.standard_normal((num_slots, 512))), indices, None)),
        indices=jnp.asarray(indices),
        topk_lens=None,
        sm_scale=0.06,
    )


def _compiled(case):
    fn = jax.jit(functools.partial(jgn.sparse_mla, sm_scale=case.sm_scale, implementation="reference"))
    return fn.lower(case.q, case.pool, case.indices).compile()


@pytest.mark.slow
def test_prefill_4096_by_2176_in_bounded_memory():
    """T=4096 x K=2176 on a CPU: the chunked reference never holds all rows at once (XLA's
    own account of the compiled call's scratch), and the chunked program computes the
    reference's answer over several chunks and a padded last one."""
    rng = np.random.default_rng(9)
    num_tokens, width = 4096, 2176
    temp = _compiled(_hostile_case(rng, num_tokens, width)).memory_analysis().temp_size_in_bytes
    full_gather = num_tokens * width * 512 * 4
    assert temp < 256 << 20 and temp < full_gather // 30, f"temp {temp / 2**20:.0f} MiB"
    # The same width at 44 tokens: 14 tokens per chunk, so three full chunks and a padded one.
    case = _hostile_case(rng, 44, width)
    out, lse = _compiled(case)(case.q, case.pool, case.indices)
    assert not np.isnan(np.asarray(out.astype(jnp.float32))).any()
    head = Case(np.asarray(case.q), np.asarray(case.pool), np.asarray(case.indices), None, case.sm_scale)
    assert_matches_reference(out, lse, head)
