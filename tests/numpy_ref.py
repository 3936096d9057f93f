"""Independent numpy/ml_dtypes references and hostile-input generators for the tests.

Written from SPEC 1-3, not from the package's jnp code; only the byte offsets come
from ``jax_glm_nope.layout`` (the one home of the layout).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from jax_glm_nope import layout
from jax_glm_nope.layout import HEAD_DIM, NUM_TILES, TILE


def np_quantize(latent, fmt: layout.RowFormat) -> np.ndarray:
    """SPEC 1 quantization in numpy, one tile at a time."""
    x = np.asarray(latent, dtype=np.float32)
    out = np.zeros((x.shape[0], fmt.bytes_per_token), np.uint8)
    for t in range(x.shape[0]):
        scales = np.zeros(NUM_TILES, np.float32)
        codes = np.zeros(HEAD_DIM, ml_dtypes.float8_e4m3fn)
        for tile in range(NUM_TILES):
            part = x[t, tile * TILE : (tile + 1) * TILE]
            amax = np.float32(np.max(np.abs(part)))
            scale = np.float32(amax / np.float32(448.0))
            scales[tile] = scale
            if scale != 0:
                scaled = np.clip(part / scale, -448.0, 448.0).astype(np.float32)
                codes[tile * TILE : (tile + 1) * TILE] = scaled.astype(ml_dtypes.float8_e4m3fn)
        out[t, fmt.codes_offset : fmt.codes_offset + HEAD_DIM] = codes.view(np.uint8)
        out[t, fmt.scales_offset : fmt.scales_end] = scales.astype("<f4").view(np.uint8)
    return out


def np_dequantize(rows) -> np.ndarray:
    """``[N, row_bytes]`` uint8 -> ``[N, 512]`` float64 (exact: e4m3 x fp32 fits)."""
    rows = np.asarray(rows)
    fmt = layout.COMPACT
    codes = rows[:, fmt.codes_offset : fmt.codes_offset + HEAD_DIM].copy().view(ml_dtypes.float8_e4m3fn)
    scales = rows[:, fmt.scales_offset : fmt.scales_end].copy().view("<f4").astype(np.float64)
    values = codes.astype(np.float64).reshape(-1, NUM_TILES, TILE) * scales[:, :, None]
    return values.reshape(-1, HEAD_DIM)


def np_sparse_mla(q, pool2d, indices, topk_lens, sm_scale):
    """Naive per-token float64 loop over active candidates (SPEC 3)."""
    q = np.asarray(q, np.float64)
    pool2d, indices = np.asarray(pool2d), np.asarray(indices)
    num_tokens, num_heads, _ = q.shape
    num_slots = pool2d.shape[0]
    out = np.zeros((num_tokens, num_heads, HEAD_DIM))
    lse = np.full((num_tokens, num_heads), -np.inf)
    for t in range(num_tokens):
        limit = indices.shape[1] if topk_lens is None else int(topk_lens[t])
        active = [int(i) for i in indices[t, : max(0, limit)] if 0 <= i < num_slots]
        if not active:
            continue
        keys = np_dequantize(pool2d[active])  # [n, 512]
        scores = sm_scale * (q[t] @ keys.T)  # [H, n]
        peak = scores.max(axis=1, keepdims=True)
        weights = np.exp(scores - peak)
        total = weights.sum(axis=1, keepdims=True)
        out[t] = (weights / total) @ keys
        lse[t] = (peak + np.log(total))[:, 0]
    return out, lse


def random_latent(rng, num_rows, scale_range=(1e-3, 1e3)):
    """Latent rows whose tiles span several orders of magnitude."""
    x = rng.standard_normal((num_rows, HEAD_DIM)).astype(np.float32)
    lo, hi = np.log(scale_range[0]), np.log(scale_range[1])
    tile_scale = np.exp(rng.uniform(lo, hi, (num_rows, NUM_TILES, 1))).astype(np.float32)
    return (x.reshape(num_rows, NUM_TILES, TILE) * tile_scale).reshape(num_rows, HEAD_DIM)


def poison_row(fmt) -> np.ndarray:
    """A row whose codes are e4m3fn NaN and whose scales are Inf/NaN."""
    row = np.zeros(fmt.bytes_per_token, np.uint8)
    row[:HEAD_DIM] = 0x7F  # e4m3fn NaN codes
    row[layout.COMPACT.scales_offset : layout.COMPACT.scales_end] = np.array(
        [np.inf, np.nan, -np.inf, np.nan], "<f4"
    ).view(np.uint8)
    return row


def poison_unreferenced(pool, referenced) -> np.ndarray:
    """``pool [num_slots, row_bytes]`` with every slot not in ``referenced`` poisoned, in place."""
    num_slots = pool.shape[0]
    poison = np.ones(num_slots, bool)
    ids = np.asarray(referenced, dtype=np.int64).ravel()
    poison[ids[(ids >= 0) & (ids < num_slots)]] = False
    pool[poison] = poison_row(layout.row_format(pool.shape[1]))
    return pool


def hostile_pool(rng, num_slots, fmt, referenced):
    """A pool of random valid rows; every slot not in ``referenced`` holds NaN/Inf bytes."""
    pool = np_quantize(random_latent(rng, num_slots, (0.1, 10.0)), fmt)
    return poison_unreferenced(pool, referenced)


def hostile_indices(rng, num_tokens, num_candidates, num_slots):
    """Slot ids with holes at the start, middle and end, out-of-range ids, duplicates,
    rows of only holes, and GLM-style runs of four -1 followed by a valid tail."""
    idx = rng.integers(1, num_slots, (num_tokens, num_candidates)).astype(np.int32)
    for t in range(num_tokens):
        kind = t % 6
        if kind == 0 and num_candidates > 4:
            idx[t, :4] = -1  # holes at the start
        elif kind == 1:
            idx[t, :] = -1  # only holes
        elif kind == 2 and num_candidates > 8:
            idx[t, num_candidates // 2 : num_candidates // 2 + 4] = -1  # missing pool group
            idx[t, -3:] = num_slots + rng.integers(0, 5, 3)  # out of range at the end
        elif kind == 3 and num_candidates > 2:
            idx[t, 1] = idx[t, 0]  # duplicates count once per occurrence
            idx[t, -1] = -7
        elif kind == 4 and num_candidates > 5:
            idx[t, :-3] = -1  # tail-only row
    return idx
