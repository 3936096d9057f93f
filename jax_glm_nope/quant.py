"""Quantize latents into rows, read rows back, and migrate pools (SPEC 1 and 4).

Pure jnp; the byte positions come from :mod:`jax_glm_nope.layout`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from . import layout
from .layout import HEAD_DIM, NUM_TILES, TILE, RowFormat

QUOTIENT_BITS = 26  # 24 mantissa bits, a round bit, and one more for ma < mb


def _div_rn(numerator: jax.Array, denominator: jax.Array) -> jax.Array:
    """Correctly rounded float32 ``numerator / denominator`` for ``numerator >= 0, denominator > 0``.

    XLA's ``/`` is not IEEE on every platform: the CPU simplifier turns ``x /
    broadcast(d)`` into ``x * (1 / d)`` and the GPU emits ``div.full.f32`` (1 ulp off
    in about a quarter of all cases). Quantized rows must be bit-identical everywhere
    (numpy, jnp on any platform, CUDA), so the quotient of the mantissas is formed by
    integer long division, which every backend computes exactly, and rounded to
    nearest even by hand. Operands or results outside the normal float32 range (zero,
    subnormals) take XLA's division; those never decide a code or a normal scale.
    """
    num_bits = jax.lax.bitcast_convert_type(numerator, jnp.uint32)
    den_bits = jax.lax.bitcast_convert_type(denominator, jnp.uint32)
    num_exp, den_exp = num_bits >> 23, den_bits >> 23
    implicit = jnp.uint32(1 << 23)
    den_man = (den_bits & jnp.uint32(0x7FFFFF)) | implicit
    remainder = (num_bits & jnp.uint32(0x7FFFFF)) | implicit
    quotient = jnp.zeros_like(remainder)
    for _ in range(QUOTIENT_BITS):  # quotient = floor(num_man / den_man * 2**25)
        take = remainder >= den_man
        quotient = (quotient << 1) | take.astype(jnp.uint32)
        remainder = jnp.where(take, remainder - den_man, remainder) << 1
    wide = quotient >= jnp.uint32(1 << (QUOTIENT_BITS - 1))  # num_man >= den_man
    shift = jnp.where(wide, jnp.uint32(2), jnp.uint32(1))
    mantissa = quotient >> shift
    round_bit = (quotient >> (shift - 1)) & 1
    sticky = ((quotient & ((jnp.uint32(1) << (shift - 1)) - 1)) != 0) | (remainder != 0)
    mantissa = mantissa + (round_bit & (sticky | (mantissa & 1) != 0).astype(jnp.uint32))
    carry = mantissa >> 24
    mantissa = jnp.where(carry != 0, mantissa >> 1, mantissa)
    exponent = (
        num_exp.astype(jnp.int32)
        - den_exp.astype(jnp.int32)
        + 126
        + wide.astype(jnp.int32)
        + carry.astype(jnp.int32)
    )
    exact = jax.lax.bitcast_convert_type(
        (exponent.astype(jnp.uint32) << 23) | (mantissa & jnp.uint32(0x7FFFFF)), jnp.float32
    )
    normal = (num_exp > 0) & (num_exp < 255) & (den_exp > 0) & (den_exp < 255)
    normal &= (exponent > 0) & (exponent < 255)
    return jnp.where(normal, exact, numerator / denominator)


def quantize_rows(latent: jax.Array, fmt: RowFormat) -> jax.Array:
    """``[T, 512]`` bf16/f32 -> ``[T, fmt.bytes_per_token]`` uint8. No validation."""
    x = latent.astype(jnp.float32).reshape(-1, NUM_TILES, TILE)
    amax = jnp.max(jnp.abs(x), axis=-1, keepdims=True)
    scale = _div_rn(amax, jnp.full_like(amax, layout.FP8_MAX))  # never a power of two
    zero_tile = scale == 0
    # The barrier keeps the scale's division out of the codes' division (XLA would
    # otherwise re-expand one inside every use of the other).
    divisor = jax.lax.optimization_barrier(jnp.broadcast_to(jnp.where(zero_tile, 1.0, scale), x.shape))
    # The clip only guards the last ulp (e4m3fn has no inf; XLA turns an out-of-range
    # convert into NaN). copysign keeps -0.0 as numpy does (code 0x80).
    scaled = jnp.where(zero_tile, 0.0, jnp.copysign(_div_rn(jnp.abs(x), divisor), x))
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
