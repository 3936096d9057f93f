"""Pallas-specific checks (the shared attention suite is tests/test_attention.py): every
schedule variant through the public API in the interpreter, wide-range data included,
the split merge, shard_map, the schedule table and the predicates."""

from __future__ import annotations

import dataclasses
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jax_glm_nope as jgn
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
    jt.assert_accurate(
        np.asarray(out.astype(jnp.float32)), np.asarray(lse), *case.reference(), label=case.label
    )
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
    [(64, False, False), (32, False, True), (32, True, False), (64, False, True), (16, False, True)],
)
def test_every_head_block(block_h, candidates_major, prefetch):
    """Tiny CPU shapes mostly take the small-launch rows of the table; run the others too.

    40 heads: one padded 64-head block, a full and a padded 32-head block, or two full and a
    padded 16-head block."""
    sched = Schedule(block_h, 32, 2, 4, 1, candidates_major=candidates_major, prefetch=prefetch)
    _check(3, 7, 40, 200, fmt=layout.PADDED, schedule=sched)


def test_single_token_takes_16_head_blocks():
    """The table's own choice for one token at 17-64 heads: 16-head blocks (40 heads: three,
    the last padded), checked against the reference like every other schedule."""
    assert choose_schedule(1, 40, 200).block_h == 16
    _check(13, 1, 40, 200)


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
    jt.assert_accurate(np.asarray(out.astype(jnp.float32)), np.asarray(lse), *ref)
    tokens = jax.jit(
        jax.shard_map(
            f, mesh=mesh, in_specs=(P("x"), P("x"), P("x")), out_specs=(P("x"), P("x")), check_vma=False
        )
    )
    out, lse = tokens(*(jax.device_put(x, NamedSharding(mesh, P("x"))) for x in (q, indices, lens)))
    jt.assert_accurate(np.asarray(out.astype(jnp.float32)), np.asarray(lse), *ref)


def test_merge_splits_is_exact():
    rng = np.random.default_rng(4)
    lse = rng.normal(size=(3, 2, 5)).astype(np.float32)
    lse[1, 0, :] = -np.inf  # an empty split
    lse[:, 1, 0] = -np.inf  # a token/head with nothing at all
    out = rng.normal(size=(3, 2, 5, layout.HEAD_DIM)).astype(np.float32)
    merged, merged_lse = merge_splits(jnp.asarray(out), jnp.asarray(lse), interpret=True)
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
    small_launch = small_launch < schedule_module.NUM_SMS
    one_token = small_launch and num_tokens == 1 and 16 < num_heads <= 64
    if one_token:
        assert sched.block_h == 16  # the 16-head kernel side by side: 2-4 times the programs
    elif small_launch and num_heads > 32:
        assert sched.block_h == 32  # twice the programs when one per step cannot fill the SMs
    else:
        assert sched.block_h >= 16 and sched.block_h >= min(num_heads, schedule_module.LARGE_BLOCK_H)
    assert sched.block_h <= max(16, 2 * num_heads)  # 8 heads never pay for 64
    assert sched.candidates_major == (small_launch and not one_token and 16 < num_heads <= 32)
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
    merged, merged_lse = merge_splits(out, lse, interpret=True)
    assert np.asarray(merged_lse)[0, 0] == np.inf and np.isfinite(np.asarray(merged, np.float32)[0, 0]).all()
    assert np.isnan(np.asarray(merged_lse)[0, 1]) and np.isnan(np.asarray(merged, np.float32)[0, 1]).all()


