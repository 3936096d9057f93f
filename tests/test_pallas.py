"""Pallas-specific checks (the shared attention suite is tests/test_attention.py): every
schedule variant through the public API in the interpreter, wide-range data included,
the split merge, shard_map, the schedule table and the predicates."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jax_glm_nope import device, layout, sparse_mla
from jax_glm_nope import testing as jt
from jax_glm_nope.implementations import Shapes
from jax_glm_nope.implementations.pallas import (
    Schedule,
    choose_schedule,
    device_unsupported,
    merge_splits,
    shapes_unsupported,
)
from jax_glm_nope.implementations.pallas import schedule as schedule_module


def _check(seed, num_tokens, num_heads, num_candidates, *, wide=True, fmt=layout.COMPACT, **options):
    case = jt.make_case(seed, num_tokens, num_heads, num_candidates, fmt=fmt, wide=wide, with_lens=True)
    out, lse = sparse_mla(
        jnp.asarray(case.q),
        jnp.asarray(case.pool),
        jnp.asarray(case.indices),
        case.sm_scale,
        jnp.asarray(case.topk_lens),
        implementation="pallas",
        interpret=True,
        **options,
    )
    jt.assert_spec3(np.asarray(out.astype(jnp.float32)), np.asarray(lse), *case.reference(), label=case.label)
    return case


@pytest.mark.parametrize("prefetch", [False, True])
@pytest.mark.parametrize("candidates_major", [False, True])
@pytest.mark.parametrize("num_splits", [1, 2, 5])
def test_every_split_count_and_orientation(num_splits, candidates_major, prefetch):
    """One split writes final results in the kernel; more go through ``merge_splits``.

    150 candidates in 32-row steps: 5 steps, so with prefetching the last step's
    look-ahead (clamped, all masked) and splits of 1-5 steps are all exercised."""
    sched = Schedule(
        block_h=16,
        block_k=32,
        num_splits=num_splits,
        num_warps=4,
        num_stages=1,
        candidates_major=candidates_major,
        prefetch=prefetch,
    )
    _check(11, 7, 16, 150, schedule=sched)


@pytest.mark.parametrize(
    ("block_h", "candidates_major", "prefetch"),
    [(64, False, False), (32, False, True), (32, True, False), (64, False, True)],
)
def test_every_head_block(block_h, candidates_major, prefetch):
    """Tiny CPU shapes mostly take the small-launch rows of the table; run the others too.

    40 heads: one padded 64-head block, or a full and a padded 32-head block."""
    sched = Schedule(block_h, 32, 2, 4, 1, candidates_major=candidates_major, prefetch=prefetch)
    _check(3, 7, 40, 200, fmt=layout.PADDED, schedule=sched)


def test_shard_map_heads_and_tokens():
    devices = jax.devices()
    if len(devices) < 2:
        pytest.skip("needs several (CPU) devices")
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    case = jt.make_case(31, 4, 8, 24, wide=True, with_lens=True)
    q, pool, indices, lens = (jnp.asarray(x) for x in (case.q, case.pool, case.indices, case.topk_lens))
    ref = case.reference()
    mesh = jax.make_mesh((2,), ("x",))

    def f(q, i, n):
        return sparse_mla(q, pool, i, case.sm_scale, n, implementation="pallas", interpret=True)

    # check_vma=False: the Pallas *interpreter* trips JAX's varying-axes check inside
    # shard_map; the GPU lowering runs with the check on (docs/semantics.md).
    heads = jax.jit(
        jax.shard_map(
            f,
            mesh=mesh,
            in_specs=(P(None, "x"), P(), P()),
            out_specs=(P(None, "x"), P(None, "x")),
            check_vma=False,
        )
    )
    out, lse = heads(jax.device_put(q, NamedSharding(mesh, P(None, "x"))), indices, lens)
    jt.assert_spec3(np.asarray(out.astype(jnp.float32)), np.asarray(lse), *ref)
    tokens = jax.jit(
        jax.shard_map(
            f, mesh=mesh, in_specs=(P("x"), P("x"), P("x")), out_specs=(P("x"), P("x")), check_vma=False
        )
    )
    out, lse = tokens(*(jax.device_put(x, NamedSharding(mesh, P("x"))) for x in (q, indices, lens)))
    jt.assert_spec3(np.asarray(out.astype(jnp.float32)), np.asarray(lse), *ref)


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


def test_merge_splits_inf_and_nan():
    out = jnp.ones((3, 1, 2, layout.HEAD_DIM), jnp.float32)
    lse = jnp.asarray([[[jnp.inf, 0.0]], [[1.0, jnp.nan]], [[-jnp.inf, -jnp.inf]]], jnp.float32)
    merged, merged_lse = merge_splits(out, lse)
    assert np.asarray(merged_lse)[0, 0] == np.inf and np.isfinite(np.asarray(merged, np.float32)[0, 0]).all()
    assert np.isnan(np.asarray(merged_lse)[0, 1]) and np.isnan(np.asarray(merged, np.float32)[0, 1]).all()


def test_predicates():
    cpu = device.Device("cpu", "cpu")
    assert "interpret=True" in device_unsupported(cpu)
    assert device_unsupported(cpu, interpret=True) is None
    assert device_unsupported(device.Device("cuda", "NVIDIA H200", (9, 0), 132)) is None
    assert "8.9" in device_unsupported(device.Device("cuda", "NVIDIA A100", (8, 0), 108))
    with pytest.raises(TypeError, match="interpret"):
        device_unsupported(cpu, interpret="yes")


def test_pool_size_limit_is_a_shape_predicate():
    """Pools of 2-4 GiB would overflow the kernel's int32 offsets: auto routes around them."""
    shapes = lambda slots: Shapes(1, 8, 64, 528, slots)  # noqa: E731
    assert shapes_unsupported(shapes(1 << 20)) is None
    assert shapes_unsupported(shapes(9 << 20)) is None  # > 4 GiB: 64-bit offsets
    assert "GiB" in shapes_unsupported(shapes(5 << 20))
    assert shapes_unsupported(shapes(5 << 20), interpret=True) is None
