"""The ``reference`` implementation: sparse MLA in plain jnp.

Float32 math at HIGHEST precision, chunked over tokens with ``lax.map`` so the
gathered rows of a chunk stay under ``CHUNK_BYTES`` whatever T is (T=4096 x K=2176
on a CPU gathers 4.6 GB of dequantized values in all, ~64 MB at a time).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ..candidates import active_candidates
from ..layout import HEAD_DIM
from ..quant import dequantize_rows

CHUNK_BYTES = 64 << 20  # dequantized f32 candidates held at once


def tokens_per_chunk(num_tokens: int, num_candidates: int) -> int:
    per_token = num_candidates * HEAD_DIM * 4
    return max(1, min(num_tokens, CHUNK_BYTES // per_token))


def _attend_chunk(q, pool, indices, topk_lens, sm_scale):
    """``q [c, H, 512]`` f32 over ``indices [c, K]`` -> ``(out [c, H, 512] f32, lse [c, H])``."""
    active = active_candidates(indices, topk_lens, pool.shape[0])
    keys = dequantize_rows(pool[jnp.where(active, indices, 0)])
    # Inactive rows may hold NaN (slot 0 above all): select, never multiply, them away.
    keys = jnp.where(active[..., None], keys, 0.0)
    hi = jax.lax.Precision.HIGHEST
    scores = jnp.einsum("chd,ckd->chk", q, keys, precision=hi) * jnp.float32(sm_scale)
    scores = jnp.where(active[:, None, :], scores, -jnp.inf)
    row_max = jnp.max(scores, axis=-1)
    row_max = jnp.where(jnp.isfinite(row_max), row_max, 0.0)
    probs = jnp.exp(scores - row_max[..., None])
    total = jnp.sum(probs, axis=-1)
    out = jnp.einsum("chk,ckd->chd", probs, keys, precision=hi)
    out = out / jnp.where(total > 0, total, 1.0)[..., None]
    lse = jnp.where(total > 0, row_max + jnp.log(total), -jnp.inf)
    return out, lse


def sparse_mla(q, pool, indices, topk_lens, sm_scale: float):
    """Normalised arguments -> ``(out [T, H, 512] bf16, lse [T, H] f32)``."""
    num_tokens, num_heads, _ = q.shape
    if num_tokens == 0:
        return jnp.zeros(q.shape, jnp.bfloat16), jnp.zeros((0, num_heads), jnp.float32)
    chunk = tokens_per_chunk(num_tokens, indices.shape[1])
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