def test_a_split_near_float32_max_merges_finite():
    """A split whose output lies past bf16's largest finite value (rows at 3.4e38) beside
    a split of small rows, with equal weights: the true merged value is 1.7e38, finite in
    bf16. The splits reach the merge in float32: rounded to bf16 there, the first would be inf
    (and clamping it to bf16's range was measured to cost accuracy on every split call)."""
    num_slots, num_candidates = 80, 64
    latent = np.zeros((num_slots, layout.HEAD_DIM), np.float32)
    latent[1:33, 0] = 3.4e38  # the first split's candidates
    latent[33:65, 0] = 1.0  # the second's
    pool = jt.quantize_f64(latent)
    indices = np.arange(1, num_candidates + 1, dtype=np.int32)[None]
    q = np.zeros((1, 16, layout.HEAD_DIM), jnp.bfloat16)  # every score 0: equal weights
    case = jt.Case(q, pool, indices, None, 0.1, "rows at 3.4e38 beside rows of 1")
    out, lse = sparse_mla(
        jnp.asarray(q),
        jnp.asarray(pool),
        jnp.asarray(indices),
        0.1,
        implementation="pallas",
        interpret=True,
        schedule=Schedule(16, 32, 2, 4, 1),
    )
    out = np.asarray(out.astype(jnp.float32))
    assert np.isfinite(out).all(), out[0, 0, :4]
    jt.assert_accurate(out, np.asarray(lse), *case.reference(), label=case.label)


def test_predicates():
    cpu = device.Device("cpu", "cpu")
    assert "interpret=True" in device_unsupported(cpu)
    assert device_unsupported(cpu, interpret=True) is None
    assert device_unsupported(device.Device("cuda", "NVIDIA H200", (9, 0), 132)) is None
    assert "8.9" in device_unsupported(device.Device("cuda", "NVIDIA A100", (8, 0), 108))
    with pytest.raises(TypeError, match="interpret"):
        device_unsupported(cpu, interpret="yes")


# ------------------------------------------------- pools of every size (64-bit offsets)

H200 = device.Device("cuda", "NVIDIA H200", (9, 0), 132)
L40S = device.Device("cuda", "NVIDIA L40S", (8, 9), 142)  # Ada: Pallas is its only GPU kernel
TRITON_TARGET = "__gpu$xla.gpu.triton"


def triton_ir(fn, *specs, record=H200) -> list[str]:
    """The Triton IR (text) of every Pallas kernel that ``jax.jit(fn)`` lowers to for
    ``record``, lowered on this host (no GPU needed)."""
    try:
        from jax._src.lib.mlir import ir
        from jax._src.lib.triton import dialect as tt_dialect
    except ImportError as err:  # pragma: no cover - a jax without the Triton dialect
        pytest.skip(f"this jax cannot parse Triton IR: {err}")
    with jgn.lowering_for(record):
        module = jax.jit(fn).trace(*specs).lower(lowering_platforms=("cuda",)).compiler_ir()
    kernels = []

    def walk(op):
        for region in op.regions:
            for block in region:
                for inner in block.operations:
                    if inner.operation.name == "stablehlo.custom_call":
                        config = inner.attributes["mhlo.backend_config"]
                        if "ir" in ir.DictAttr(config):
                            kernels.append(ir.StringAttr(ir.DictAttr(config)["ir"]).value_bytes)
                    walk(inner.operation)

    walk(module.operation)
    texts = []
    for data in kernels:
        with ir.Context() as ctx:
            tt_dialect.register_dialect(ctx)
            texts.append(str(ir.Module.parse(data)))
    if not texts:
        pytest.skip("this jax's Triton custom call carries no Triton IR to read")
    return texts


def attention_specs(pool_shape, num_tokens=1, num_heads=16, num_candidates=128):
    return (
        jax.ShapeDtypeStruct((num_tokens, num_heads, 512), jnp.bfloat16),
        jax.ShapeDtypeStruct(pool_shape, jnp.uint8),
        jax.ShapeDtypeStruct((num_tokens, num_candidates), jnp.int32),
    )


def pool_offset_types(texts) -> set[str]:
    """The offset types of every pointer into a byte array (the pool) in ``texts``."""
    pattern = r"tt\.addptr %\S+, %\S+ : tensor<[0-9x]+x!tt\.ptr<i8>>, tensor<[0-9x]+x(i\d+)>"
    return {kind for text in texts for kind in re.findall(pattern, text)}


