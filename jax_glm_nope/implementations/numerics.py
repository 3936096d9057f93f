"""What the implementations' robust order of operations shares (docs/semantics.md):
plain jnp, usable in the reference and inside the Pallas kernel alike."""

from __future__ import annotations

import jax.numpy as jnp
from jax import lax

FLOAT32_MAX = float(jnp.finfo(jnp.float32).max)


def power_of_two_scale(peak):
    """``(2^f, 2^-f)`` with ``|x| <= peak`` mapped into ``[-1, 1)`` by ``x * 2^-f``, built
    from the exponent bits (exact, never a division), ``f`` clamped to ``[-126, 126]`` so
    both factors are normal floats: a subnormal or zero peak gives ``2^-126``, and nothing
    depends on how the hardware treats subnormals (GPUs flush them)."""
    exponent = (lax.bitcast_convert_type(peak.astype(jnp.float32), jnp.int32) >> 23) & 0xFF
    f = jnp.minimum(jnp.maximum(exponent - 126, -126), 126)
    above = lax.bitcast_convert_type((f + 127) << 23, jnp.float32)
    inverse = lax.bitcast_convert_type((127 - f) << 23, jnp.float32)
    return above, inverse
