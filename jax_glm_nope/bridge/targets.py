"""Load the bridge library, register its XLA FFI targets, and call them.

Each ``*_call`` function below is one ``jax.ffi.ffi_call`` with the operand order,
result buffers and attributes its C++ handler binds (``ffi/*.cu``). They take
already-validated, normalised arrays; nothing here checks user input.
"""

from __future__ import annotations

import ctypes
import functools
import pathlib

import jax
import jax.numpy as jnp
import numpy as np

from .. import layout
from . import build as build_mod

# XLA target name -> exported handler symbol (XLA_FFI_DEFINE_HANDLER_SYMBOL in ffi/).
GLM53_DECODE = "jax_glm_nope_glm53_decode"
GLM53_PREFILL = "jax_glm_nope_glm53_prefill"
WRITE_KV = "jax_glm_nope_write_kv"
DEQUANTIZE = "jax_glm_nope_dequantize"
TARGETS = {
    GLM53_DECODE: "JaxGlmNopeGlm53Decode",
    GLM53_PREFILL: "JaxGlmNopeGlm53Prefill",
    WRITE_KV: "JaxGlmNopeWriteKv",
    DEQUANTIZE: "JaxGlmNopeDequantize",
}

# Mirrors ffi/glm_common.h: FlashInfer's decode walks candidates in windows of 64.
CANDIDATE_WINDOW = 64
MAX_DECODE_TOKENS = 64
PREFILL_HEADS = (8, 16, 32, 64, 128)


def decode_scratch_heads(num_heads: int) -> int:
    """Rows of decode scratch per token: FlashInfer's ``decode_scratch_heads`` rule."""
    return 8 if num_heads == 8 else -(-num_heads // 16) * 16


def scratch_shapes(num_tokens: int, num_heads: int, num_candidates: int) -> tuple[tuple[int, ...], ...]:
    """Shapes of the decode target's scratch results ``(mid_out, mid_lse)``.

    ``mid_out`` bf16 ``[T, sh, ceil(K/64), 512]`` and ``mid_lse`` f32 ``[T, sh, ceil(K/64)]``
    with ``sh = 8`` if ``H == 8`` else ``H`` rounded up to 16; the C++ handler checks
    exactly these shapes (``ffi/glm_common.h``) and the tests compare the two rules.
    """
    splits = -(-num_candidates // CANDIDATE_WINDOW)
    heads = decode_scratch_heads(num_heads)
    return (num_tokens, heads, splits, layout.HEAD_DIM), (num_tokens, heads, splits)


@functools.cache
def _load(path: str) -> ctypes.CDLL:
    return ctypes.cdll.LoadLibrary(path)


@functools.cache
def _register(path: str) -> None:
    library = _load(path)
    for name, symbol in TARGETS.items():
        capsule = jax.ffi.pycapsule(getattr(library, symbol))
        jax.ffi.register_ffi_target(name, capsule, platform="CUDA")


def load_library(path: str | pathlib.Path | None = None) -> ctypes.CDLL:
    """Load (building on first use when ``path`` is None) and register the targets."""
    path = str(path or build_mod.library_path())
    _register(path)
    return _load(path)


def cxx_scratch_rule(library: ctypes.CDLL, num_heads: int, num_candidates: int) -> tuple[int, int]:
    """``(scratch_heads, splits)`` as the compiled C++ computes them (for tests)."""
    return (
        library.jax_glm_nope_decode_scratch_heads(num_heads),
        library.jax_glm_nope_decode_splits(num_candidates),
    )


def glm53_decode_call(q, pool, indices, topk_lens, sm_scale: float):
    """FlashInfer split-K decode: ``(out [T,H,512] bf16, lse [T,H] f32)``; T <= 64."""
    num_tokens, num_heads, _ = q.shape
    mid_out, mid_lse = scratch_shapes(num_tokens, num_heads, indices.shape[1])
    out, lse, _, _ = jax.ffi.ffi_call(
        GLM53_DECODE,
        (
            jax.ShapeDtypeStruct(q.shape, jnp.bfloat16),
            jax.ShapeDtypeStruct((num_tokens, num_heads), jnp.float32),
            jax.ShapeDtypeStruct(mid_out, jnp.bfloat16),
            jax.ShapeDtypeStruct(mid_lse, jnp.float32),
        ),
        vmap_method="sequential",
    )(q, pool, indices, topk_lens, sm_scale=np.float32(sm_scale))
    return out, lse


def glm53_prefill_call(q, pool, indices, topk_lens, sm_scale: float):
    """FlashInfer prefill: K a multiple of 64, H in ``PREFILL_HEADS``."""
    num_tokens, num_heads, _ = q.shape
    return jax.ffi.ffi_call(
        GLM53_PREFILL,
        (
            jax.ShapeDtypeStruct(q.shape, jnp.bfloat16),
            jax.ShapeDtypeStruct((num_tokens, num_heads), jnp.float32),
        ),
        vmap_method="sequential",
    )(q, pool, indices, topk_lens, sm_scale=np.float32(sm_scale))


def write_kv_call(pool2d, latent, slots):
    """Quantize ``latent`` rows into ``pool2d`` at ``slots``, in place (operand 0 aliases result 0)."""
    return jax.ffi.ffi_call(
        WRITE_KV,
        jax.ShapeDtypeStruct(pool2d.shape, jnp.uint8),
        input_output_aliases={0: 0},
        vmap_method="sequential",
    )(pool2d, latent, slots)


def dequantize_call(rows):
    """``rows [N, 528 | 656]`` uint8 -> ``[N, 512]`` float32."""
    return jax.ffi.ffi_call(
        DEQUANTIZE,
        jax.ShapeDtypeStruct((rows.shape[0], layout.HEAD_DIM), jnp.float32),
        vmap_method="sequential",
    )(rows)
