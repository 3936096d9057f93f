"""Our SM90 kernels' host side: the split rules mirrored in Python against the compiled
C++, which kernel the compiled launcher takes, the lowered custom call, and its
predicates (their numerics are in tests/test_attention.py::TestCudaGPU and
tests/test_batch_invariance.py, on the GPU)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

import jax_glm_nope as jgn
from jax_glm_nope import device, native
from jax_glm_nope.implementations import Shapes, cuda
from jax_glm_nope.native import targets

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


def documented_kernel(num_heads: int, blocks_per_split: int) -> str | None:
    """docs/cuda_sm90.md's kernel table: which kernel serves (H, blocks per split)."""
    if not 1 <= num_heads <= 128:
        return None
    if num_heads <= 8:
        return "warp-private" if blocks_per_split >= 2 else "block-shared"
    if num_heads <= 32:
        return "candidates-major" if blocks_per_split >= 4 else "block-shared"
    return "heads-major-pipelined" if blocks_per_split >= 8 else "heads-major"


@pytest.mark.nvcc
def test_the_launcher_takes_the_kernels_the_table_declares(library):
    for num_candidates in (1, 64, 65, 200, 256, 2048, 2051, 2176, 65536):
        blocks = -(-num_candidates // targets.SM90_BLOCK_ROWS)
        for splits in sorted({1, 2, 3, 4, 5, 7, 8, 16, 33, blocks - 1, blocks, blocks + 1}):
            blocks_per_split = -(-blocks // splits) if splits >= 1 else 0
            canonical = 1 <= splits <= blocks
            canonical = canonical and targets.sm90_splits_of(num_candidates, blocks_per_split) == splits
            for num_heads in (0, *range(1, 130)):
                expected = documented_kernel(num_heads, blocks_per_split) if canonical else None
                compiled = targets.cxx_sm90_kernel_name(library, num_heads, num_candidates, splits)
                assert compiled == expected, (num_heads, num_candidates, splits)
    # Under the batch-invariant rule (8 blocks per split at K >= 512) every head count takes
    # the kernel of its range, whatever T.
    for num_heads, kernel in ((8, "warp-private"), (16, "candidates-major"), (64, "heads-major-pipelined")):
        splits = targets.sm90_num_splits(num_heads, 2048)
        assert targets.cxx_sm90_kernel_name(library, num_heads, 2048, splits) == kernel


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
    # below dispatch.CUDA_MIN_TOKENS: Pallas (docs/h200_results.md's T=1 rows)
    assert pick(1, 8) == pick(3, 16) == "pallas"
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
