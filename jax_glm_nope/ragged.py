"""Serving engines' ragged batch metadata -> this package's per-token inputs.

tpu-inference and sglang-jax (like vLLM) describe a step's batch as requests laid end to
end along one token axis: ``query_start_loc`` (``cu_q_lens``) ``[R + 1]`` gives where each
request's new tokens start, ``seq_lens`` (``kv_lens``) ``[R]`` each request's length once
this step's tokens are cached, and a page table (``block_tables`` / tpu-inference's
``page_indices`` reshaped to ``[R, pages_per_request]``) or a token table (sglang's
``req_to_token``) where its tokens live. The token axis has a static size ``T`` larger
than the tokens in use; the rest is padding.

:func:`ragged_inputs` turns that, with the indexer's request-local top-k positions, into
what ``write_kv`` and ``sparse_mla`` take per token: pure jnp, static shapes, jittable.
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import export
from jax.typing import ArrayLike

from . import validate
from .cache import paged_slots
from .candidates import pad_candidates


class RaggedInputs(NamedTuple):
    """Per-token inputs of one ragged step, every array int32 with ``T`` rows.

    ``token_req [T]``: the request of each token, -1 for a padding token. ``positions
    [T]``: each token's position in its request, -1 for padding. ``slots [T]``: where
    ``write_kv`` stores each token's row, -1 (dropped) for padding or an unallocated page.
    ``indices [T, W]`` and ``topk_lens [T]``: ``sparse_mla``'s candidates; a padding token
    has none (its ``out`` is 0 and its ``lse`` -inf).
    """

    token_req: jax.Array
    positions: jax.Array
    slots: jax.Array
    indices: jax.Array
    topk_lens: jax.Array


# So that a jax.export artifact returning one serializes (and deserializes in a process
# that imports jax_glm_nope).
export.register_namedtuple_serialization(RaggedInputs, serialized_name="jax_glm_nope.RaggedInputs")


def ragged_inputs(
    query_start_loc: ArrayLike,
    seq_lens: ArrayLike,
    topk_positions: ArrayLike,
    *,
    block_tables: ArrayLike | None = None,
    page_size: int | None = None,
    req_to_token: ArrayLike | None = None,
    req_pool_indices: ArrayLike | None = None,
    num_requests: ArrayLike | None = None,
    width: int | None = None,
    causal: bool = True,
) -> RaggedInputs:
    """The per-token inputs of a ragged batch of ``R`` requests over ``T`` token rows.

    Args:
      query_start_loc: ``[R + 1]`` int32 (``cu_q_lens``), non-decreasing up to entry
        ``num_requests``: request ``r``'s new tokens are rows ``query_start_loc[r] <= t <
        query_start_loc[r + 1]``; rows outside every request in use are padding. Entries
        past ``num_requests`` are never read (engines pad them with anything: vLLM's
        TPU runner writes 1s).
      seq_lens: ``[R]`` int32, request ``r``'s length including this step's tokens, so
        row ``t`` of request ``r`` is at position ``seq_lens[r] - query_start_loc[r + 1] + t``;
        a row whose position would be negative (a negative length included) is padding.
      topk_positions: ``[T, C]`` int32, the indexer's request-local positions of each
        token's candidates; negative entries are holes (GLM's missing pool groups).
      block_tables: ``[R, max_blocks]`` int32 page table with ``page_size``: position
        ``p`` of request ``r`` is slot ``block_tables[r, p // page_size] * page_size + p %
        page_size`` (tpu-inference's flat ``page_indices`` reshaped to ``[R, -1]``).
      req_to_token: ``[N, L]`` int32 token table instead (sglang's ``req_to_token``):
        position ``p`` of request ``r`` is slot ``req_to_token[req_pool_indices[r], p]``.
      req_pool_indices: ``[R]`` int32, each request's row of ``req_to_token`` (sglang's
        ``req_pool_indices``); None: row ``r`` (then ``N`` must be ``R``).
      num_requests: requests in use (tpu-inference's ``num_seqs``; a Python int or an int32
        scalar, traced or not); the rows of later requests are padding. None: all ``R``.
      width: the candidate columns of ``indices`` (default: C rounded up to 128, as
        :func:`~jax_glm_nope.pad_candidates`).
      causal: a candidate at a position after its own token's is a hole (True, the
        default; a token of a prefill chunk never sees the chunk's later tokens). False:
        only positions past the request's ``seq_lens`` are holes.

    Rows are numbered from 0 along the token axis this function sees: under a
    ``shard_map`` that splits the tokens, pass each shard its own requests' metadata
    (or call it with the token axis replicated), never the whole step's.

    Returns:
      :class:`RaggedInputs` ``(token_req, positions, slots, indices, topk_lens)``: the
      slots for ``write_kv(pool, latent, slots)`` and ``sparse_mla(q, pool, indices,
      sm_scale, topk_lens)`` with ``q``'s rows in the same token order. Positions that
      map to no slot (past the table, an unallocated negative entry) are -1.
    """
    validate.check_dtype(seq_lens, "seq_lens", (jnp.int32,))
    validate.check_rank(seq_lens, "seq_lens", (1,), "[R]")
    (num_req,) = validate.check_static_shape(seq_lens, "seq_lens")
    if num_req < 1:
        raise ValueError("seq_lens: expected at least one request, got shape (0,)")
    validate.check_dtype(query_start_loc, "query_start_loc", (jnp.int32,))
    validate.check_length(query_start_loc, "query_start_loc", num_req + 1, "R + 1, R from seq_lens")
    validate.check_dtype(topk_positions, "topk_positions", (jnp.int32,))
    validate.check_rank(topk_positions, "topk_positions", (2,), "[T, C]")
    num_tokens, num_columns = validate.check_static_shape(topk_positions, "topk_positions")
    if num_columns < 1:
        raise ValueError(f"topk_positions: expected C >= 1 columns, got shape ({num_tokens}, {num_columns})")
    causal = validate.check_bool(causal, "causal")
    table = _table(block_tables, page_size, req_to_token, req_pool_indices, num_req)
    limit = _num_requests(num_requests, num_req)

    starts = jnp.asarray(query_start_loc)
    # Engines pad the entries past the requests in use with anything (vLLM's TPU runner
    # writes 1s): the binary search must see a sorted array, so they become the end of
    # the last request in use, and every row past it is padding.
    end_of_use = starts[limit]
    starts = jnp.where(jnp.arange(num_req + 1) <= limit, starts, end_of_use)
    # A negative length holds no tokens (its rows are padding).
    lens = jnp.maximum(jnp.asarray(seq_lens), 0)
    rows = jnp.arange(num_tokens, dtype=jnp.int32)
    request = (jnp.searchsorted(starts, rows, side="right") - 1).astype(jnp.int32)
    inside = (request >= 0) & (request < limit) & (rows < end_of_use)
    safe = jnp.where(inside, request, 0)
    next_start = starts[safe + 1]
    inside = inside & (rows < next_start)  # true of sorted metadata; bounds the subtraction below
    # In int32 without wrapping: 0 <= lens < 2**31 and 0 < next_start - rows < 2**31.
    position = lens[safe] - (next_start - rows)
    inside = inside & (position >= 0)
    token_req = jnp.where(inside, request, -1)
    positions = jnp.where(inside, position, -1)

    candidates = jnp.asarray(topk_positions)
    end = (positions + 1) if causal else lens[safe]
    usable = inside[:, None] & (candidates >= 0) & (candidates < end[:, None])
    candidates = jnp.where(usable, candidates, -1)
    slots = table(positions, token_req)
    candidate_slots = table(candidates, token_req)
    indices, topk_lens = pad_candidates(candidate_slots, width)
    return RaggedInputs(token_req, positions, slots, indices, topk_lens)


def _num_requests(num_requests, num_req: int):
    """``num_requests`` as an int32 scalar in ``[0, R]`` (``R`` when None)."""
    if num_requests is None:
        return jnp.int32(num_req)
    if isinstance(num_requests, (bool, np.bool_)):
        raise TypeError(f"num_requests: expected None, an int or an int32 scalar, got {num_requests!r}")
    if isinstance(num_requests, numbers.Integral):
        if not 0 <= int(num_requests) <= num_req:
            raise ValueError(f"num_requests: expected 0 <= num_requests <= R = {num_req}, got {num_requests}")
        return jnp.int32(int(num_requests))
    validate.check_dtype(num_requests, "num_requests", (jnp.int32,))
    validate.check_rank(num_requests, "num_requests", (0,), "a scalar")
    return jnp.clip(jnp.asarray(num_requests), 0, num_req)


def _table(block_tables, page_size, req_to_token, req_pool_indices, num_req: int):
    """``(positions [T, ...], token_req [T]) -> slots`` from whichever table was given."""
    if block_tables is not None and req_pool_indices is not None:
        raise TypeError("req_pool_indices: only with req_to_token= (block_tables rows are in request order)")
    if (block_tables is None) == (req_to_token is None):
        raise TypeError(
            "ragged_inputs(): pass exactly one of block_tables= (with page_size=) and req_to_token="
        )
    if block_tables is not None:
        if page_size is None:
            raise TypeError("page_size: block_tables= needs page_size= (tokens per page)")
        rows, max_blocks = validate.check_table(
            block_tables, "block_tables", "[R, max_blocks]", nonempty=False
        )
        if rows != num_req or max_blocks < 1:
            raise ValueError(
                f"block_tables: expected shape ({num_req}, max_blocks >= 1) (R from seq_lens), got "
                f"{tuple(block_tables.shape)}"
            )
        page_size = validate.check_page_size(page_size)
        pages = jnp.asarray(block_tables)
        return lambda positions, token_req: paged_slots(pages, positions, token_req, page_size)
    if page_size is not None:
        raise TypeError("page_size: only with block_tables= (req_to_token already names slots)")
    if req_pool_indices is not None and req_to_token is None:
        raise TypeError("req_pool_indices: only with req_to_token=")
    table_rows, max_len = validate.check_table(req_to_token, "req_to_token", "[N, L]")
    if req_pool_indices is None:
        if table_rows != num_req:
            raise ValueError(
                f"req_to_token: expected {num_req} rows (R from seq_lens) without req_pool_indices=, got "
                f"shape {tuple(req_to_token.shape)}"
            )
        pool_rows = jnp.arange(num_req, dtype=jnp.int32)
    else:
        validate.check_dtype(req_pool_indices, "req_pool_indices", (jnp.int32,))
        validate.check_length(req_pool_indices, "req_pool_indices", num_req, "R, from seq_lens")
        pool_rows = jnp.asarray(req_pool_indices)
    tokens = jnp.asarray(req_to_token)

    def slots(positions, token_req):
        row = pool_rows[jnp.maximum(token_req, 0)]
        row = jnp.where(token_req >= 0, row, -1).reshape((-1,) + (1,) * (positions.ndim - 1))
        valid = (positions >= 0) & (positions < max_len) & (row >= 0) & (row < table_rows)
        slot = tokens[jnp.where(valid, row, 0), jnp.where(valid, positions, 0)]
        return jnp.where(valid & (slot >= 0), slot, -1).astype(jnp.int32)

    return slots
