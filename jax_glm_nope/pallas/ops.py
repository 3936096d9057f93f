"""``sparse_mla_pallas``: pad to the schedule, run the kernel, merge the splits.

Arguments arrive normalised (docs/architecture.md): nothing here re-validates.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from ..layout import HEAD_DIM
from .kernel import attend_splits
from .schedule import Schedule, choose_schedule

# Pallas-Triton computes element offsets in int32 unless an array exceeds 2^32 bytes,
# and Triton sign-extends them: pools between 2 and 4 GiB would address wrong rows.
INT32_OFFSET_POOLS = (2**31, 2**32)


def pool_unsupported_reason(num_slots: int, row_bytes: int) -> str | None:
    """``None`` when the compiled kernel can address every row of such a pool."""
    size = num_slots * row_bytes
    if INT32_OFFSET_POOLS[0] < size <= INT32_OFFSET_POOLS[1]:
        return (
            f"pool: the Pallas kernel cannot address pools of 2-4 GiB (int32 offsets); got "
            f"{num_slots} rows of {row_bytes} B = {size / 2**30:.2f} GiB. Use fewer or more slots."
        )
    return None


def merge_splits(out, lse):
    """Exact log-sum-exp merge of ``out [S, T, H, 512]`` f32 and ``lse [S, T, H]``.

    Each split's output is already normalised by its own sum, so the merged output is
    the splits' outputs weighted by ``exp(lse_s - lse)``. Splits with no active
    candidate carry ``lse = -inf`` and weigh 0; a token with none at all gets 0 / -inf.
    """
    peak = jnp.max(lse, axis=0)
    safe_peak = jnp.where(jnp.isfinite(peak), peak, 0.0)
    weights = jnp.exp(lse - safe_peak[None])  # exp(-inf) = 0
    total = jnp.sum(weights, axis=0)
    merged = jnp.sum(weights[..., None] * out, axis=0)
    nonempty = total > 0
    merged = merged / jnp.where(nonempty, total, 1.0)[..., None]
    merged_lse = jnp.where(nonempty, safe_peak + jnp.log(jnp.where(nonempty, total, 1.0)), -jnp.inf)
    return merged.astype(jnp.bfloat16), merged_lse


def _attend(q, pool, indices, topk_lens, sm_scale: float, interpret: bool, schedule: Schedule | None):
    num_tokens, num_heads, _ = q.shape
    num_candidates = indices.shape[1]
    if num_tokens == 0 or pool.shape[0] == 0:
        # Nothing to launch; an empty pool makes every candidate a hole.
        return (
            jnp.zeros((num_tokens, num_heads, HEAD_DIM), jnp.bfloat16),
            jnp.full((num_tokens, num_heads), -jnp.inf, jnp.float32),
        )
    reason = None if interpret else pool_unsupported_reason(*pool.shape)
    if reason is not None:
        raise ValueError(reason)
    sched = schedule or choose_schedule(num_tokens, num_heads, num_candidates)
    padded_heads = -(-num_heads // sched.block_h) * sched.block_h
    padded_candidates = sched.padded_candidates(num_candidates)
    q = q.astype(jnp.bfloat16)
    if padded_heads != num_heads:
        q = jnp.pad(q, ((0, 0), (0, padded_heads - num_heads), (0, 0)))
    if padded_candidates != num_candidates:
        indices = jnp.pad(indices, ((0, 0), (0, padded_candidates - num_candidates)), constant_values=-1)
    topk_lens = jnp.clip(topk_lens, 0, num_candidates).astype(jnp.int32)
    out, lse = attend_splits(
        q, pool, indices.astype(jnp.int32), topk_lens, sm_scale, sched, interpret=interpret
    )
    if sched.num_splits == 1:
        out, lse = out[0], lse[0]
    else:
        out, lse = merge_splits(out, lse)
    return out[:, :num_heads], lse[:, :num_heads]


def _fold_batch(axis_size, in_batched, q, pool, indices, topk_lens, *, call):
    """vmap rule: a batch of calls is one call over ``batch * T`` tokens.

    A batched pool is stacked into one pool of ``batch * num_slots`` rows, and each
    batch element's valid slots are shifted into its own range (holes stay holes).
    """
    q_b, pool_b, idx_b, lens_b = in_batched
    q = q if q_b else jnp.broadcast_to(q, (axis_size, *q.shape))
    indices = indices if idx_b else jnp.broadcast_to(indices, (axis_size, *indices.shape))
    topk_lens = topk_lens if lens_b else jnp.broadcast_to(topk_lens, (axis_size, *topk_lens.shape))
    if pool_b:
        num_slots = pool.shape[1]
        valid = (indices >= 0) & (indices < num_slots)
        offset = (jnp.arange(axis_size, dtype=jnp.int32) * num_slots)[:, None, None]
        indices = jnp.where(valid, indices + offset, -1)
        pool = pool.reshape(axis_size * num_slots, pool.shape[-1])
    num_tokens = q.shape[1]
    out, lse = call(
        q.reshape(axis_size * num_tokens, *q.shape[2:]),
        pool,
        indices.reshape(axis_size * num_tokens, -1),
        topk_lens.reshape(-1),
    )
    out = out.reshape(axis_size, num_tokens, *out.shape[1:])
    lse = lse.reshape(axis_size, num_tokens, *lse.shape[1:])
    return (out, lse), (True, True)


@functools.cache
def _batchable(sm_scale: float, interpret: bool, schedule: Schedule | None):
    @jax.custom_batching.custom_vmap
    def call(q, pool, indices, topk_lens):
        return _attend(q, pool, indices, topk_lens, sm_scale, interpret, schedule)

    call.def_vmap(functools.partial(_fold_batch, call=call))
    return call


def sparse_mla_pallas(
    q, pool, indices, topk_lens, sm_scale: float, *, interpret: bool = False, schedule: Schedule | None = None
):
    """Normalised arguments (docs/architecture.md) -> ``(out [T, H, 512] bf16, lse [T, H] f32)``.

    ``schedule`` overrides :func:`choose_schedule` (benchmarks and tuning only).
    """
    return _batchable(float(sm_scale), bool(interpret), schedule)(q, pool, indices, topk_lens)
