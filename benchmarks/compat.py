"""SPEC 3's float64 reference, its accuracy bound and GLM's candidate rows, from
``jax_glm_nope.testing``.

Until that module is in the package this file holds private copies behind the same
names; once it is, the ``except`` branch goes and this file is a plain import.
"""

from __future__ import annotations

import numpy as np

from jax_glm_nope.layout import HEAD_DIM, NUM_TILES, TILE

try:
    from jax_glm_nope.testing import LSE_TOL, OUT_RTOL, glm_candidate_rows, reference_f64, spec3_errors
except ImportError:  # until jax_glm_nope.testing lands
    import ml_dtypes

    OUT_RTOL = 5e-3  # per-token relative L2 error of out over [H, 512]
    LSE_TOL = 1e-2  # |lse - ref| <= LSE_TOL * max(1, |ref|)

    def _dequantize_f64(rows) -> np.ndarray:
        rows = np.ascontiguousarray(rows)
        codes = rows[:, :HEAD_DIM].copy().view(ml_dtypes.float8_e4m3fn).astype(np.float64)
        scales = rows[:, HEAD_DIM : HEAD_DIM + 4 * NUM_TILES].copy().view("<f4").astype(np.float64)
        return (codes.reshape(-1, NUM_TILES, TILE) * scales[:, :, None]).reshape(-1, HEAD_DIM)

    def reference_f64(q, pool, indices, topk_lens, sm_scale):
        """Sparse MLA in float64 over the dequantized rows of ``pool [num_slots, row_bytes]``:
        ``(out [T, H, 512], lse [T, H])``, one token at a time (finite inputs only)."""
        q, indices = np.asarray(q, np.float64), np.asarray(indices)
        pool = np.asarray(pool)
        num_tokens, num_heads, _ = q.shape
        out = np.zeros((num_tokens, num_heads, HEAD_DIM))
        lse = np.full((num_tokens, num_heads), -np.inf)
        columns = np.arange(indices.shape[1])
        for t in range(num_tokens):
            limit = indices.shape[1] if topk_lens is None else int(topk_lens[t])
            row = indices[t]
            active = row[(columns < limit) & (row >= 0) & (row < len(pool))]
            if len(active) == 0:
                continue
            keys = _dequantize_f64(pool[active])
            scores = sm_scale * (q[t] @ keys.T)
            peak = scores.max(axis=1, keepdims=True)
            weights = np.exp(scores - peak)
            total = weights.sum(axis=1, keepdims=True)
            out[t] = (weights / total) @ keys
            lse[t] = (peak + np.log(total))[:, 0]
        return out, lse

    def spec3_errors(out, lse, ref_out, ref_lse):
        """``(out_err [T], lse_err [T, H])``: per-token relative L2 error of ``out`` and
        ``|lse - ref| / max(1, |ref|)``; inf wherever the output is not finite."""
        out = np.asarray(out, np.float64).reshape(len(ref_out), -1)
        ref_out = np.asarray(ref_out, np.float64).reshape(len(ref_out), -1)
        num = np.linalg.norm(out - ref_out, axis=1)
        den = np.linalg.norm(ref_out, axis=1)
        out_err = np.where(den > 0, num / np.where(den > 0, den, 1.0), num)
        lse, ref_lse = np.asarray(lse, np.float64), np.asarray(ref_lse, np.float64)
        with np.errstate(invalid="ignore"):
            lse_err = np.abs(lse - ref_lse) / np.maximum(1.0, np.abs(ref_lse))
        lse_err = np.where(lse == ref_lse, 0.0, lse_err)  # both -inf: an empty token
        return np.nan_to_num(out_err, nan=np.inf), np.nan_to_num(lse_err, nan=np.inf)

    def glm_candidate_rows(rng, num_tokens, num_groups=512, tail=3, num_slots=1 << 20, missing=0.02):
        """GLM indexer rows ``[expanded groups | tail | -1 ...]``, ``4 * num_groups + tail``
        columns: each selected pool of 4 tokens is 4 consecutive slots, a missing group
        (probability ``missing``) a run of four -1, then ``tail`` tail tokens."""
        pools = rng.integers(0, num_slots // 4, (num_tokens, num_groups))
        slots = pools[:, :, None] * 4 + np.arange(4)
        slots[rng.random((num_tokens, num_groups)) < missing] = -1
        tails = rng.integers(0, num_slots, (num_tokens, tail))
        return np.concatenate([slots.reshape(num_tokens, -1), tails], axis=1).astype(np.int32)


__all__ = ["LSE_TOL", "OUT_RTOL", "glm_candidate_rows", "reference_f64", "spec3_errors"]
