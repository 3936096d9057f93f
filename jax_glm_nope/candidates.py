"""Candidate columns on the JAX side: padding, hole masking, slot mapping.

GLM's indexer returns, per query token, ``[expanded pool groups | tail | -1 ...]``:
512 selected pools of 4 tokens (runs of four -1 where a pool is missing) followed by
the 0-3 tokens of the incomplete tail pool, 2051 columns in all. Kernels want the
width rounded to 128 (2176) and a per-token length that keeps the valid tail even
after holes; nothing here compacts columns, so shapes stay static.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from . import validate

COLUMN_MULTIPLE = 128  # 2051 -> 2176 = 17 x 128
INT32_LIMIT = validate.INT32_LIMIT


def default_width(num_candidates: int) -> int:
    return -(-num_candidates // COLUMN_MULTIPLE) * COLUMN_MULTIPLE


def pad_candidates(indices: ArrayLike, width: int | None = None) -> tuple[jax.Array, jax.Array]:
    """``indices [T, C]`` int32 -> ``(padded [T, W] int32, topk_lens [T] int32)``.

    ``W`` defaults to C rounded up to a multiple of 128; new columns are -1. Valid
    (non-negative) entries keep their columns. ``topk_lens[t]`` is one past the last
    column of row ``t`` holding a non-negative index (0 if none), so a valid tail
    after runs of -1 stays inside the length.
    """
    validate.check_dtype(indices, "indices", (jnp.int32,))
    validate.check_rank(indices, "indices", (2,), "[T, C]")
    num_candidates = int(np.shape(indices)[1])
    if width is None:
        width = max(default_width(num_candidates), COLUMN_MULTIPLE)
    width = validate.check_static_int(width, "width", 1)
    if width < num_candidates:
        raise ValueError(
            f"width: expected at least C={num_candidates} columns (padding never drops "
            f"candidates), got {width}"
        )
    indices = jnp.asarray(indices)
    padded = jnp.pad(indices, ((0, 0), (0, width - num_candidates)), constant_values=-1)
    column = jnp.arange(1, num_candidates + 1, dtype=jnp.int32)
    topk_lens = jnp.max(jnp.where(indices >= 0, column[None, :], 0), axis=1, initial=0)
    return padded, topk_lens.astype(jnp.int32)


def mask_holes(indices: ArrayLike, num_slots: int) -> jax.Array:
    """Every entry outside ``[0, num_slots)`` becomes -1.

    ``num_slots`` is any int >= 1 (numpy integers too); from 2**31 on every
    non-negative int32 id is inside the range, so only negative entries become -1.
    """
    validate.check_dtype(indices, "indices", (jnp.int32,))
    num_slots = validate.check_static_int(num_slots, "num_slots", 1)
    indices = jnp.asarray(indices)
    if num_slots >= INT32_LIMIT:  # no int32 id reaches it (and it does not fit an int32 operand)
        return jnp.where(indices >= 0, indices, -1)
    return jnp.where((indices >= 0) & (indices < jnp.int32(num_slots)), indices, -1)


def valid_slots(slots: jax.Array, num_slots: int) -> jax.Array:
    """The one slot-validity rule: ``0 <= slot < num_slots``. No validation."""
    return (slots >= 0) & (slots < num_slots)


def last_writer_only(slots, num_slots: int):
    """Slots with every out-of-range entry and every earlier duplicate set to -1.

    Both ``write_kv`` implementations write rows in parallel (CUDA blocks; XLA's GPU
    scatter element by element), so two rows naming one slot could interleave their
    bytes; keeping only the last occurrence stores one whole row, the one a sequential
    loop would leave. No validation.
    """
    num_tokens = slots.shape[0]
    valid = valid_slots(slots, num_slots)
    keyed = jnp.where(valid, slots, num_slots)  # invalid entries group together, dropped anyway
    order = jnp.argsort(keyed, stable=True)
    ordered = keyed[order]
    last_of_run = jnp.concatenate([ordered[1:] != ordered[:-1], jnp.ones((1,), bool)])
    keep = jnp.zeros((num_tokens,), bool).at[order].set(last_of_run)
    return jnp.where(valid & keep, slots, -1).astype(jnp.int32)


# What the backends receive when a call gives no ``topk_lens``: an empty int32 vector, a
# shape XLA carries without a kernel (a full ``[T]`` constant becomes a broadcast fusion
# before the attention's own kernel at T > 1). It means every candidate counts.
EVERY_CANDIDATE = np.zeros((0,), np.int32)


def counts_every_candidate(topk_lens) -> bool:
    """Whether ``topk_lens`` is :data:`EVERY_CANDIDATE` (static: its shape says so)."""
    return topk_lens.shape[0] == 0


def lengths(topk_lens: jax.Array, num_tokens: int, num_candidates: int) -> jax.Array:
    """``topk_lens`` as ``[T]``: :data:`EVERY_CANDIDATE` becomes ``K`` for every token."""
    if counts_every_candidate(topk_lens) and num_tokens > 0:
        return jnp.full((num_tokens,), num_candidates, jnp.int32)
    return topk_lens


def active_candidates(indices: jax.Array, topk_lens: jax.Array, num_slots: int) -> jax.Array:
    """The active-candidate rule as a ``[T, K]`` mask: column ``j`` of token ``t`` is attended iff
    ``j < topk_lens[t]`` and ``0 <= indices[t, j] < num_slots``. For the backends: no
    validation; ``topk_lens`` may be :data:`EVERY_CANDIDATE`."""
    topk_lens = lengths(topk_lens, indices.shape[0], indices.shape[1])
    column = jnp.arange(indices.shape[1], dtype=jnp.int32)
    return (column[None, :] < topk_lens[:, None]) & valid_slots(indices, num_slots)


def to_slots(local_positions: ArrayLike, req_to_token: ArrayLike, token_req: ArrayLike) -> jax.Array:
    """Request-local token positions ``[T, C]`` -> global slots ``[T, C]``, keeping -1.

    ``req_to_token [R, L]`` maps (request, position) to a slot (a page table expanded
    to tokens); ``token_req [T]`` names each query token's request. Negative or
    out-of-range positions and requests give -1.
    """
    validate.check_dtype(local_positions, "local_positions", (jnp.int32,))
    validate.check_rank(local_positions, "local_positions", (2,), "[T, C]")
    validate.check_dtype(req_to_token, "req_to_token", (jnp.int32,))
    validate.check_rank(req_to_token, "req_to_token", (2,), "[R, L]")
    validate.check_dtype(token_req, "token_req", (jnp.int32,))
    num_tokens = int(np.shape(local_positions)[0])
    if np.shape(token_req) != (num_tokens,):
        raise ValueError(
            f"token_req: expected shape ({num_tokens},) (T of local_positions), got {np.shape(token_req)}"
        )
    num_requests, max_len = (int(d) for d in np.shape(req_to_token))
    if num_requests < 1 or max_len < 1:
        raise ValueError(
            f"req_to_token: expected a non-empty [R, L] table, got shape {np.shape(req_to_token)}"
        )
    positions = jnp.asarray(local_positions)
    requests = jnp.asarray(token_req)[:, None]
    valid = (positions >= 0) & (positions < max_len) & (requests >= 0) & (requests < num_requests)
    slots = jnp.asarray(req_to_token)[jnp.where(valid, requests, 0), jnp.where(valid, positions, 0)]
    return jnp.where(valid & (slots >= 0), slots, -1)  # unallocated table entries too
