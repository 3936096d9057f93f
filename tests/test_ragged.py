"""``ragged_inputs``: serving engines' ragged metadata against the per-token path.

The per-token path is what a model author writes with this package's other helpers:
each token's request and position worked out by hand, then ``block_tables_to_slots``,
``block_tables_to_candidate_slots`` and ``pad_candidates``. Both must give ``write_kv``
and ``sparse_mla`` the same inputs, hence the same bits."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jax_glm_nope as jgn
from jax_glm_nope import testing as jt

PAGE = 4
SCALE = 1 / 16
HEADS = 8


def _batch(seed: int):
    """A mixed step of 4 requests (prefill chunks, decode, one padded request) over a
    static token axis with padding rows, and the indexer's request-local candidates."""
    rng = np.random.default_rng(seed)
    q_lens = np.array([5, 1, 3, 0], np.int32)  # the last request is padding (tpu-inference's max_num_seqs)
    seq_lens = np.array([9, 14, 3, 0], np.int32)  # after this step: 4 cached + 5 new, 13 + 1, 0 + 3
    starts = np.concatenate([[0], np.cumsum(q_lens)]).astype(np.int32)
    num_tokens = 12  # 9 in use, 3 padding rows
    pages = rng.permutation(np.arange(1, 17, dtype=np.int32))  # page 0 never used: slot 0 is padding's
    tables = np.full((4, 5), -1, np.int32)
    tables[0, :3], tables[1, :4], tables[2, :1] = pages[:3], pages[3:7], pages[7:8]
    candidates = rng.integers(-2, 16, (num_tokens, 6)).astype(np.int32)  # holes, the future, past the table
    candidates[:, 0] = 0  # every real token attends its request's first token
    return starts, seq_lens, tables, candidates


def _per_token(starts, seq_lens, tables, candidates, causal=True):
    """Token -> (request, position) by hand, then the package's per-token helpers."""
    num_tokens = candidates.shape[0]
    token_req = np.full(num_tokens, -1, np.int32)
    positions = np.full(num_tokens, -1, np.int32)
    for r in range(len(seq_lens)):
        for i, t in enumerate(range(starts[r], starts[r + 1])):
            token_req[t] = r
            positions[t] = seq_lens[r] - (starts[r + 1] - starts[r]) + i
    limit = np.where(token_req >= 0, positions + 1 if causal else seq_lens[np.maximum(token_req, 0)], 0)
    local = np.where((candidates >= 0) & (candidates < limit[:, None]), candidates, -1).astype(np.int32)
    slots = jgn.block_tables_to_slots(tables, positions, token_req, PAGE)
    candidate_slots = jgn.block_tables_to_candidate_slots(tables, local, token_req, PAGE)
    indices, topk_lens = jgn.pad_candidates(candidate_slots)
    return token_req, positions, slots, indices, topk_lens


def _assert_same(got, want):
    for name, a, b in zip(jgn.RaggedInputs._fields, got, want, strict=True):
        assert np.asarray(a).dtype == np.int32, name
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=name)


