"""Hostile sparse-MLA cases shared by the backend tests (seed per case)."""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np
from numpy_ref import hostile_indices, hostile_pool, np_sparse_mla

import jax_glm_nope as jgn

OUT_RTOL = 5e-3  # SPEC 3: per-token relative L2 error of out
LSE_ATOL = 1e-2  # SPEC 3: |lse - ref|


@dataclasses.dataclass
class Case:
    q: jnp.ndarray
    pool: jnp.ndarray  # as the caller passes it (2-D or 3-D)
    indices: jnp.ndarray
    topk_lens: jnp.ndarray | None
    sm_scale: float

    @property
    def pool2d(self):
        return np.asarray(self.pool).reshape(-1, self.pool.shape[-1])


def make_case(
    seed,
    num_tokens,
    num_heads,
    num_candidates,
    *,
    num_slots=300,
    fmt=jgn.COMPACT,
    page_size=None,
    with_lens=False,
):
    rng = np.random.default_rng(seed)
    indices = hostile_indices(rng, num_tokens, num_candidates, num_slots)
    topk_lens = None
    if with_lens:
        topk_lens = rng.integers(-2, num_candidates + 3, num_tokens).astype(np.int32)
        limit = np.clip(topk_lens, 0, num_candidates)
        referenced = [i for t in range(num_tokens) for i in indices[t, : limit[t]]]
    else:
        referenced = indices.ravel()
    pool = hostile_pool(rng, num_slots, fmt, referenced)
    if page_size is not None:
        pages = -(-num_slots // page_size)
        extra = hostile_pool(rng, pages * page_size - num_slots, fmt, [])
        pool = np.concatenate([pool, extra]).reshape(pages, page_size, fmt.bytes_per_token)
    q = (rng.standard_normal((num_tokens, num_heads, 512)) * 0.5).astype(np.float32)
    return Case(
        q=jnp.asarray(q).astype(jnp.bfloat16),
        pool=jnp.asarray(pool),
        indices=jnp.asarray(indices),
        topk_lens=None if topk_lens is None else jnp.asarray(topk_lens),
        sm_scale=float(rng.uniform(0.02, 0.1)),
    )


def paged(pool, page_size):
    """A 2-D pool as ``[pages, page_size, row_bytes]``, the last page padded with zero rows."""
    row_bytes = pool.shape[-1]
    pad = np.zeros((-len(pool) % page_size, row_bytes), np.uint8)
    return np.concatenate([pool, pad]).reshape(-1, page_size, row_bytes)


def assert_close_per_token(out, lse, ref_out, ref_lse):
    """SPEC 3 with the error taken over each token's whole ``[H, 512]`` output: no NaN,
    ``-inf`` exactly where the reference has it, ``|lse - ref| <= LSE_ATOL``, relative L2
    error ``<= OUT_RTOL``, and exactly 0 for a token with nothing active."""
    out, lse = np.asarray(out, np.float64), np.asarray(lse, np.float64)
    ref_out, ref_lse = np.asarray(ref_out, np.float64), np.asarray(ref_lse, np.float64)
    assert out.shape == ref_out.shape and lse.shape == ref_lse.shape
    assert not np.isnan(out).any() and not np.isnan(lse).any()
    np.testing.assert_array_equal(np.isneginf(lse), np.isneginf(ref_lse))
    finite = np.isfinite(ref_lse)
    np.testing.assert_allclose(lse[finite], ref_lse[finite], rtol=0, atol=LSE_ATOL)
    num = np.linalg.norm((out - ref_out).reshape(len(out), -1), axis=1)
    den = np.linalg.norm(ref_out.reshape(len(out), -1), axis=1)
    empty = den == 0
    assert np.all(num[empty] == 0), np.flatnonzero(num[empty])  # nothing active: exactly 0
    rel = num[~empty] / den[~empty]
    assert rel.size == 0 or rel.max() <= OUT_RTOL, f"max per-token relative L2 error {rel.max():.2e}"


def reference_of(case):
    lens = None if case.topk_lens is None else np.asarray(case.topk_lens)
    q = np.asarray(case.q.astype(jnp.float32))
    return np_sparse_mla(q, case.pool2d, np.asarray(case.indices), lens, case.sm_scale)


def assert_matches_reference(out, lse, case, ref=None):
    out_ref, lse_ref = reference_of(case) if ref is None else ref
    out = np.asarray(jnp.asarray(out).astype(jnp.float32), np.float64)
    lse = np.asarray(lse, np.float64)
    assert out.shape == out_ref.shape and lse.shape == lse_ref.shape
    assert not np.isnan(out).any() and not np.isnan(lse).any()
    empty = np.isneginf(lse_ref)
    np.testing.assert_array_equal(np.isneginf(lse), empty)  # -inf exactly where nothing is active
    assert (out[empty] == 0).all()
    np.testing.assert_allclose(lse[~empty], lse_ref[~empty], rtol=0, atol=LSE_ATOL)
    num = np.linalg.norm(out - out_ref, axis=-1)
    den = np.maximum(np.linalg.norm(out_ref, axis=-1), 1e-30)
    rel = np.where(empty, 0.0, num / den)
    assert rel.max() <= OUT_RTOL, f"max per-token relative L2 error {rel.max():.2e}"
