"""Our SM90 kernels' host side: the kernel table read from the compiled library and every
restatement of it checked against it, the split rules mirrored in Python against the
compiled C++, the kernel a public-API call reaches, the lowered custom call, and its
predicates (their numerics are in tests/test_attention.py::TestCudaGPU and
tests/test_batch_invariance.py, on the GPU, and here one call per kernel row)."""

from __future__ import annotations

import collections
import itertools
import pathlib
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jax_glm_nope as jgn
from jax_glm_nope import device, native
from jax_glm_nope import testing as jt
from jax_glm_nope.implementations import Shapes, cuda
from jax_glm_nope.native import build, targets

ROOT = pathlib.Path(__file__).resolve().parent.parent
H200 = device.Device("cuda", "NVIDIA H200", (9, 0), 132)


@pytest.fixture(scope="module")
def library(native_library):
    return native.load_library(native_library)


@pytest.mark.nvcc
@pytest.mark.parametrize("num_candidates", [1, 63, 64, 65, 512, 2048, 2051, 2176, 65536])
def test_split_rules_match_the_compiled_ones(library, num_candidates):
    for num_tokens in (1, 2, 7, 32, 128, 4096, 65536):
        for num_heads in (1, 8, 16, 17, 24, 32, 33, 40, 64, 96, 128):
            for sm_count in (1, 78, 132):
                batch = targets.sm90_batch_num_splits(num_tokens, num_heads, num_candidates, sm_count)
                python = (
                    targets.sm90_num_splits(num_heads, num_candidates),
                    batch,
                    targets.sm90_scratch_shapes(num_tokens, num_heads, batch)[1][1],
                )
                assert python == targets.cxx_sm90_split_rules(
                    library, num_tokens, num_heads, num_candidates, sm_count
                )


def docs_kernel_table() -> list[tuple[str, int, int, int, int | None]]:
    """docs/cuda_sm90.md's kernel table as ``(name, min heads, max heads, min blocks per
    split, max blocks per split or None)`` bands; a cell ``a / b / c`` lists the bands of
    one kernel's rows."""

    def band(cell: str) -> tuple[int, int | None]:
        if cell.startswith(">= "):
            return int(cell[3:]), None
        low, _, high = cell.partition("-")
        return int(low), int(high or low)

    text = (ROOT / "docs" / "cuda_sm90.md").read_text()
    table = text[text.index("| kernel | heads | blocks per split |") :].split("\n\n")[0]
    bands = []
    for line in table.splitlines()[2:]:
        name, heads, blocks = (cell.strip() for cell in line.strip("|").split("|")[:3])
        if heads == "-":  # the split combine: no row of the table
            continue
        for head_band, block_band in zip(heads.split(" / "), blocks.split(" / "), strict=True):
            bands.append((name, *band(head_band), *band(block_band)))
    return bands


def kernel_base_name(mangled: str) -> str:
    """A compiled kernel's name without namespace and template arguments, e.g.
    ``sparse_mla_block_shared_kernel`` of ``_ZN12jax_glm_nope4sm9030sparse_mla_block_shared_kernelILi2E...``
    (the Itanium ABI puts each name's length before it)."""
    length = re.match(r"_ZN12jax_glm_nope4sm90(\d+)", mangled)
    return mangled[length.end() : length.end() + int(length.group(1))]


def serving(bands, num_heads: int, blocks_per_split: int) -> list[str]:
    return [
        name
        for name, low, high, fewest, most in bands
        if low <= num_heads <= (high or low) and fewest <= blocks_per_split <= (most or blocks_per_split)
    ]


