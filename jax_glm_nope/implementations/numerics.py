"""What the implementations' robust order of operations shares (docs/semantics.md):
plain jnp, usable in the reference and inside the Pallas kernel alike.

Every rescaling is by a power of two built from exponent bits and applied as a
multiply by normal floats: exact, never ``1 / x`` of a value that may be subnormal,
and independent of whether the hardware flushes subnormals (GPUs do, and so does
XLA's CPU).
"""

from __future__ import annotations

import math

import jax.numpy as jnp
from jax import lax

FLOAT32_MAX = float(jnp.finfo(jnp.float32).max)
MIN_EXPONENT = -126  # 2^-126: the smallest normal float32
MAX_EXPONENT = 127  # 2^127: the largest power of two in float32


def exponent_field(x):
    """The biased exponent field of float32 ``x`` as int32 (0 for zero and subnormals,
    255 for inf and NaN)."""
    return (lax.bitcast_convert_type(x.astype(jnp.float32), jnp.int32) >> 23) & 0xFF


def exp2i(e):
    """``2^e`` as float32 for int32 ``e``, clamped to the normal range ``[2^-126, 2^127]``."""
    e = jnp.minimum(jnp.maximum(e, MIN_EXPONENT), MAX_EXPONENT)
    return lax.bitcast_convert_type((e + 127) << 23, jnp.float32)


def power_of_two_exponent(peak):
    """``f`` (int32) such that ``|x| <= peak`` maps into ``[-1, 1)`` as ``x * 2^-f``, clamped
    to ``[-126, 126]`` so that ``2^f`` and ``2^-f`` are normal floats: a zero or subnormal
    peak gives ``-126``, a peak of ``2^126`` or more ``126`` (then ``|x * 2^-f| < 4``)."""
    return jnp.minimum(jnp.maximum(exponent_field(peak) - 126, MIN_EXPONENT), 126)


def power_of_two_scale(peak):
    """``(2^f, 2^-f)`` for ``f = power_of_two_exponent(peak)``."""
    f = power_of_two_exponent(peak)
    return exp2i(f), exp2i(-f)


def split_float(value: float) -> tuple[float, int]:
    """A Python float as ``(m, e)`` with ``value == m * 2^e`` and ``1 <= |m| < 2`` (``(0, 0)``
    for zero); ``e`` is clamped to ``[-400, 400]``, past which a float32 score is 0 or
    saturated whatever else multiplies it."""
    if value == 0:
        return 0.0, 0
    mantissa, exponent = math.frexp(value)  # 0.5 <= |mantissa| < 1
    exponent = exponent - 1
    return mantissa * 2.0, min(max(exponent, -400), 400)


def scale_by_power_of_two(x, e, steps: int = 2):
    """``x * 2^e`` for int32 ``e`` as ``steps`` multiplies by normal powers of two.

    Each factor has the sign of ``e``, so every intermediate lies between ``|x|`` and the
    result: nothing overflows or underflows before the result does. Exact for any
    ``|e| <= steps * 126``; beyond, a non-zero ``x`` saturates to ``+-inf`` (or 0), as the
    exact result of a float32 ``x`` would.
    """
    for _ in range(steps):
        part = jnp.minimum(jnp.maximum(e, MIN_EXPONENT), MAX_EXPONENT)
        x = x * exp2i(part)
        e = e - part
    return x
