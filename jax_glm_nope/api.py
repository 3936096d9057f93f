"""The public API: normalise arguments, validate at the boundary, dispatch."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from . import dispatch, quant, validate
from .layout import RowFormat

WRITE_BACKENDS = ("auto", "xla", "ffi")


def sparse_mla(
    q: jax.Array,
    pool: jax.Array,
    indices: jax.Array,
    sm_scale: float,
    topk_lens: jax.Array | None = None,
    *,
    backend: str = "auto",
    interpret: bool = False,
) -> tuple[jax.Array, jax.Array]:
    """Sparse multi-head latent attention over cached FP8 rows (SPEC 3).

    Args:
      q: ``[T, H, 512]`` bfloat16 absorbed queries, ``0 <= T <= 65536``, ``1 <= H <= 128``.
      pool: uint8 ``[num_slots, row_bytes]`` or ``[num_pages, page_size, row_bytes]``,
        rows of 528 (COMPACT) or 656 (PADDED) bytes; slot = page * page_size + offset.
      indices: ``[T, K]`` int32 slot ids. Negative or ``>= num_slots`` entries are holes:
        never read, never an error.
      sm_scale: softmax scale applied to ``q . k``.
      topk_lens: optional ``[T]`` int32; candidate ``j`` counts only if ``j < topk_lens[t]``.
      backend: ``"auto"``, ``"flashinfer"``, ``"pallas"`` or ``"reference"``.
      interpret: run the Pallas kernel in the interpreter (any platform; for tests).

    Returns:
      ``out [T, H, 512]`` bfloat16, the softmax-weighted sum of the dequantized rows, and
      ``lse [T, H]`` float32, the natural-log sum of exponentials of the scores. A token
      with no active candidate gets ``out = 0`` and ``lse = -inf``.
    """
    num_tokens, _ = validate.check_q(q)
    num_slots, fmt = validate.check_pool(pool)
    num_candidates = validate.check_indices(indices, num_tokens)
    sm_scale = validate.check_sm_scale(sm_scale)
    if topk_lens is None:
        topk_lens = jnp.full((num_tokens,), num_candidates, jnp.int32)
    else:
        validate.check_topk_lens(topk_lens, num_tokens)
    name = dispatch.choose_backend(backend, interpret=interpret)
    pool = jnp.reshape(pool, (num_slots, fmt.bytes_per_token))  # free: a bitcast in XLA
    impl = dispatch.implementation(name)
    args = (jnp.asarray(q), pool, jnp.asarray(indices), jnp.asarray(topk_lens), sm_scale)
    if name == "pallas":
        return impl(*args, interpret=interpret)
    return impl(*args)


def quantize(latent: jax.Array, fmt: RowFormat | int = RowFormat.COMPACT) -> jax.Array:
    """``latent [T, 512]`` (bf16/f16/f32) -> ``[T, fmt.bytes_per_token]`` uint8 rows (SPEC 1)."""
    validate.check_latent(latent)
    fmt = validate.check_format(fmt)
    return quant.quantize_rows(jnp.asarray(latent), fmt)


def dequantize(rows: jax.Array) -> jax.Array:
    """uint8 rows ``[..., 528 | 656]`` -> float32 values ``[..., 512]``."""
    validate.check_rows(rows)
    return quant.dequantize_rows(jnp.asarray(rows))


def repack(pool: jax.Array, fmt: RowFormat | int) -> jax.Array:
    """A pool (2-D or 3-D) with rows rewritten in ``fmt``: 656 <-> 528 bytes, lossless.

    The first 528 bytes of every row are copied bit for bit (no requantization);
    PADDED rows get zero reserved bytes.
    """
    validate.check_pool(pool)
    fmt = validate.check_format(fmt)
    return quant.repack_rows(jnp.asarray(pool), fmt)


def _write_backend(requested: str) -> str:
    if requested not in WRITE_BACKENDS:
        raise ValueError(f"backend: expected one of {list(WRITE_BACKENDS)}, got {requested!r}")
    if requested == "xla":
        return "xla"
    platform = dispatch.current_platform()
    bridge = dispatch.backend_module("flashinfer")
    reason = (
        "the FFI bridge is not built yet in this version of jax_glm_nope"
        if bridge is None
        # "auto" never starts a compile: it takes the kernel only when it is built.
        else bridge.write_kv_unavailable_reason(platform, allow_build=requested == "ffi")
    )
    if requested == "ffi" and reason is not None:
        raise ValueError(f"backend='ffi' cannot run on platform {platform!r}: {reason}")
    return "ffi" if reason is None else "xla"


def write_kv(pool: jax.Array, latent: jax.Array, slots: jax.Array, *, backend: str = "auto") -> jax.Array:
    """Quantize ``latent [T, 512]`` and store row ``t`` at slot ``slots[t]`` (SPEC 4).

    Negative and out-of-range slots are dropped. Returns the updated pool, in the
    shape it came in; jit with the pool donated and the update happens in place.
    When several rows name one slot, one of them is stored (which one is unspecified).
    ``backend``: ``"ffi"`` (the CUDA kernel of the FFI bridge), ``"xla"`` (a scatter)
    or ``"auto"`` (``"ffi"`` on CUDA when the bridge library is available).
    """
    num_slots, fmt = validate.check_pool(pool)
    num_tokens = validate.check_latent(latent)
    validate.check_slots(slots, num_tokens)
    name = _write_backend(backend)
    shape = pool.shape
    pool2d = jnp.reshape(pool, (num_slots, fmt.bytes_per_token))
    latent, slots = jnp.asarray(latent), jnp.asarray(slots)
    if name == "ffi":
        pool2d = dispatch.backend_module("flashinfer").write_kv_ffi(pool2d, latent, slots)
    else:
        rows = quant.quantize_rows(latent, fmt)
        # jnp wraps negative indices; send every dropped slot past the end instead.
        target = jnp.where((slots >= 0) & (slots < num_slots), slots, num_slots)
        pool2d = pool2d.at[target].set(rows, mode="drop")
    return jnp.reshape(pool2d, shape)
