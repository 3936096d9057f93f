"""``sparse_mla`` through FlashInfer's GLM53_NOPE kernels (SM120/SM121).

Maps the normalised call (docs/architecture.md) onto the kernels' contract:

- holes: FlashInfer skips negative indices but would read an index ``>= num_slots``,
  so every inactive candidate (out of range, or at ``j >= topk_lens[t]``) becomes -1;
- decode (T <= 64): split-K over 64-candidate windows, any K and any H <= 128,
  scratch from :func:`~jax_glm_nope.bridge.targets.scratch_shapes`;
- prefill (T > 64): K padded with -1 to a multiple of 64 (2051 -> 2112), H padded with
  zero queries to the next of 8, 16, 32, 64, 128 and sliced back;
- a token with no active candidate gets ``out = 0`` and ``lse = -inf`` whatever the
  kernel wrote (SPEC 3), and LSE is natural-log (the handlers scale FlashInfer's
  base-2 LSE by ln 2).
"""

from __future__ import annotations

import jax.numpy as jnp

from .. import layout
from ..candidates import active_candidates
from . import targets


def _prefill_heads(num_heads: int) -> int:
    return next(h for h in targets.PREFILL_HEADS if h >= num_heads)


def sparse_mla_flashinfer(q, pool, indices, topk_lens, sm_scale: float):
    """``(out [T,H,512] bf16, lse [T,H] f32)``; arguments already validated and normalised."""
    targets.load_library()  # at trace time: builds on first use, registers the targets
    num_tokens, num_heads, _ = q.shape
    num_slots = pool.shape[0]
    num_candidates = indices.shape[1]
    if num_tokens == 0:
        return (
            jnp.zeros((0, num_heads, layout.HEAD_DIM), jnp.bfloat16),
            jnp.zeros((0, num_heads), jnp.float32),
        )
    lens = jnp.clip(topk_lens.astype(jnp.int32), 0, num_candidates)
    active = active_candidates(indices, lens, num_slots)
    indices = jnp.where(active, indices, -1).astype(jnp.int32)
    q = q.astype(jnp.bfloat16)
    if num_tokens <= targets.MAX_DECODE_TOKENS:  # which target: by token count
        out, lse = targets.glm53_decode_call(q, pool, indices, lens, sm_scale)
    else:
        padded_k = -(-num_candidates // targets.CANDIDATE_WINDOW) * targets.CANDIDATE_WINDOW
        indices = jnp.pad(indices, ((0, 0), (0, padded_k - num_candidates)), constant_values=-1)
        heads = _prefill_heads(num_heads)
        q = jnp.pad(q, ((0, 0), (0, heads - num_heads), (0, 0)))
        out, lse = targets.glm53_prefill_call(q, pool, indices, lens, sm_scale)
        out, lse = out[:, :num_heads], lse[:, :num_heads]
    any_active = jnp.any(active, axis=1)
    out = jnp.where(any_active[:, None, None], out, jnp.zeros((), jnp.bfloat16))
    lse = jnp.where(any_active[:, None], lse, -jnp.inf)
    return out, lse


def plan(num_tokens: int, num_heads: int, num_candidates: int) -> dict:
    """What :func:`sparse_mla_flashinfer` launches for a shape (for docs, tests and info)."""
    if num_tokens <= targets.MAX_DECODE_TOKENS:  # which target: by token count
        mid_out, mid_lse = targets.scratch_shapes(num_tokens, num_heads, num_candidates)
        return {
            "target": targets.GLM53_DECODE,
            "heads": num_heads,
            "candidates": num_candidates,
            "mid_out": mid_out,
            "mid_lse": mid_lse,
        }
    window = targets.CANDIDATE_WINDOW
    return {
        "target": targets.GLM53_PREFILL,
        "heads": _prefill_heads(num_heads),
        "candidates": -(-num_candidates // window) * window,
    }


__all__ = ["sparse_mla_flashinfer", "plan"]
