"""pad_candidates / mask_holes / to_slots on GLM kpool-shaped rows."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jax_glm_nope as jgn
from jax_glm_nope.testing import glm_candidate_row

GROUPS, KPOOL = 512, 4


def kpool_row(rng, complete_pools, tail, missing=()):
    return glm_candidate_row(rng, complete_pools, tail, missing, GROUPS)


def expected_len(row):
    valid = np.nonzero(row >= 0)[0]
    return 0 if valid.size == 0 else int(valid[-1]) + 1


def test_pad_candidates_glm_rows():
    rng = np.random.default_rng(7)
    rows = [
        kpool_row(rng, 4000, 3),  # full row: 2048 + 3 tail
        kpool_row(rng, 10, 2),  # short context: 40 tokens + 2
        kpool_row(rng, 4000, 1, missing=(0, 1, 300, 511)),  # missing groups then a valid tail
        kpool_row(rng, 4000, 0, missing=tuple(range(500, 512))),  # missing groups at the end, no tail
        np.concatenate([np.full(2048, -1, np.int32), [9, 10, 11]]).astype(np.int32),  # tail only
        np.full(2051, -1, np.int32),  # all -1
        kpool_row(rng, 0, 2),  # context shorter than one pool
    ]
    indices = np.stack(rows)
    padded, lens = jax.jit(jgn.pad_candidates)(jnp.asarray(indices))
    padded, lens = np.asarray(padded), np.asarray(lens)
    assert padded.shape == (len(rows), 2176) and padded.dtype == np.int32 and lens.dtype == np.int32
    np.testing.assert_array_equal(padded[:, :2051], indices)  # no compaction
    assert (padded[:, 2051:] == -1).all()
    assert lens.tolist() == [expected_len(r) for r in rows]
    assert lens[0] == 2051 and lens[4] == 2051 and lens[5] == 0 and lens[1] == 10 * 4 + 2
    assert lens[2] == 2048 + 1  # the one-token tail after missing groups is kept
    assert lens[3] == 500 * 4


@pytest.mark.parametrize("width", [2051, 2112, 4096])
def test_pad_candidates_explicit_width(width):
    indices = jnp.asarray(np.arange(2 * 2051, dtype=np.int32).reshape(2, 2051))
    padded, lens = jgn.pad_candidates(indices, width)
    assert padded.shape == (2, width) and np.asarray(lens).tolist() == [2051, 2051]


def test_pad_candidates_rejects_narrow_width():
    with pytest.raises(ValueError, match="width: expected at least C=2051"):
        jgn.pad_candidates(jnp.zeros((1, 2051), jnp.int32), 2048)


def test_pad_candidates_default_widths():
    for c, w in ((1, 128), (128, 128), (129, 256), (2048, 2048), (2051, 2176)):
        assert jgn.pad_candidates(jnp.zeros((1, c), jnp.int32))[0].shape == (1, w)


def test_mask_holes():
    idx = jnp.asarray([[0, 5, 9, 10, -1, -5, 2**31 - 1]], jnp.int32)
    assert np.asarray(jax.jit(jgn.mask_holes, static_argnums=1)(idx, 10)).tolist() == [
        [0, 5, 9, -1, -1, -1, -1]
    ]


def test_to_slots_maps_positions_through_the_page_table():
    req_to_token = np.array([[100, 101, 102, -1], [200, 201, 202, 203]], np.int32)
    positions = np.array([[0, 2, -1, 3], [3, 0, 4, -1], [1, 1, 0, 2]], np.int32)
    token_req = np.array([0, 1, 5], np.int32)  # request 5 does not exist
    got = np.asarray(
        jax.jit(jgn.to_slots)(jnp.asarray(positions), jnp.asarray(req_to_token), jnp.asarray(token_req))
    )
    assert got.tolist() == [[100, 102, -1, -1], [203, 200, -1, -1], [-1, -1, -1, -1]]


@pytest.mark.parametrize("num_slots", [2**31, 2**31 + 5, 2**40, 10**30, np.int64(2**33)])
def test_mask_holes_past_the_int32_limit_keeps_every_non_negative_index(num_slots):
    idx = jnp.asarray([[0, 5, -1, -(2**31), 2**31 - 1, 2**31 - 2]], jnp.int32)
    got = np.asarray(jgn.mask_holes(idx, num_slots))
    assert got.tolist() == [[0, 5, -1, -1, 2**31 - 1, 2**31 - 2]]


def test_mask_holes_at_the_int32_limit():
    idx = jnp.asarray([[0, 2**31 - 1, 2**31 - 2, -1]], jnp.int32)
    assert np.asarray(jgn.mask_holes(idx, 2**31 - 1)).tolist() == [[0, -1, 2**31 - 2, -1]]
    assert np.asarray(jgn.mask_holes(idx, np.int64(3))).tolist() == [[0, -1, -1, -1]]


@pytest.mark.parametrize("num_slots", [10.0, "10", None, True, jnp.int32(10), np.array([10])])
def test_mask_holes_num_slots_must_be_an_int(num_slots):
    with pytest.raises(TypeError, match="^num_slots: expected a Python int"):
        jgn.mask_holes(jnp.zeros((1, 4), jnp.int32), num_slots)