@pytest.mark.parametrize(
    ("pool_shape", "offsets"),
    [
        ((1 << 20, 528), "i32"),  # 0.5 GiB: int32 offsets reach every byte
        ((5 << 20, 528), "i64"),  # 2.6 GiB: rows past the 2 GiB line need 64 bits
        ((81920, 64, 528), "i64"),  # the same as 3-D pages of 64
        ((3_500_000, 656), "i64"),  # 2.1 GiB of PADDED rows
        ((9 << 20, 528), "i64"),  # 4.6 GiB: jax's own 64-bit threshold
    ],
)
def test_pools_past_2gib_lower_with_64_bit_offsets(pool_shape, offsets):
    """Triton sign-extends int32 offsets: in a pool of 2-4 GiB every row past 2**31 bytes
    would be read 4 GiB too low. Read from the Triton IR the kernel lowers to."""

    def attend(q, pool, indices):
        return jgn.sparse_mla(q, pool, indices, 1 / 16, implementation="pallas")

    assert pool_offset_types(triton_ir(attend, *attention_specs(pool_shape))) == {offsets}


@pytest.mark.parametrize(("record", "num_tokens"), [(H200, 1), (L40S, 1), (L40S, 64)])
def test_automatic_choice_serves_pools_past_2gib_with_pallas(record, num_tokens):
    """The dispatch table's Pallas rows (H200 decode below dispatch.CUDA_MIN_TOKENS; every call on Ada) no
    longer route a 2.6 GiB pool elsewhere."""

    def attend(q, pool, indices):
        return jgn.sparse_mla(q, pool, indices, 1 / 16)

    specs = attention_specs((5 << 20, 528), num_tokens=num_tokens)
    assert pool_offset_types(triton_ir(attend, *specs, record=record)) == {"i64"}


def test_jax_is_patched_only_while_a_pool_of_2_to_4_gib_is_lowered():
    """The 64-bit offsets are a change to jax's private Pallas lowering: it is absent after
    import, after calls on the CPU (automatic, reference, Pallas interpreter) and after
    lowering a Pallas kernel over a smaller pool; present only while a kernel over a 2-4
    GiB pool is lowered (its IR has 64-bit offsets), and absent again afterwards."""
    from jax._src.pallas.triton import lowering

    from jax_glm_nope.implementations.pallas import offsets

    jax_own = lowering._compute_offsets_from_indices
    pool = jgn.quantize(jnp.ones((8, 512)))
    q, indices = jnp.ones((1, 8, 512), jnp.bfloat16), jnp.zeros((1, 4), jnp.int32)
    jgn.sparse_mla(q, pool, indices, 0.1)
    jgn.sparse_mla(q, pool, indices, 0.1, implementation="pallas", interpret=True)

    def attend(q, pool, indices):
        return jgn.sparse_mla(q, pool, indices, 1 / 16, implementation="pallas")

    assert pool_offset_types(triton_ir(attend, *attention_specs((1 << 20, 528)))) == {"i32"}
    assert not offsets.active() and lowering._compute_offsets_from_indices is jax_own
    assert pool_offset_types(triton_ir(attend, *attention_specs((5 << 20, 528)))) == {"i64"}
    assert not offsets.active() and lowering._compute_offsets_from_indices is jax_own


