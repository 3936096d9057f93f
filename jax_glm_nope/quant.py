"""Quantize latents into rows, read rows back, and migrate pools (docs/semantics.md).

Pure jnp; the byte positions come from :mod:`jax_glm_nope.layout`.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from . import layout
from .layout import HEAD_DIM, NUM_TILES, TILE, RowFormat

QUOTIENT_BITS = 26  # 24 mantissa bits, a round bit, and one more for ma < mb
SIGN = 0x80000000
MAGNITUDE = 0x7FFFFFFF
EXPONENT_ALL_ONES = 0xFF
IMPLICIT = 1 << 23
FRACTION = IMPLICIT - 1


def _f32_bits(x: jax.Array) -> jax.Array:
    return jax.lax.bitcast_convert_type(x, jnp.uint32)


def _bits_f32(bits: jax.Array) -> jax.Array:
    return jax.lax.bitcast_convert_type(bits, jnp.float32)


def _unpack(bits: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Magnitude bits -> ``(mantissa with the implicit bit at 2**23, int32 biased exponent)``.

    Subnormals (exponent field 0) are normalised by their leading zeros, so their
    exponent goes below 1; integer ops only, because XLA's CPU flushes float32
    subnormals to zero in float arithmetic.
    """
    field = (bits >> 23).astype(jnp.int32)
    fraction = bits & jnp.uint32(FRACTION)
    shift = jnp.maximum(jax.lax.clz(fraction).astype(jnp.int32) - 8, 0)  # 8 = 32 - 24 bits
    subnormal = field == 0
    mantissa = jnp.where(subnormal, fraction << shift.astype(jnp.uint32), fraction | jnp.uint32(IMPLICIT))
    exponent = jnp.where(subnormal, 1 - shift, field)
    return mantissa, exponent


def _div_rn_bits(num_bits: jax.Array, den_bits: jax.Array) -> jax.Array:
    """Bits of the correctly rounded float32 quotient of two non-negative float32s (as bits).

    XLA's ``/`` is not IEEE on every platform: the CPU simplifier turns ``x /
    broadcast(d)`` into ``x * (1 / d)``, the GPU emits ``div.full.f32`` (1 ulp off in
    about a quarter of all cases) and the CPU flushes subnormal operands and results
    to zero. Quantized rows must be bit-identical everywhere (numpy, jnp on any
    platform, CUDA), so the quotient of the mantissas is formed by integer long
    division, which every backend computes exactly, and rounded to nearest even by
    hand, subnormal operands and results included. A zero numerator gives 0; a zero,
    infinite or NaN operand otherwise takes XLA's division (garbage in, garbage out).
    """
    num_man, num_exp = _unpack(num_bits)
    den_man, den_exp = _unpack(den_bits)
    remainder, quotient = num_man, jnp.zeros_like(num_man)
    for _ in range(QUOTIENT_BITS):  # quotient = floor(num_man / den_man * 2**25)
        take = remainder >= den_man
        quotient = (quotient << 1) | take.astype(jnp.uint32)
        remainder = jnp.where(take, remainder - den_man, remainder) << 1
    wide = quotient >= jnp.uint32(1 << (QUOTIENT_BITS - 1))  # num_man >= den_man
    exponent = num_exp - den_exp + 126 + wide.astype(jnp.int32)  # biased, of a normal result
    # Drop to 24 significant bits, and further for a subnormal result (exponent < 1):
    # its unit is 2**-149, so it keeps 1 - exponent bits fewer. Past 27 nothing is
    # left and the round bit is 0 (quotient < 2**26): the result rounds to zero.
    shift = jnp.minimum(1 + wide.astype(jnp.int32) + jnp.maximum(1 - exponent, 0), 27).astype(jnp.uint32)
    mantissa = quotient >> shift
    round_bit = (quotient >> (shift - 1)) & 1
    sticky = ((quotient & ((jnp.uint32(1) << (shift - 1)) - 1)) != 0) | (remainder != 0)
    mantissa = mantissa + (round_bit & (sticky | (mantissa & 1) != 0).astype(jnp.uint32))
    # A normal mantissa carries its implicit bit: adding it to (exponent - 1) << 23
    # gives the exponent field, and a rounding carry to 2**24 bumps the exponent. A
    # subnormal one is the whole word; rounding up to 2**23 makes the smallest normal.
    base = jnp.where(exponent >= 1, (exponent - 1).astype(jnp.uint32) << 23, jnp.uint32(0))
    exact = base + mantissa
    exact = jnp.where(
        exponent >= EXPONENT_ALL_ONES, jnp.uint32(EXPONENT_ALL_ONES << 23), exact
    )  # overflow: inf
    num_field, den_field = num_bits >> 23, den_bits >> 23
    finite = (num_field < EXPONENT_ALL_ONES) & (den_field < EXPONENT_ALL_ONES) & (den_bits != 0)
    exact = jnp.where(num_bits == 0, jnp.uint32(0), exact)
    fallback = _f32_bits(_bits_f32(num_bits) / _bits_f32(den_bits))
    return jnp.where(finite | (num_bits == 0), exact, fallback)


