"""The FFI bridge without a GPU (docs/ffi.md): the library compiles (sm_120a and sm_90a),
loads, registers its targets, and the HLO lowered for CUDA carries the right custom
calls, attributes, result shapes, aliases and scratch shapes.

Skipped only when nvcc is absent. FlashInfer's headers must be installed
(``pip install flashinfer-python==0.7.4 --no-deps``); the build takes 2-3 minutes
on two cores and is shared by the whole session.
"""

from __future__ import annotations

import os
import pathlib
import re
import shutil

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jax_glm_nope import bridge, layout
from jax_glm_nope.bridge import build, targets

TEST_ARCHS = ("sm_90a", "sm_120a")


def _nvcc_missing() -> bool:
    try:
        build.find_nvcc()
    except build.BuildError:
        return True
    return False


pytestmark = pytest.mark.skipif(_nvcc_missing(), reason="nvcc not found (install the CUDA toolkit)")


@pytest.fixture(scope="session")
def library_path(tmp_path_factory):
    cache = os.environ.get("JAX_GLM_NOPE_CACHE_DIR") or str(tmp_path_factory.mktemp("ffi_cache"))
    previous = os.environ.get("JAX_GLM_NOPE_CACHE_DIR")
    os.environ["JAX_GLM_NOPE_CACHE_DIR"] = cache
    try:
        path = build.build(TEST_ARCHS, glm=True)
    finally:
        if previous is None:
            del os.environ["JAX_GLM_NOPE_CACHE_DIR"]
    return path


@pytest.fixture(scope="session")
def library(library_path):
    """Loaded and registered; sparse_mla_flashinfer & co. find it through the env var."""
    previous = os.environ.get("JAX_GLM_NOPE_FFI_LIBRARY")
    os.environ["JAX_GLM_NOPE_FFI_LIBRARY"] = str(library_path)
    yield targets.load_library(library_path)
    if previous is None:
        del os.environ["JAX_GLM_NOPE_FFI_LIBRARY"]
    else:
        os.environ["JAX_GLM_NOPE_FFI_LIBRARY"] = previous


def lowered_text(fn, *args) -> str:
    return jax.jit(fn).trace(*args).lower(lowering_platforms=("cuda",)).as_text()


def custom_calls(text: str) -> list[str]:
    return [line for line in text.splitlines() if "stablehlo.custom_call" in line]


def spec(shape, dtype):
    return jax.ShapeDtypeStruct(shape, dtype)


def attention_specs(num_tokens, num_heads, num_candidates, row_bytes=528, num_slots=4096):
    return (
        spec((num_tokens, num_heads, 512), jnp.bfloat16),
        spec((num_slots, row_bytes), jnp.uint8),
        spec((num_tokens, num_candidates), jnp.int32),
        spec((num_tokens,), jnp.int32),
    )


def tensor(shape, dtype: str) -> str:
    return "tensor<" + "x".join(str(d) for d in shape) + "x" + dtype + ">"


# ---------------------------------------------------------------- the library itself


def test_library_holds_every_handler_and_the_scratch_rule(library, library_path):
    assert library_path.name == build.LIBRARY_NAME and library_path.stat().st_size > 1_000_000
    for symbol in targets.TARGETS.values():
        assert getattr(library, symbol) is not None
    assert targets.cxx_scratch_rule(library, 8, 2051) == (8, 33)


def test_build_is_cached_and_keyed(library_path):
    before = library_path.stat().st_mtime_ns
    os.environ["JAX_GLM_NOPE_CACHE_DIR"] = str(library_path.parent.parent)
    try:
        assert build.build(TEST_ARCHS, glm=True) == library_path  # a cache hit, not a rebuild
        key = build.build_key(TEST_ARCHS, True)
        assert library_path.parent.name == key
        assert build.build_key(("sm_90a",), False) != key
        assert build.build_key(("sm_120a", "sm_90a"), True) != key  # the arch list is part of it
    finally:
        del os.environ["JAX_GLM_NOPE_CACHE_DIR"]
    assert library_path.stat().st_mtime_ns == before


@pytest.mark.parametrize("num_candidates", [1, 63, 64, 65, 2048, 2051, 2112, 2176])
def test_python_scratch_rule_matches_cxx(library, num_candidates):
    for num_heads in range(1, 129):
        _, mid_lse = bridge.scratch_shapes(3, num_heads, num_candidates)
        assert mid_lse[1:] == targets.cxx_scratch_rule(library, num_heads, num_candidates)


# ---------------------------------------------------------------- lowered HLO