@pytest.mark.parametrize(
    ("shape", "itemsize", "needs"),
    [
        ((2**31 // 528, 528), 1, False),  # 2**31 - 368 bytes: the last row ends below the line
        ((2**31 // 528 + 1, 528), 1, True),  # one more row crosses it
        ((2**32 // 528, 528), 1, True),
        ((2**32 // 528 + 1, 528), 1, False),  # past 2**32 bytes jax uses 64 bits itself
        ((5 << 20, 264), 2, False),  # 2-byte elements: offsets count elements, below 2**31
    ],
)
def test_which_arrays_need_64_bit_offsets(shape, itemsize, needs):
    from jax_glm_nope.implementations.pallas import offsets

    assert offsets.needs_int64_offsets(shape, itemsize) is needs
    assert offsets.UNSUPPORTED is None  # this jax's lowering takes the 64-bit offsets


def test_every_pool_size_is_served():
    shapes = lambda slots: Shapes(1, 8, 64, 528, slots)  # noqa: E731
    for slots in (1 << 20, 4_067_203, 4_067_204, 5 << 20, 8_134_407, 9 << 20):
        assert shapes_unsupported(shapes(slots)) is None


BIG_POOL_SLOTS = 64 * 79_688  # 5,100,032 rows of 528 B: 2.51 GiB, past 2**31 bytes
LINE_ROW = 2**31 // 528  # the row whose bytes cross the 2 GiB line


@pytest.fixture(scope="module")
def big_pool_case():
    """A hostile small case (holes, poisoned unreferenced rows, ``topk_lens`` outside
    ``[0, K]``) moved into a 2.51 GiB pool: its rows land on both sides of the 2 GiB line
    (the row across it and the last row included), NaN/Inf poison fills every other slot
    (slot 0 above all), and out-of-range ids stay out of range."""
    case = jt.make_case(41, 82, 16, 300, num_slots=512, wide=True, with_lens=True)
    rng = np.random.default_rng(41)
    near_line = [LINE_ROW - 1, LINE_ROW, LINE_ROW + 1, BIG_POOL_SLOTS - 1, 1]
    below = rng.choice(np.arange(2, LINE_ROW - 1), 150, replace=False)
    above = rng.choice(np.arange(LINE_ROW + 2, BIG_POOL_SLOTS - 1), 511 - 150 - len(near_line), replace=False)
    big_of_small = np.concatenate([[0], near_line, rng.permutation(np.concatenate([below, above]))])
    big_of_small = big_of_small.astype(np.int64)  # small slot 0 (poisoned, unreferenced) maps to 0
    assert len(np.unique(big_of_small)) == 512 and (big_of_small[1:] * 528 >= 2**31).sum() > 300
    idx = case.indices.astype(np.int64)
    valid = (idx >= 0) & (idx < 512)
    moved = np.where(valid, big_of_small[np.clip(idx, 0, 511)], idx)
    moved = np.where(~valid & (idx >= 512), np.minimum(idx - 512 + BIG_POOL_SLOTS, 2**31 - 1), moved)
    pool = jnp.broadcast_to(jnp.asarray(jt.poison_row(layout.COMPACT)), (BIG_POOL_SLOTS, 528))
    pool = pool.at[jnp.asarray(big_of_small[1:], jnp.int32)].set(jnp.asarray(case.pool[1:]))
    return case, pool, jnp.asarray(moved.astype(np.int32)), case.reference()


@pytest.mark.gpu
@pytest.mark.parametrize("page_size", [None, 64])
@pytest.mark.parametrize(
    ("implementation", "num_tokens", "num_heads"),
    [
        ("pallas", 1, 16),  # decode: one step per split
        ("pallas", 3, 64),  # 32-head blocks
        ("pallas", 17, 32),  # gathering ahead
        ("pallas", 80, 16),
        (None, 2, 16),  # the automatic choice (Pallas on an H200 below the cuda threshold)
        pytest.param("cuda", 80, 16, marks=pytest.mark.sm90),  # what the other kernels serve
    ],
)
def test_pool_past_2gib_on_the_gpu(big_pool_case, implementation, num_tokens, num_heads, page_size):
    """The 2.51 GiB pool through the public API, against the float64 reference."""
    case, pool, indices, (ref_out, ref_lse) = big_pool_case
    if page_size is not None:
        pool = pool.reshape(-1, page_size, 528)
    tokens = slice(2, 2 + num_tokens)  # tokens 0 and 1 of the case attend to nothing
    q = jnp.asarray(case.q[tokens, :num_heads])
    lens = jnp.asarray(case.topk_lens[tokens])
    fn = jax.jit(lambda q, p, i, n: sparse_mla(q, p, i, case.sm_scale, n, implementation=implementation))
    out, lse = fn(q, pool, indices[tokens], lens)
    jt.assert_accurate(
        np.asarray(out.astype(jnp.float32)),
        np.asarray(lse),
        ref_out[tokens, :num_heads],
        ref_lse[tokens, :num_heads],
        label=f"{case.label} pool of {BIG_POOL_SLOTS} slots",
    )


def test_lowers_for_the_gpu_under_jax_enable_x64():
    """The kernel code the GPU runs, traced in 64-bit mode (sums of uint32 scale bytes must
    stay 32-bit): every schedule variant of the table lowers."""

    def attend(q, pool, indices):
        return jgn.sparse_mla(q, pool, indices, 1 / 16, implementation="pallas")

    with jax.enable_x64(True):
        for num_tokens, num_heads in ((1, 16), (1, 32), (1, 64), (128, 8), (128, 64)):
            specs = attention_specs((4096, 528), num_tokens, num_heads, 2048)
            assert pool_offset_types(triton_ir(attend, *specs)) == {"i32"}


@pytest.mark.parametrize("num_heads", [8, 64, 100])
def test_one_token_call_is_the_kernel_and_the_merge(num_heads):
    """Lowered for an H200, a one-token call is two Pallas kernels (the attention's splits,
    then their merge) and nothing else that computes: no pad of q and no broadcast of
    topk_lens before them (a constant), no chain of XLA reductions, selects and slices
    after (only free reshapes)."""
    specs = (
        jax.ShapeDtypeStruct((1, num_heads, layout.HEAD_DIM), jnp.bfloat16),
        jax.ShapeDtypeStruct((4096, layout.COMPACT.bytes_per_token), jnp.uint8),
        jax.ShapeDtypeStruct((1, 2048), jnp.int32),
    )
    with jgn.lowering_for(H200):
        text = (
            jax.jit(lambda q, p, i: sparse_mla(q, p, i, 0.0625, implementation="pallas"))
            .trace(*specs)
            .lower(lowering_platforms=("cuda",))
            .as_text()
        )
    names = re.findall(r'name = "(sparse_mla\w+)"', text)
    assert names == ["sparse_mla_fp8_rows", "sparse_mla_split_merge"], names
    ops = set(re.findall(r"(stablehlo\.\w+)", text))
    assert ops <= {"stablehlo.custom_call", "stablehlo.reshape", "stablehlo.constant"}, ops


@pytest.mark.parametrize("with_lens", [False, True], ids=["no_topk_lens", "topk_lens"])
@pytest.mark.parametrize("num_tokens", [1, 8])
def test_without_topk_lens_the_kernel_reads_no_lengths(num_tokens, with_lens):
    """Without topk_lens the attention kernel takes indices, q and the pool only: no [T]
    constant reaches XLA (its simplifier makes a broadcast kernel of one at T > 1)."""
    specs = (
        jax.ShapeDtypeStruct((num_tokens, 64, layout.HEAD_DIM), jnp.bfloat16),
        jax.ShapeDtypeStruct((4096, layout.COMPACT.bytes_per_token), jnp.uint8),
        jax.ShapeDtypeStruct((num_tokens, 2048), jnp.int32),
        jax.ShapeDtypeStruct((num_tokens,), jnp.int32),
    )

    def call(q, p, i, n):
        return sparse_mla(q, p, i, 0.0625, topk_lens=n if with_lens else None, implementation="pallas")

    with jgn.lowering_for(H200):
        text = jax.jit(call).trace(*specs).lower(lowering_platforms=("cuda",)).as_text()
    (operands,) = re.findall(r"custom_call @__gpu\$xla\.gpu\.triton\(([^)]*)\).*sparse_mla_fp8_rows", text)
    assert len(operands.split(",")) == (4 if with_lens else 3), operands


def test_a_nan_split_beside_empty_splits_merges_to_nan():
    """A head whose only non-empty split is NaN (non-finite referenced input) is NaN in out
    and lse, never the empty sentinel (0, -inf)."""
    out = jnp.ones((3, 1, 2, layout.HEAD_DIM), jnp.float32)
    lse = jnp.asarray([[[jnp.nan, -jnp.inf]], [[-jnp.inf, -jnp.inf]], [[-jnp.inf, -jnp.inf]]], jnp.float32)
    merged, merged_lse = merge_splits(out, lse, interpret=True)
    assert np.isnan(np.asarray(merged_lse)[0, 0]) and np.isnan(np.asarray(merged, np.float32)[0, 0]).all()
    assert np.asarray(merged_lse)[0, 1] == -np.inf and np.all(np.asarray(merged, np.float32)[0, 1] == 0)