def _div_rn(numerator: jax.Array, denominator: jax.Array) -> jax.Array:
    """Correctly rounded float32 ``numerator / denominator`` for ``numerator >= 0, denominator > 0``."""
    return _bits_f32(_div_rn_bits(_f32_bits(numerator), _f32_bits(denominator)))


# Jitted as a whole: called eagerly, ~800 small integer ops would each dispatch on
# their own (seconds per call); one compile per shape instead.
@functools.partial(jax.jit, static_argnames="fmt")
def quantize_rows(latent: jax.Array, fmt: RowFormat) -> jax.Array:
    """``[T, 512]`` bf16/f32 -> ``[T, fmt.bytes_per_token]`` uint8. No validation.

    Works on float32 bit patterns (abs, max, select, clip as integer ops): on the
    CPU, XLA flushes float32 subnormals to zero in float arithmetic, and a tile whose
    amax is below 448 * 2**-126 has a subnormal scale that numpy keeps.
    """
    num_rows = latent.shape[0]  # explicit: reshape(-1, ...) of zero rows cannot infer the -1
    bits = _f32_bits(latent.astype(jnp.float32)).reshape(num_rows, NUM_TILES, TILE)
    magnitude = bits & jnp.uint32(MAGNITUDE)
    # Non-negative float32s order like their bits (NaN above inf, like a float max).
    amax = jnp.max(magnitude, axis=-1, keepdims=True)
    scale = _div_rn_bits(
        amax, jnp.full_like(amax, _f32_bits(jnp.float32(layout.FP8_MAX)))
    )  # never a power of two
    zero_tile = scale == 0
    # The barrier keeps the scale's division out of the codes' division (XLA would
    # otherwise re-expand one inside every use of the other).
    one = _f32_bits(jnp.float32(1.0))
    divisor = jax.lax.optimization_barrier(jnp.broadcast_to(jnp.where(zero_tile, one, scale), bits.shape))
    # The clip only guards the last ulp (e4m3fn has no inf; XLA turns an out-of-range
    # convert into NaN); NaN stays NaN. The sign goes back on last, so -0.0 stays code
    # 0x80 as in numpy (except in a zero tile, which numpy leaves all 0x00).
    quotient = jnp.where(zero_tile, jnp.uint32(0), _div_rn_bits(magnitude, divisor))
    limit = _f32_bits(jnp.float32(layout.FP8_MAX))
    quotient = jnp.where(
        quotient > jnp.uint32(EXPONENT_ALL_ONES << 23), quotient, jnp.minimum(quotient, limit)
    )
    sign = jnp.where(zero_tile, jnp.uint32(0), bits & jnp.uint32(SIGN))  # a zero tile is all code 0x00
    scaled = _bits_f32(quotient | sign)
    codes = jax.lax.bitcast_convert_type(scaled.astype(jnp.float8_e4m3fn), jnp.uint8)
    scale_bytes = jax.lax.bitcast_convert_type(scale[..., 0], jnp.uint8)  # [T, 4, 4] LE
    parts = [
        codes.reshape(num_rows, HEAD_DIM),
        scale_bytes.reshape(num_rows, NUM_TILES * layout.SCALE_BYTES),
    ]
    if fmt.reserved_bytes:
        parts.append(jnp.zeros((num_rows, fmt.reserved_bytes), jnp.uint8))
    return jnp.concatenate(parts, axis=-1)


def unpack_rows(rows: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``[..., row_bytes]`` uint8 -> ``(codes [..., 4, 128], scales [..., 4])`` float32: the
    e4m3 codes as exact float32 values and the tiles' scales. No validation."""
    fmt = layout.COMPACT  # every format shares the first 528 bytes
    codes = rows[..., fmt.codes_offset : fmt.codes_offset + HEAD_DIM]
    codes = jax.lax.bitcast_convert_type(codes, jnp.float8_e4m3fn).astype(jnp.float32)
    scale_bytes = rows[..., fmt.scales_offset : fmt.scales_end]
    scales = jax.lax.bitcast_convert_type(
        scale_bytes.reshape(*rows.shape[:-1], NUM_TILES, layout.SCALE_BYTES), jnp.float32
    )
    return codes.reshape(*rows.shape[:-1], NUM_TILES, TILE), scales


def dequantize_rows(rows: jax.Array) -> jax.Array:
    """``[..., row_bytes]`` uint8 -> ``[..., 512]`` float32. No validation."""
    codes, scales = unpack_rows(rows)
    return (codes * scales[..., None]).reshape(*rows.shape[:-1], HEAD_DIM)


def repack_rows(pool: jax.Array, fmt: RowFormat) -> jax.Array:
    """Copy the first 528 bytes of every row into ``fmt`` rows; zero reserved bytes."""
    kept = pool[..., : layout.KERNEL_ROW_BYTES]
    if not fmt.reserved_bytes:
        return kept
    zeros = jnp.zeros((*pool.shape[:-1], fmt.reserved_bytes), jnp.uint8)
    return jnp.concatenate([kept, zeros], axis=-1)