def _req_to_token(tables):
    """The page table expanded to tokens (sglang's req_to_token), -1 where unallocated."""
    positions = np.arange(tables.shape[1] * PAGE)
    pages = tables[:, positions // PAGE]
    return np.where(pages >= 0, pages * PAGE + positions % PAGE, -1).astype(np.int32)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("causal", [True, False])
def test_block_tables_match_the_per_token_path(seed, causal):
    starts, seq_lens, tables, candidates = _batch(seed)
    got = jgn.ragged_inputs(starts, seq_lens, candidates, block_tables=tables, page_size=PAGE, causal=causal)
    _assert_same(got, _per_token(starts, seq_lens, tables, candidates, causal))
    assert (np.asarray(got.token_req)[9:] == -1).all() and (np.asarray(got.topk_lens)[9:] == 0).all()


def test_req_to_token_and_pool_rows_match_the_block_tables():
    starts, seq_lens, tables, candidates = _batch(3)
    by_pages = jgn.ragged_inputs(starts, seq_lens, candidates, block_tables=tables, page_size=PAGE)
    by_tokens = jgn.ragged_inputs(starts, seq_lens, candidates, req_to_token=_req_to_token(tables))
    _assert_same(by_tokens, by_pages)
    # sglang keeps one row per request of its pool, in any order: req_pool_indices picks it.
    order = np.array([5, 2, 0, 3], np.int32)
    pool_table = np.full((6, tables.shape[1] * PAGE), -1, np.int32)
    pool_table[order] = _req_to_token(tables)
    rows = jgn.ragged_inputs(starts, seq_lens, candidates, req_to_token=pool_table, req_pool_indices=order)
    _assert_same(rows, by_pages)


def test_the_same_attention_as_the_per_token_path():
    """A step written and attended through ragged_inputs equals the per-token step bit for
    bit; every cached row a candidate reads was written by an earlier (prefix) write."""
    starts, seq_lens, tables, candidates = _batch(4)
    rng = np.random.default_rng(4)
    num_slots = 17 * PAGE
    prefix = jt.random_latent(rng, num_slots)
    pool = jgn.write_kv(jnp.zeros((17, PAGE, 528), jnp.uint8), prefix, np.arange(num_slots, dtype=np.int32))
    q = jnp.asarray(rng.standard_normal((12, HEADS, 512)), jnp.bfloat16)
    latent = jt.random_latent(rng, 12)

    @functools.partial(jax.jit, donate_argnums=0)
    def ragged_step(pool, q, latent, starts, seq_lens, tables, candidates):
        inputs = jgn.ragged_inputs(starts, seq_lens, candidates, block_tables=tables, page_size=PAGE)
        pool = jgn.write_kv(pool, latent, inputs.slots)
        return pool, jgn.sparse_mla(q, pool, inputs.indices, SCALE, inputs.topk_lens)

    token_req, positions, slots, indices, topk_lens = _per_token(starts, seq_lens, tables, candidates)
    want_pool = jgn.write_kv(pool, latent, slots)
    want_out, want_lse = jgn.sparse_mla(q, want_pool, indices, SCALE, topk_lens)
    got_pool, (out, lse) = ragged_step(jnp.copy(pool), q, latent, starts, seq_lens, tables, candidates)
    np.testing.assert_array_equal(np.asarray(got_pool), np.asarray(want_pool))
    np.testing.assert_array_equal(np.asarray(out, np.float32), np.asarray(want_out, np.float32))
    np.testing.assert_array_equal(np.asarray(lse), np.asarray(want_lse))
    assert (np.asarray(lse)[9:] == -np.inf).all() and (np.asarray(out, np.float32)[9:] == 0).all()
    assert np.isfinite(np.asarray(lse)[:9]).all()  # every real token attends at least its first token


def test_num_requests_traced_makes_later_requests_padding():
    starts, seq_lens, tables, candidates = _batch(5)
    inputs = jax.jit(
        lambda n: jgn.ragged_inputs(
            starts, seq_lens, candidates, block_tables=tables, page_size=PAGE, num_requests=n
        )
    )(jnp.int32(2))
    token_req = np.asarray(inputs.token_req)
    assert (token_req[:6] == [0, 0, 0, 0, 0, 1]).all() and (token_req[6:] == -1).all()
    assert (np.asarray(inputs.slots)[6:] == -1).all() and (np.asarray(inputs.topk_lens)[6:] == 0).all()
    everything = jgn.ragged_inputs(starts, seq_lens, candidates, block_tables=tables, page_size=PAGE)
    _assert_same(
        jgn.ragged_inputs(starts, seq_lens, candidates, block_tables=tables, page_size=PAGE, num_requests=4),
        everything,
    )


@pytest.mark.parametrize("tail", [1, 0, -1, 4, 10**6, -(2**31)])
def test_the_padded_tail_of_query_start_loc_is_never_read(tail):
    """vLLM's TPU runner pads the entries past the requests in use with 1: one request of
    four tokens in use, the tail padded, and every one of its tokens gets its slot."""
    starts = jnp.array([0, 4, tail, tail], jnp.int32)
    seq_lens = jnp.array([4, 0, 0], jnp.int32)
    tables = jnp.array([[0], [1], [2]], jnp.int32)
    inputs = jgn.ragged_inputs(
        starts, seq_lens, jnp.zeros((6, 1), jnp.int32), block_tables=tables, page_size=4, num_requests=1
    )
    assert np.asarray(inputs.token_req).tolist() == [0, 0, 0, 0, -1, -1]
    assert np.asarray(inputs.slots).tolist() == [0, 1, 2, 3, -1, -1]
    pool = jgn.write_kv(jgn.allocate_pools(1, 1, 4)[0], jnp.ones((6, 512)), inputs.slots)
    written = np.asarray(pool).reshape(4, -1)
    assert (written[:, :512] != 0).all()  # all four rows written, none dropped


@pytest.mark.parametrize("seq_len", [-(2**31), -(2**31) + 1, -1])
def test_a_negative_seq_len_makes_padding_not_wrapped_positions(seq_len):
    inputs = jgn.ragged_inputs(
        jnp.array([0, 2], jnp.int32),
        jnp.array([seq_len], jnp.int32),
        jnp.zeros((2, 1), jnp.int32),
        block_tables=jnp.array([[0]], jnp.int32),
        page_size=2**31 - 1,  # a wrapped position would even get a valid slot
    )
    assert np.asarray(inputs.token_req).tolist() == [-1, -1]
    assert np.asarray(inputs.positions).tolist() == [-1, -1]
    assert np.asarray(inputs.slots).tolist() == [-1, -1]
    assert np.asarray(inputs.topk_lens).tolist() == [0, 0]


def _oracle(starts, seq_lens, tables, candidates, num_requests, page_size):
    """The ragged rule in plain Python integers (nothing wraps): each request in use owns
    rows ``starts[r] <= t < starts[r + 1]``; the entries past ``num_requests`` are never read."""
    num_tokens, num_columns = len(candidates), len(candidates[0])
    token_req, positions = [-1] * num_tokens, [-1] * num_tokens
    for r in range(num_requests):
        for t in range(max(starts[r], 0), min(starts[r + 1], num_tokens)):
            position = seq_lens[r] - (starts[r + 1] - t)
            if position >= 0:
                token_req[t], positions[t] = r, position

    def slot(r, position):
        if r < 0 or position < 0 or position // page_size >= len(tables[r]):
            return -1
        page = tables[r][position // page_size]
        return -1 if page < 0 else page * page_size + position % page_size

    slots = [slot(r, p) for r, p in zip(token_req, positions, strict=True)]
    width = -(-num_columns // 128) * 128
    indices, topk_lens = [], []
    for t, row in enumerate(candidates):
        picked = [slot(token_req[t], c) if 0 <= c <= positions[t] else -1 for c in row]
        picked += [-1] * (width - num_columns)
        valid = [j for j, s in enumerate(picked) if s >= 0]
        indices.append(picked)
        topk_lens.append(valid[-1] + 1 if valid else 0)
    return token_req, positions, slots, indices, topk_lens


_REQUESTS, _TOKENS, _BLOCKS, _COLUMNS = 6, 16, 4, 5
_INT32 = st.integers(-(2**31), 2**31 - 1)


@functools.cache
def _jitted_ragged_inputs():
    return jax.jit(
        lambda starts, seq_lens, tables, candidates, n: jgn.ragged_inputs(
            starts, seq_lens, candidates, block_tables=tables, page_size=PAGE, num_requests=n
        )
    )


@settings(max_examples=150, deadline=None)
@given(
    num_requests=st.integers(0, _REQUESTS),
    q_lens=st.lists(st.integers(0, 6), min_size=_REQUESTS, max_size=_REQUESTS),
    contexts=st.lists(
        st.one_of(st.integers(-3, 12), st.sampled_from([-(2**31), 2**31 - 1]), _INT32),
        min_size=_REQUESTS,
        max_size=_REQUESTS,
    ),
    tail=st.lists(
        st.one_of(st.sampled_from([1, 0, -1, _TOKENS, 10**6]), _INT32), min_size=_REQUESTS, max_size=_REQUESTS
    ),
    tables=st.lists(st.integers(-1, 15), min_size=_REQUESTS * _BLOCKS, max_size=_REQUESTS * _BLOCKS),
    candidates=st.lists(st.integers(-2, 20), min_size=_TOKENS * _COLUMNS, max_size=_TOKENS * _COLUMNS),
)
def test_random_padded_batches_match_a_plain_python_oracle(
    num_requests, q_lens, contexts, tail, tables, candidates
):
    """Any padding past ``num_requests`` (unsorted, negative, huge), any lengths (negative
    and near the int32 limits), some requests running past the token axis: every token
    in use gets its request, position, slot and candidates; nothing else gets any."""
    starts = [0]
    for q_len in q_lens[:num_requests]:
        starts.append(starts[-1] + q_len)
    starts += tail[: _REQUESTS - num_requests]
    seq_lens = [
        max(min(q_len + context, 2**31 - 1), -(2**31)) if abs(context) < 2**20 else context
        for q_len, context in zip(q_lens, contexts, strict=True)
    ]
    tables = np.array(tables, np.int32).reshape(_REQUESTS, _BLOCKS)
    candidates = np.array(candidates, np.int32).reshape(_TOKENS, _COLUMNS)
    got = _jitted_ragged_inputs()(
        np.array(starts, np.int32), np.array(seq_lens, np.int32), tables, candidates, np.int32(num_requests)
    )
    want = _oracle(starts, seq_lens, tables.tolist(), candidates.tolist(), num_requests, PAGE)
    for name, a, b in zip(jgn.RaggedInputs._fields, got, want, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.array(b, np.int32), err_msg=name)


def test_an_exported_step_returning_ragged_inputs_serializes():
    starts, seq_lens, tables, candidates = _batch(7)
    step = jax.jit(
        lambda starts, seq_lens, tables, candidates: jgn.ragged_inputs(
            starts, seq_lens, candidates, block_tables=tables, page_size=PAGE
        )
    )
    exported = jax.export.export(step, platforms=("cpu", "cuda"))(starts, seq_lens, tables, candidates)
    restored = jax.export.deserialize(exported.serialize())
    got = restored.call(starts, seq_lens, tables, candidates)
    assert type(got) is jgn.RaggedInputs
    _assert_same(got, step(starts, seq_lens, tables, candidates))


def test_width_and_positions():
    starts, seq_lens, tables, candidates = _batch(6)
    inputs = jgn.ragged_inputs(starts, seq_lens, candidates, block_tables=tables, page_size=PAGE, width=2051)
    assert inputs.indices.shape == (12, 2051)
    assert np.asarray(inputs.positions)[:9].tolist() == [4, 5, 6, 7, 8, 13, 0, 1, 2]


@pytest.mark.parametrize(
    ("kw", "error", "pattern"),
    [
        (dict(block_tables=None), TypeError, "pass exactly one of block_tables="),
        (dict(req_to_token=np.zeros((4, 8), np.int32)), TypeError, "pass exactly one of block_tables="),
        (dict(page_size=None), TypeError, "page_size: block_tables= needs page_size="),
        (dict(page_size=0), ValueError, "page_size: expected an int >= 1"),
        (
            dict(block_tables=np.zeros((3, 5), np.int32)),
            ValueError,
            r"block_tables: expected shape \(4, max_blocks",
        ),
        (dict(block_tables=np.zeros((4, 5), np.int64)), TypeError, "block_tables: expected dtype int32"),
        (dict(seq_lens=np.zeros(4, np.uint32)), TypeError, "seq_lens: expected dtype int32"),
        (dict(query_start_loc=np.zeros(4, np.int32)), ValueError, r"query_start_loc: expected shape \(5,\)"),
        (dict(topk_positions=np.zeros(12, np.int32)), ValueError, r"topk_positions: expected shape \[T, C\]"),
        (dict(topk_positions=np.zeros((12, 0), np.int32)), ValueError, "topk_positions: expected C >= 1"),
        (dict(num_requests=5), ValueError, "num_requests: expected 0 <= num_requests <= R = 4"),
        (dict(num_requests=True), TypeError, "num_requests: expected None, an int"),
        (dict(num_requests=np.zeros(2, np.int32)), ValueError, "num_requests: expected shape a scalar"),
        (dict(causal="yes"), TypeError, "causal: expected a bool"),
        (
            dict(req_pool_indices=np.zeros(4, np.int32)),
            TypeError,
            "req_pool_indices: only with req_to_token=",
        ),
        (dict(width=3), ValueError, "width: expected at least C=6 columns"),
    ],
)
def test_the_metadata_is_validated(kw, error, pattern):
    starts, seq_lens, tables, candidates = _batch(0)
    args = dict(
        query_start_loc=starts,
        seq_lens=seq_lens,
        topk_positions=candidates,
        block_tables=tables,
        page_size=PAGE,
    )
    args.update(kw)
    with pytest.raises(error, match=pattern):
        jgn.ragged_inputs(**args)


def test_req_to_token_rows_must_match_without_pool_indices():
    starts, seq_lens, _, candidates = _batch(0)
    with pytest.raises(
        ValueError, match=r"req_to_token: expected 4 rows \(R from seq_lens\) without req_pool_indices"
    ):
        jgn.ragged_inputs(starts, seq_lens, candidates, req_to_token=np.zeros((6, 8), np.int32))
    with pytest.raises(TypeError, match="page_size: only with block_tables="):
        jgn.ragged_inputs(starts, seq_lens, candidates, req_to_token=np.zeros((4, 8), np.int32), page_size=4)