@pytest.mark.parametrize("num_candidates", [2051, 2112, 2176])
@pytest.mark.parametrize("num_heads", [8, 16, 24, 32, 64, 128])
def test_decode_custom_call(library, num_heads, num_candidates):
    fn = lambda q, p, i, n: bridge.sparse_mla_flashinfer(q, p, i, n, 0.0625)  # noqa: E731
    calls = custom_calls(lowered_text(fn, *attention_specs(5, num_heads, num_candidates)))
    assert len(calls) == 1 and "@jax_glm_nope_glm53_decode(" in calls[0]
    call = calls[0]
    assert "sm_scale = 6.250000e-02 : f32" in call
    assert "api_version" not in call or "api_version = 4" in call
    scratch_heads = 8 if num_heads == 8 else -(-num_heads // 16) * 16
    splits = -(-num_candidates // 64)
    assert bridge.scratch_shapes(5, num_heads, num_candidates) == (
        (5, scratch_heads, splits, 512),
        (5, scratch_heads, splits),
    )
    results = call.split("->")[-1]
    assert results.strip().startswith("(" + tensor((5, num_heads, 512), "bf16"))
    assert tensor((5, num_heads), "f32") in results
    assert tensor((5, scratch_heads, splits, 512), "bf16") in results
    assert tensor((5, scratch_heads, splits), "f32") in results
    operands = call.split("->")[0].split(":")[-1]
    assert tensor((5, num_candidates), "i32") in operands  # decode takes K as it is


@pytest.mark.parametrize(
    ("num_heads", "kernel_heads"), [(8, 8), (16, 16), (24, 32), (32, 32), (64, 64), (100, 128), (128, 128)]
)
@pytest.mark.parametrize(("num_candidates", "padded"), [(2051, 2112), (2112, 2112), (2176, 2176)])
def test_prefill_custom_call(library, num_heads, kernel_heads, num_candidates, padded):
    fn = lambda q, p, i, n: bridge.sparse_mla_flashinfer(q, p, i, n, 0.125)  # noqa: E731
    text = lowered_text(fn, *attention_specs(65, num_heads, num_candidates, row_bytes=656))
    calls = custom_calls(text)
    assert len(calls) == 1 and "@jax_glm_nope_glm53_prefill(" in calls[0]
    operands, results = calls[0].split("->")
    assert "sm_scale = 1.250000e-01 : f32" in operands
    assert tensor((65, kernel_heads, 512), "bf16") in operands
    assert tensor((65, padded), "i32") in operands and tensor((4096, 656), "ui8") in operands
    assert (
        results.strip()
        == "(" + tensor((65, kernel_heads, 512), "bf16") + ", " + tensor((65, kernel_heads), "f32") + ")"
    )
    assert bridge.plan(65, num_heads, num_candidates)["heads"] == kernel_heads
    # The public result is the caller's shape again.
    out, lse = jax.eval_shape(fn, *attention_specs(65, num_heads, num_candidates, row_bytes=656))
    assert out.shape == (65, num_heads, 512) and lse.shape == (65, num_heads)


def test_decode_prefill_boundary_is_64_tokens(library):
    fn = lambda q, p, i, n: bridge.sparse_mla_flashinfer(q, p, i, n, 0.1)  # noqa: E731
    assert "glm53_decode" in custom_calls(lowered_text(fn, *attention_specs(64, 8, 2051)))[0]
    assert "glm53_prefill" in custom_calls(lowered_text(fn, *attention_specs(65, 8, 2051)))[0]


def test_empty_batch_lowers_without_a_call(library):
    fn = lambda q, p, i, n: bridge.sparse_mla_flashinfer(q, p, i, n, 0.1)  # noqa: E731
    assert custom_calls(lowered_text(fn, *attention_specs(0, 8, 2051))) == []


@pytest.mark.parametrize("fmt", layout.FORMATS, ids=lambda f: f.name)
@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float32, jnp.float16])
def test_write_kv_custom_call_aliases_the_pool(library, fmt, dtype):
    pool = spec((1000, fmt.bytes_per_token), jnp.uint8)
    args = (pool, spec((7, 512), dtype), spec((7,), jnp.int32))
    lowered = jax.jit(bridge.write_kv_ffi, donate_argnums=0).trace(*args).lower(lowering_platforms=("cuda",))
    text = lowered.as_text()
    calls = custom_calls(text)
    assert len(calls) == 1 and "@jax_glm_nope_write_kv(" in calls[0]
    assert re.search(
        r"output_operand_aliases = \[#stablehlo.output_operand_alias<output_tuple_indices = \[\], "
        r"operand_index = 0,",
        calls[0],
    )
    short = {jnp.bfloat16: "bf16", jnp.float32: "f32", jnp.float16: "f16"}[dtype]
    assert tensor((7, 512), short) in calls[0]
    assert calls[0].rstrip().endswith("-> " + tensor((1000, fmt.bytes_per_token), "ui8"))
    main = next(line for line in text.splitlines() if "func.func public @main" in line)
    assert "tf.aliasing_output = 0" in main  # the donated pool is the result buffer


