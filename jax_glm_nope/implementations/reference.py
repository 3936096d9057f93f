"""The ``reference`` implementation: sparse MLA in plain jnp.

Float32 math at HIGHEST precision, chunked over tokens with ``lax.map`` so the
gathered rows of a chunk stay under ``CHUNK_BYTES`` whatever T is (T=4096 x K=2176
on a CPU gathers 4.6 GB of dequantized values in all, ~64 MB at a time).
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from ..candidates import active_candidates, lengths
from ..layout import HEAD_DIM, NUM_TILES, TILE
from ..quant import unpack_rows
from .numerics import FLOAT32_MAX, exp2i, power_of_two_exponent, scale_by_power_of_two, split_float

LOG2E = math.log2(math.e)

CHUNK_BYTES = 64 << 20  # dequantized f32 candidates held at once


def tokens_per_chunk(num_tokens: int, num_candidates: int, num_heads: int = 1) -> int:
    # f32 codes of the candidates, plus the per-tile partial scores [H, K, 4]
    per_token = num_candidates * (HEAD_DIM + 16 * num_heads) * 4
    return max(1, min(num_tokens, CHUNK_BYTES // per_token))


def _attend_chunk(q, pool, indices, topk_lens, sm_scale):
    """``q [c, H, 512]`` f32 over ``indices [c, K]`` -> ``(out [c, H, 512] f32, lse [c, H])``.

    The robust order of operations every implementation follows (docs/semantics.md):
    queries scaled by a power of two into [-1, 1]; each row's scales scaled by the power
    of two above its largest, so no per-tile partial score can overflow; the score
    ``raw * 2^(row + query exponents) * sm_scale`` applied by exact power-of-two steps
    (+inf where it overflows, the largest score then) and clamped below at
    -FLOAT32_MAX; the values weighted in the same normalised units and scaled back once;
    a non-finite referenced input marks its head NaN.
    """
    hi = jax.lax.Precision.HIGHEST
    active = active_candidates(indices, topk_lens, pool.shape[0])
    # Inactive rows may hold NaN (slot 0 above all): select, never multiply, them away.
    rows = jnp.where(active[..., None], pool[jnp.where(active, indices, 0)], 0)
    codes, scales = unpack_rows(rows)  # [c, K, 4, 128], [c, K, 4]
    bad_row = active & (jnp.any(jnp.isnan(codes), axis=(2, 3)) | jnp.any(~jnp.isfinite(scales), axis=2))
    bad_q = jnp.any(~jnp.isfinite(q), axis=2)  # [c, H]
    q_peak = jnp.max(jnp.where(jnp.isfinite(q), jnp.abs(q), 0.0), axis=2)
    q_exponent = power_of_two_exponent(q_peak)  # [c, H]
    q_unit = jnp.where(jnp.isfinite(q), q, 0.0) * exp2i(-q_exponent)[..., None]
    q_unit = q_unit.reshape(*q.shape[:2], NUM_TILES, TILE)
    safe_codes = jnp.where(jnp.isnan(codes), 0.0, codes)
    safe_scales = jnp.where(jnp.isfinite(scales), scales, 0.0)
    # Each row's scales in units of the power of two above its largest: |unit| < 4, so
    # |partial * unit| < 2^21 and the sum of the four tiles is exact-range float32.
    row_exponent = power_of_two_exponent(jnp.max(jnp.abs(safe_scales), axis=2))  # [c, K]
    unit_scales = safe_scales * exp2i(-row_exponent)[..., None]
    partial = jnp.einsum("chtd,cktd->chkt", q_unit, safe_codes, precision=hi)  # |.| <= 4 * 128 * 448
    raw = jnp.sum(partial * unit_scales[:, None], axis=-1)
    # score = raw * 2^(row + query exponent) * sm_scale, sm_scale = m * 2^e: the powers of two
    # are applied in exact steps (overflow to +-inf only where the true score overflows;
    # sm_scale = 0 makes every score 0).
    mantissa, exponent = split_float(sm_scale)
    total_exponent = row_exponent[:, None, :] + q_exponent[..., None] + exponent
    scores = scale_by_power_of_two(raw * jnp.float32(mantissa), total_exponent, steps=3)
    scores = jnp.maximum(scores, -FLOAT32_MAX)  # +inf stays: the true score overflows float32
    scores = jnp.where(active[:, None, :], scores, -jnp.inf)
    row_max = jnp.max(scores, axis=-1, keepdims=True)
    safe_max = jnp.where(row_max == -jnp.inf, 0.0, row_max)
    top = active[:, None, :] & (scores == row_max)  # exp(0) = 1, also for +inf == +inf
    gap = jnp.where(top, 0.0, scores - safe_max)  # <= 0, -inf for inactive candidates
    probs = jnp.exp(gap)
    total = jnp.sum(probs, axis=-1)
    # The values: weight_j * scale_j * code_j in units of 2^G per head, G the power of two
    # above the largest weight_j * 2^row_j (taken in the exponent, so neither a tiny weight
    # nor a tiny row underflows first), the weights divided by the total before they
    # multiply anything: (w * unit) * code never overflows, and the result is scaled back
    # by 2^G once.
    log2_weight = gap * LOG2E + row_exponent[:, None, :]
    head_exponent = jnp.ceil(jnp.max(jnp.where(active[:, None, :], log2_weight, -jnp.inf), axis=-1))
    head_exponent = jnp.where(total > 0, head_exponent, 0.0).astype(jnp.int32)  # [c, H]
    weights = jnp.exp2(log2_weight - head_exponent[..., None]) / jnp.where(total > 0, total, 1.0)[..., None]
    weights = jnp.where(active[:, None, :], weights, 0.0)
    out = jnp.einsum("chkt,cktd->chtd", weights[..., None] * unit_scales[:, None], safe_codes, precision=hi)
    out = scale_by_power_of_two(out.reshape(*q.shape[:2], HEAD_DIM), head_exponent[..., None], steps=3)
    lse = jnp.where(total > 0, row_max[..., 0] + jnp.log(jnp.where(total > 0, total, 1.0)), -jnp.inf)
    bad = (bad_q | jnp.any(bad_row, axis=1)[:, None]) & (total > 0)  # an empty head stays 0 / -inf
    return jnp.where(bad[..., None], jnp.nan, out), jnp.where(bad, jnp.nan, lse)


def scratch(shapes, device, **_) -> tuple:
    """None of a kernel's: the chunks' temporaries (at most ``CHUNK_BYTES``, or one token's)
    are XLA's own."""
    return ()


def sparse_mla(q, pool, indices, topk_lens, sm_scale: float, *, device=None):
    """Normalised arguments -> ``(out [T, H, 512] bf16, lse [T, H] f32)``."""
    del device  # plain jnp: the same code on every device
    num_tokens, num_heads, _ = q.shape
    topk_lens = lengths(topk_lens, num_tokens, indices.shape[1])
    chunk = tokens_per_chunk(num_tokens, indices.shape[1], num_heads)
    num_chunks = -(-num_tokens // chunk)
    pad = num_chunks * chunk - num_tokens

    def split(x):
        x = jnp.pad(x, [(0, pad)] + [(0, 0)] * (x.ndim - 1))
        return x.reshape(num_chunks, chunk, *x.shape[1:])

    def body(args):
        q_c, idx_c, lens_c = args
        return _attend_chunk(q_c, pool, idx_c, lens_c, sm_scale)

    out, lse = jax.lax.map(body, (split(q.astype(jnp.float32)), split(indices), split(topk_lens)))
    out = out.reshape(-1, num_heads, HEAD_DIM)[:num_tokens]
    lse = lse.reshape(-1, num_heads)[:num_tokens]
    return out.astype(jnp.bfloat16), lse


OPTIONS = ()


def device_unsupported(device, **_) -> str | None:
    return None  # plain jnp runs on every platform


def shapes_unsupported(shapes, **_) -> str | None:
    return None
