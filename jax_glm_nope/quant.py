"""Quantize latents into rows, read rows back, and migrate pools (SPEC 1 and 4).

Pure jnp; the byte positions come from :mod:`jax_glm_nope.layout`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from . import layout
from .layout import HEAD_DIM, NUM_TILES, TILE, RowFormat


def _exact_div(numerator: jax.Array, denominator: jax.Array) -> jax.Array:
    """IEEE fp32 division, as numpy and CUDA's ``/`` do.

    XLA's algebraic simplifier rewrites ``x / broadcast(d)`` into ``x * (1 / d)``,
    which rounds differently in about half of all cases; an optimization barrier on
    a full-shape divisor keeps the true division, so every implementation writes the
    same bytes.
    """
    return numerator / jax.lax.optimization_barrier(denominator)


def quantize_rows(latent: jax.Array, fmt: RowFormat) -> jax.Array:
    """``[T, 512]`` bf16/f32 -> ``[T, fmt.bytes_per_token]`` uint8. No validation."""
    x = latent.astype(jnp.float32).reshape(-1, NUM_TILES, TILE)
    amax = jnp.max(jnp.abs(x), axis=-1, keepdims=True)
    scale = _exact_div(amax, jnp.full_like(amax, layout.FP8_MAX))  # never a power of two
    zero_tile = scale == 0
    divisor = jnp.broadcast_to(jnp.where(zero_tile, 1.0, scale), x.shape)
    # The clip only guards the last ulp (e4m3fn has no inf; XLA turns an out-of-range
    # convert into NaN).
    scaled = jnp.where(zero_tile, 0.0, _exact_div(x, divisor))
    scaled = jnp.clip(scaled, -layout.FP8_MAX, layout.FP8_MAX)
    codes = jax.lax.bitcast_convert_type(scaled.astype(jnp.float8_e4m3fn), jnp.uint8)
    scale_bytes = jax.lax.bitcast_convert_type(scale[..., 0], jnp.uint8)  # [T, 4, 4] LE
    num_rows = x.shape[0]
    parts = [codes.reshape(num_rows, HEAD_DIM), scale_bytes.reshape(num_rows, -1)]
    if fmt.reserved_bytes:
        parts.append(jnp.zeros((num_rows, fmt.reserved_bytes), jnp.uint8))
    return jnp.concatenate(parts, axis=-1)


def dequantize_rows(rows: jax.Array) -> jax.Array:
    """``[..., row_bytes]`` uint8 -> ``[..., 512]`` float32. No validation."""
    fmt = layout.COMPACT  # every format shares the first 528 bytes
    codes = rows[..., fmt.codes_offset : fmt.codes_offset + HEAD_DIM]
    values = jax.lax.bitcast_convert_type(codes, jnp.float8_e4m3fn).astype(jnp.float32)
    scale_bytes = rows[..., fmt.scales_offset : fmt.scales_end]
    scales = jax.lax.bitcast_convert_type(
        scale_bytes.reshape(*rows.shape[:-1], NUM_TILES, layout.SCALE_BYTES), jnp.float32
    )
    values = values.reshape(*rows.shape[:-1], NUM_TILES, TILE) * scales[..., None]
    return values.reshape(*rows.shape[:-1], HEAD_DIM)


def repack_rows(pool: jax.Array, fmt: RowFormat) -> jax.Array:
    """Copy the first 528 bytes of every row into ``fmt`` rows; zero reserved bytes."""
    kept = pool[..., : layout.KERNEL_ROW_BYTES]
    if not fmt.reserved_bytes:
        return kept
    zeros = jnp.zeros((*pool.shape[:-1], fmt.reserved_bytes), jnp.uint8)
    return jnp.concatenate([kept, zeros], axis=-1)