def test_dequantize_custom_call(library):
    text = lowered_text(bridge.dequantize_ffi, spec((33, 656), jnp.uint8))
    (call,) = custom_calls(text)
    assert "@jax_glm_nope_dequantize(" in call and call.rstrip().endswith("-> " + tensor((33, 512), "f32"))


def test_attention_under_vmap_lowers(library):
    fn = lambda q, p, i, n: bridge.sparse_mla_flashinfer(q, p, i, n, 0.1)  # noqa: E731
    specs = attention_specs(4, 16, 2051)
    batched = [spec((3, *s.shape), s.dtype) for s in specs]
    out, lse = jax.eval_shape(jax.vmap(fn), *batched)
    assert out.shape == (3, 4, 16, 512) and lse.shape == (3, 4, 16)
    assert "glm53_decode" in lowered_text(jax.vmap(fn), *batched)


def test_last_writer_only_keeps_one_row_per_slot():
    from jax_glm_nope.bridge.kv import _last_writer_only

    slots = jnp.asarray([5, 3, 5, -1, 9, 3, 10, 5], jnp.int32)
    got = np.asarray(_last_writer_only(slots, 10))
    np.testing.assert_array_equal(got, [-1, -1, -1, -1, 9, 3, -1, 5])


# ---------------------------------------------------------------- errors that name the fix


def test_unavailable_reasons_on_cpu():
    assert "platform 'cpu'" in bridge.unavailable_reason("cpu")
    assert "platform 'cpu'" in bridge.write_kv_unavailable_reason("cpu")


def test_missing_nvcc_names_the_fix(monkeypatch):
    monkeypatch.setenv("JAX_GLM_NOPE_NVCC", "/nonexistent/nvcc")
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.setattr(build.shutil, "which", lambda name: None)
    monkeypatch.setattr(build, "DEFAULT_NVCC", "/nonexistent/cuda/bin/nvcc")
    with pytest.raises(build.BuildError, match="needs nvcc.*JAX_GLM_NOPE_NVCC"):
        build.find_nvcc()
    monkeypatch.delenv("JAX_GLM_NOPE_FFI_LIBRARY", raising=False)
    assert "needs nvcc" in bridge.library_unavailable_reason()


def test_missing_flashinfer_names_the_fix(monkeypatch, tmp_path):
    monkeypatch.setenv("JAX_GLM_NOPE_FLASHINFER_DATA", str(tmp_path))
    with pytest.raises(build.BuildError, match=r"flashinfer-python==0\.7\.4"):
        build.find_flashinfer_data()
    monkeypatch.delenv("JAX_GLM_NOPE_FFI_LIBRARY", raising=False)
    assert "flashinfer-python==0.7.4" in bridge.library_unavailable_reason(need_glm=True)


def test_other_flashinfer_headers_are_refused(tmp_path):
    real = build.find_flashinfer_data()
    copy = tmp_path / "data"
    shutil.copytree(real / "include" / "flashinfer", copy / "include" / "flashinfer")
    version_h = pathlib.Path("cccl/libcudacxx/include/cuda/std/__cccl/version.h")
    (copy / version_h).parent.mkdir(parents=True)
    shutil.copy(real / version_h, copy / version_h)
    assert build.check_flashinfer_headers(copy) == build.FLASHINFER_HEADER_SHA256
    header = copy / "include/flashinfer/attention/sparse_mla_sm120/execution/merge.cuh"
    header.write_text(header.read_text() + "\n// a different FlashInfer\n")
    with pytest.raises(build.BuildError, match=r"FlashInfer 0\.7\.4.*pip install flashinfer-python==0\.7\.4"):
        build.check_flashinfer_headers(copy)


def test_layout_header_must_agree_with_layout_py(tmp_path):
    sources = build.ffi_source_dir()
    build._check_layout_header(sources)
    shutil.copy(sources / "row_layout.h", tmp_path / "row_layout.h")
    header = tmp_path / "row_layout.h"
    header.write_text(header.read_text().replace("kScalesOffset = 512", "kScalesOffset = 520"))
    with pytest.raises(build.BuildError, match="kScalesOffset"):
        build._check_layout_header(tmp_path)


def test_bad_arch_names_are_value_errors():
    with pytest.raises(ValueError, match="archs"):
        build.build(("hopper",))
    with pytest.raises(ValueError, match="sm_120a or sm_121a"):
        build.build(("sm_90a",), glm=True)