@pytest.mark.nvcc
def test_every_restatement_of_the_kernel_table_matches_the_library(library, native_library):
    """The kernel table is declared once, in C++ (kKernels), and read from the compiled
    library; each place that states it again is checked against those rows here: the
    docs' table, the Python grid rule (head groups, CTAs per SM), the kernels compiled into
    the sm_90a unit, and the kernel the launcher takes for every call."""
    rows = targets.cxx_sm90_kernels(library)
    names = {row.name for row in rows}
    assert len(rows) >= 5 and all(row.batch_invariant and row.padded_rows for row in rows)
    assert (min(row.min_heads for row in rows), max(row.max_heads for row in rows)) == (
        1,
        targets.SM90_MAX_HEADS,
    )
    # docs/cuda_sm90.md: every (H, blocks per split) is served by the kernel the library's
    # row for it names, and the docs name no other kernel.
    docs = docs_kernel_table()
    assert {name for name, *_ in docs} == names
    for num_heads in range(1, targets.SM90_MAX_HEADS + 1):
        for blocks_per_split in (1, 2, 3, 4, 5, 7, 8, 9, 16, 33, 1 << 20):
            compiled = [
                row.name
                for row in rows
                if row.min_heads <= num_heads <= row.max_heads
                and row.min_blocks_per_split <= blocks_per_split <= (row.max_blocks_per_split or 1 << 30)
            ]
            assert len(compiled) == 1, (num_heads, blocks_per_split, compiled)
            assert serving(docs, num_heads, blocks_per_split) == compiled, (num_heads, blocks_per_split)
    # The Python grid rule (native/targets.py), which sizes the scratch: each row's CTAs
    # per (token, split) and per SM at every head count it serves.
    for row in rows:
        for num_heads in range(row.min_heads, row.max_heads + 1):
            assert targets.sm90_head_groups(num_heads) == -(-num_heads // row.group_heads), (row, num_heads)
            assert targets.sm90_ctas_per_sm(num_heads) == row.ctas_per_sm, (row, num_heads)
    # The sm_90a unit holds one instantiation per row of each kernel and the combine, and
    # nothing else: a kernel the launcher cannot pick is not compiled.
    compiled_kernels = [
        r["kernel"] for r in build.ptxas_report(native_library) if r["unit"] == "ours/sm90/sparse_mla.cu"
    ]
    stems = collections.Counter(map(kernel_base_name, compiled_kernels))
    expected = collections.Counter("sparse_mla_" + row.name.replace("-", "_") + "_kernel" for row in rows)
    assert stems == expected + collections.Counter(["combine_kernel"]), stems
    # The launcher takes the row that serves (H, blocks per split), and refuses heads
    # outside 1-128 and split counts that are not canonical.
    for num_candidates in (1, 64, 65, 200, 256, 2048, 2051, 2176, 65536):
        blocks = -(-num_candidates // targets.SM90_BLOCK_ROWS)
        for splits in sorted({1, 2, 3, 4, 5, 7, 8, 16, 33, blocks - 1, blocks, blocks + 1}):
            blocks_per_split = -(-blocks // splits) if splits >= 1 else 0
            canonical = 1 <= splits <= blocks
            canonical = canonical and targets.sm90_splits_of(num_candidates, blocks_per_split) == splits
            for num_heads in (0, *range(1, 130)):
                taken = targets.cxx_sm90_kernel(library, num_heads, num_candidates, splits)
                if not canonical or not 1 <= num_heads <= targets.SM90_MAX_HEADS:
                    assert taken is None, (num_heads, num_candidates, splits)
                    continue
                assert taken.min_heads <= num_heads <= taken.max_heads, (taken, num_heads)
                assert taken.min_blocks_per_split <= blocks_per_split, (taken, blocks_per_split)
                assert blocks_per_split <= (taken.max_blocks_per_split or blocks_per_split), taken


def lowered_splits(text: str) -> int:
    """The split count of the one sm_90a sparse-MLA custom call in lowered StableHLO: the
    handler reads it from the ``part_lse [T, P, H]`` result (``P = 0``: one split)."""
    calls = [line for line in text.splitlines() if f"@{targets.SM90_SPARSE_MLA}(" in line]
    assert len(calls) == 1, calls
    part_lse = re.findall(r"tensor<(\d+)x(\d+)x(\d+)xf32>", calls[0].rpartition("->")[2])[-1]
    return max(int(part_lse[1]), 1)


def reached_kernel(library, case: jt.Case, *, batch_invariant: bool, lower) -> targets.Sm90Kernel:
    """The kernel-table row a public-API ``sparse_mla(implementation="cuda")`` call on
    ``case`` reaches: the split count its lowering carries, and the row the compiled
    launcher takes for it (``lower`` turns a jitted function and its arguments into text)."""

    def attend(q, pool, indices):
        return jgn.sparse_mla(
            q, pool, indices, case.sm_scale, implementation="cuda", batch_invariant=batch_invariant
        )

    num_tokens, num_heads, _ = case.q.shape
    num_candidates = case.indices.shape[1]
    text = lower(jax.jit(attend), jnp.asarray(case.q), jnp.asarray(case.pool), jnp.asarray(case.indices))
    kernel = targets.cxx_sm90_kernel(library, num_heads, num_candidates, lowered_splits(text))
    assert kernel is not None, case.label
    return kernel


def lower_for_h200(function, *args) -> str:
    with jgn.lowering_for(H200):
        return function.trace(*args).lower(lowering_platforms=("cuda",)).as_text()


@pytest.mark.nvcc
@pytest.mark.parametrize(
    ("tokens", "heads", "batch_invariant", "kernel"),
    [
        (1, 8, False, "block-shared"),  # one block per split at one token
        (128, 8, False, "warp-private"),
        (1, 16, False, "block-shared"),
        (128, 16, False, "candidates-major"),
        (8, 64, False, "heads-major"),  # 16 splits of 2 blocks
        (128, 64, False, "heads-major-pipelined"),
        (8, 64, True, "heads-major-pipelined"),  # the invariant rule: 8 blocks per split
    ],
)
def test_a_call_names_the_kernel_it_reaches(library, tokens, heads, batch_invariant, kernel):
    """What a public-API call lowered for an H200 (132 SMs, from this CPU host) reaches, at
    K = 2048: the batch-sized rule fills the GPU with splits at few tokens (short splits:
    the block-shared or heads-major kernel), the invariant rule always takes 8 blocks."""
    case = jt.make_case(1, tokens, heads, 2048)
    assert reached_kernel(library, case, batch_invariant=batch_invariant, lower=lower_for_h200).name == kernel


@pytest.mark.gpu
@pytest.mark.sm90
def test_every_kernel_row_is_reached_by_a_public_api_case():
    """Every row of the compiled kernel table serves at least one public-API call on this
    GPU, checked against float64 on the dequantized values; the assertion message names the
    case that reached each row. For each row, the first of its head counts (most, fewest),
    token counts (128, 8, 1) and split rules whose lowered call reaches it (K = 2048,
    wide-range data, hostile indices)."""
    library = native.load_library()  # the library this process runs

    def lower_here(function, *args) -> str:
        return function.lower(*args).as_text()

    rows = targets.cxx_sm90_kernels(library)
    reached: dict[int, str] = {}
    for row in rows:
        for num_heads, tokens, batch_invariant in itertools.product(
            dict.fromkeys((row.max_heads, row.min_heads)), (128, 8, 1), (False, True)
        ):
            if row.index in reached:
                break
            case = jt.make_case(100 + row.index, tokens, num_heads, 2048, wide=True)
            kernel = reached_kernel(library, case, batch_invariant=batch_invariant, lower=lower_here)
            if kernel.index in reached:
                continue

            def attend(q, pool, indices, case=case, batch_invariant=batch_invariant):
                return jgn.sparse_mla(
                    q, pool, indices, case.sm_scale, implementation="cuda", batch_invariant=batch_invariant
                )

            out, lse = jax.jit(attend)(jnp.asarray(case.q), jnp.asarray(case.pool), jnp.asarray(case.indices))
            jt.assert_accurate(
                np.asarray(out.astype(jnp.float32)), np.asarray(lse), *case.reference(), label=case.label
            )
            reached[kernel.index] = f"{case.label}, batch_invariant={batch_invariant}"
    named = {
        f"{row.index} {row.name} {row.min_heads}-{row.max_heads} heads": reached.get(row.index)
        for row in rows
    }
    print("\n".join(f"{row}: {case}" for row, case in named.items()))
    assert None not in named.values(), named


@pytest.mark.gpu
@pytest.mark.sm90
@pytest.mark.parametrize("num_tokens", [1, 8, 128])
def test_without_topk_lens_the_compiled_call_is_our_kernels_alone(num_tokens):
    """Compiled by XLA for this GPU, a call without topk_lens runs no XLA kernel before
    ours (a [T] constant of lengths became a broadcast fusion at T > 1, and the launch
    after it waited), and it matches float64 like a call that gives every length."""
    case = jt.make_case(7, num_tokens, 64, 2048, wide=True)

    def attend(q, pool, indices):
        return jgn.sparse_mla(q, pool, indices, case.sm_scale, implementation="cuda")

    args = (jnp.asarray(case.q), jnp.asarray(case.pool), jnp.asarray(case.indices))
    compiled = jax.jit(attend).lower(*args).compile().as_text()
    kinds = set(re.findall(r"\s(fusion|broadcast|custom-call)\(", compiled))
    assert kinds == {"custom-call"}, kinds
    out, lse = jax.jit(attend)(*args)
    jt.assert_accurate(
        np.asarray(out.astype(jnp.float32)), np.asarray(lse), *case.reference(), label=case.label
    )


def test_invariant_rule_ignores_the_batch():
    assert {targets.sm90_num_splits(h, 2048) for h in (1, 8, 32)} == {4}
    assert targets.sm90_num_splits(8, 2176) == 5


def test_predicates():
    assert cuda.device_unsupported(H200) in (None, native.unavailable_reason())
    assert "sm_90a" in cuda.device_unsupported(device.Device("cuda", "NVIDIA RTX PRO 6000", (12, 0), 188))
    assert "sm_90a" in cuda.device_unsupported(device.Device("cpu", "cpu"))
    assert cuda.shapes_unsupported(Shapes(1, 32, 2048, 528, 100)) is None
    assert cuda.shapes_unsupported(Shapes(1, 128, 2048, 528, 100)) is None  # groups of 64 heads
    assert "1-128" in cuda.shapes_unsupported(Shapes(1, 129, 2048, 528, 100))
    with pytest.raises(TypeError, match="batch_invariant"):
        cuda.device_unsupported(H200, batch_invariant="yes")


@pytest.mark.nvcc
@pytest.mark.parametrize("invariant", [False, True])
def test_lowered_custom_call(library, invariant):
    q = jax.ShapeDtypeStruct((128, 16, 512), jnp.bfloat16)
    pool = jax.ShapeDtypeStruct((1000, 656), jnp.uint8)
    idx = jax.ShapeDtypeStruct((128, 2051), jnp.int32)
    lens = jax.ShapeDtypeStruct((128,), jnp.int32)
    splits = (
        targets.sm90_num_splits(16, 2051) if invariant else targets.sm90_batch_num_splits(128, 16, 2051, 132)
    )
    call = jax.jit(lambda *a: targets.sm90_sparse_mla_call(*a, 0.0625, splits))
    text = call.trace(q, pool, idx, lens).lower(lowering_platforms=("cuda",)).as_text()
    assert targets.SM90_SPARSE_MLA in text
    assert "sm_scale = 6.250000e-02" in text
    part_out, part_lse = targets.sm90_scratch_shapes(128, 16, splits)
    assert f"tensor<{'x'.join(map(str, part_lse))}xf32>" in text
    assert f"tensor<{'x'.join(map(str, part_out))}xf32>" in text


def test_auto_takes_cuda_on_hopper_where_it_was_measured_faster(monkeypatch):
    from jax_glm_nope import dispatch

    monkeypatch.setattr(native, "unavailable_reason", lambda **_: None)

    def pick(tokens, heads):
        return dispatch.decide(
            "sparse_mla", None, Shapes(tokens, heads, 2048, 528, 1 << 20), {}, device=H200
        ).implementation

    assert pick(4, 16) == pick(8, 16) == pick(31, 8) == pick(32, 8) == pick(4096, 32) == "cuda"
    # below dispatch.CUDA_MIN_TOKENS: Pallas, except one token at up to
    # CUDA_ONE_TOKEN_MAX_HEADS heads (the whole call measured faster: docs/h100_results.md)
    assert pick(1, 8) == pick(1, dispatch.CUDA_ONE_TOKEN_MAX_HEADS) == "cuda"
    assert pick(1, 32) == pick(1, 64) == pick(2, 8) == pick(3, 16) == "pallas"
    assert pick(128, 64) == pick(32, 128) == "cuda"  # 33-128 heads: the heads-major kernel
    a100 = device.Device("cuda", "NVIDIA A100", (8, 0), 108)
    assert (
        dispatch.decide("sparse_mla", None, Shapes(128, 8, 2048, 528, 100), {}, device=a100).implementation
        == "reference"
    )


def test_public_api_names_the_device_on_cpu():
    pool = jgn.quantize(jnp.ones((4, 512)))
    with pytest.raises(ValueError, match=r"implementation='cuda' cannot serve this call on cpu"):
        jgn.sparse_mla(
            jnp.ones((1, 8, 512), jnp.bfloat16),
            pool,
            jnp.zeros((1, 4), jnp.int32),
            0.1,
            implementation="cuda",
        )
    with pytest.raises(TypeError, match="batch_invariant"):
        jgn.sparse_mla(
            jnp.ones((1, 8, 512), jnp.bfloat16),
            pool,
            jnp.zeros((1, 4), jnp.int32),
            0.1,
            implementation="pallas",
            batch_invariant=True,
        )
