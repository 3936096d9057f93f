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
