"""What tests, scripts and benchmarks share to judge an implementation: the float64
reference on dequantized values, the one accuracy check with its two tolerances, and
the case generators (tame and wide-range data, hostile indices, poisoned rows).

numpy and ml_dtypes only; written from the contract (docs/semantics.md), not from the
package's jnp code. Only the byte offsets come from :mod:`jax_glm_nope.layout`.
"""

from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np

from . import layout
from .layout import HEAD_DIM, NUM_TILES, TILE

OUT_RTOL = 5e-3  # per-token relative L2 error of out over [H, 512]
LSE_TOL = 1e-2  # |lse - ref| <= LSE_TOL * max(1, |ref|)
FLOAT32_MAX = float(np.finfo(np.float32).max)


def quantize_f64(latent, fmt: layout.RowFormat = layout.COMPACT) -> np.ndarray:
    """The row format's quantization in numpy/ml_dtypes (the bit-exact oracle)."""
    x = np.asarray(latent, dtype=np.float32).reshape(-1, NUM_TILES, TILE)
    amax = np.max(np.abs(x), axis=-1, keepdims=True)
    scale = (amax / np.float32(layout.FP8_MAX)).astype(np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = np.where(scale == 0, 0.0, np.clip(x / np.where(scale == 0, 1, scale), -448.0, 448.0))
    codes = scaled.astype(np.float32).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
    rows = np.zeros((x.shape[0], fmt.bytes_per_token), np.uint8)
    rows[:, :HEAD_DIM] = codes.reshape(-1, HEAD_DIM)
    rows[:, layout.COMPACT.scales_offset : layout.COMPACT.scales_end] = (
        scale[..., 0].astype("<f4").view(np.uint8).reshape(-1, 16)
    )
    return rows


def dequantize_f64(rows) -> np.ndarray:
    """``[N, row_bytes]`` uint8 -> ``[N, 512]`` float64 (exact: e4m3 x fp32 fits)."""
    rows = np.ascontiguousarray(np.asarray(rows).reshape(-1, np.asarray(rows).shape[-1]))
    fmt = layout.COMPACT
    codes = rows[:, :HEAD_DIM].copy().view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    scales = rows[:, fmt.scales_offset : fmt.scales_end].copy().view("<f4").astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        values = codes.reshape(-1, NUM_TILES, TILE) * scales[:, :, None]
    return values.reshape(-1, HEAD_DIM)


def reference_f64(q, pool, indices, topk_lens, sm_scale, *, chunk: int = 16):
    """Sparse MLA in float64 over the dequantized rows: ``(out [T,H,512], lse [T,H])``.

    Empty tokens get 0 / -inf; a head whose query or any active row is non-finite gets
    NaN in both (the contract), computed here by letting IEEE arithmetic propagate it.
    """
    q = np.asarray(q, np.float64)
    pool = np.asarray(pool)
    pool = pool.reshape(-1, pool.shape[-1])
    indices = np.asarray(indices)
    num_tokens, num_heads, _ = q.shape
    num_slots = pool.shape[0]
    active = active_mask(indices, topk_lens, num_slots)
    used = np.unique(indices[active])
    values = np.zeros((num_slots, HEAD_DIM))
    if used.size:
        values[used] = dequantize_f64(pool[used])
    out = np.zeros((num_tokens, num_heads, HEAD_DIM))
    lse = np.full((num_tokens, num_heads), -np.inf)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        for start in range(0, num_tokens, chunk):
            sl = slice(start, start + chunk)
            act = active[sl]
            keys = values[np.where(act, indices[sl], 0)]  # [c, K, 512]
            scores = sm_scale * np.matmul(q[sl], keys.transpose(0, 2, 1))  # BLAS, not einsum
            scores = np.where(act[:, None, :], scores, -np.inf)
            peak = np.max(scores, axis=-1, keepdims=True)
            finite_peak = np.where(np.isfinite(peak), peak, 0.0)
            weights = np.where(act[:, None, :], np.exp(scores - finite_peak), 0.0)
            total = weights.sum(-1)
            keys = np.where(act[..., None], keys, 0.0)
            o = np.matmul(weights / np.where(total > 0, total, 1)[..., None], keys)
            l_ = np.where(total > 0, finite_peak[..., 0] + np.log(np.where(total > 0, total, 1)), -np.inf)
            bad = np.isnan(o).any(-1) | np.isnan(scores).any(-1) | ~np.isfinite(q[sl]).all(-1)
            bad &= act.any(-1)[:, None]
            out[sl] = np.where(bad[..., None], np.nan, o)
            lse[sl] = np.where(bad, np.nan, l_)
    return out, lse


def accuracy_errors(out, lse, ref_out, ref_lse):
    """``(out_err [T], lse_err [T, H])``: per-token relative L2 error of ``out`` over its
    finite heads, and ``|lse - ref| / max(1, |ref|)`` (0 where both are equal, inf
    included; inf where exactly one is non-finite)."""
    out = np.asarray(out, np.float64)
    lse = np.asarray(lse, np.float64)
    ref_out = np.asarray(ref_out, np.float64)
    ref_lse = np.asarray(ref_lse, np.float64)
    finite_head = ~np.isnan(ref_lse)
    diff = np.where(finite_head[..., None], out - ref_out, 0.0)
    den = np.where(finite_head[..., None], ref_out, 0.0)
    with np.errstate(invalid="ignore", over="ignore"):
        num = np.sqrt(np.sum(np.square(diff), axis=(1, 2)))
        den = np.sqrt(np.sum(np.square(den), axis=(1, 2)))
        out_err = np.where(den > 0, num / np.where(den > 0, den, 1), np.where(num > 0, np.inf, 0.0))
        same = (lse == ref_lse) | (np.isnan(lse) & np.isnan(ref_lse))
        # A true LSE beyond float32 must come back as +inf.
        overflow = np.isfinite(ref_lse) & (ref_lse > FLOAT32_MAX) & (lse == np.inf)
        lse_err = np.abs(lse - ref_lse) / np.maximum(1.0, np.abs(ref_lse))
        lse_err = np.where(same | overflow, 0.0, np.where(np.isfinite(lse_err), lse_err, np.inf))
    return out_err, lse_err


def assert_accurate(out, lse, ref_out, ref_lse, *, label: str = "") -> tuple[float, float]:
    """The accuracy contract: NaN exactly where the reference is NaN (per head), ``-inf``
    with ``out == 0`` exactly where nothing is active, then both bounds. Returns the worst
    ``(out_err, lse_err)``."""
    out = np.asarray(out, np.float64)
    lse = np.asarray(lse, np.float64)
    ref_out, ref_lse = np.asarray(ref_out, np.float64), np.asarray(ref_lse, np.float64)
    assert out.shape == ref_out.shape and lse.shape == ref_lse.shape, (out.shape, ref_out.shape)
    where = f" ({label})" if label else ""
    nan_ref = np.isnan(ref_lse)
    np.testing.assert_array_equal(np.isnan(lse), nan_ref, err_msg=f"lse NaN positions{where}")
    np.testing.assert_array_equal(np.isnan(out).any(-1), nan_ref, err_msg=f"out NaN heads{where}")
    empty = np.isneginf(ref_lse)
    np.testing.assert_array_equal(np.isneginf(lse), empty, err_msg=f"empty heads (lse = -inf){where}")
    assert (out[empty] == 0).all(), f"an empty head's out is not 0{where}"
    out_err, lse_err = accuracy_errors(out, lse, ref_out, ref_lse)
    worst_out, worst_lse = float(out_err.max(initial=0)), float(lse_err.max(initial=0))
    assert worst_out <= OUT_RTOL, (
        f"per-token relative L2 error {worst_out:.3e} > {OUT_RTOL}{where} (token {out_err.argmax()})"
    )
    assert worst_lse <= LSE_TOL, f"lse error {worst_lse:.3e} > {LSE_TOL}{where}"
    return worst_out, worst_lse


# ---------------------------------------------------------------------------- cases


@dataclasses.dataclass
class Case:
    """One sparse-MLA call's inputs, as numpy arrays (q is bfloat16)."""

    q: np.ndarray
    pool: np.ndarray  # 2-D or 3-D, as a caller passes it
    indices: np.ndarray
    topk_lens: np.ndarray | None
    sm_scale: float
    label: str = ""

    def reference(self):
        return reference_f64(
            self.q.astype(np.float32), self.pool, self.indices, self.topk_lens, self.sm_scale
        )


def hostile_indices(rng, num_tokens, num_candidates, num_slots):
    """Slot ids with holes at the start, middle and end, out-of-range ids (INT32 limits
    included), duplicates, rows of only holes, GLM-style runs of four -1 with a valid
    tail, and one active candidate in the last block only."""
    idx = rng.integers(1, num_slots, (num_tokens, num_candidates)).astype(np.int32)
    for t in range(num_tokens):
        kind = t % 7
        if kind == 0 and num_candidates > 4:
            idx[t, :4] = -1  # holes at the start
        elif kind == 1:
            idx[t, :] = -1  # only holes
        elif kind == 2 and num_candidates > 8:
            idx[t, num_candidates // 2 : num_candidates // 2 + 4] = -1  # missing pool group
            idx[t, -3:] = [num_slots, np.iinfo(np.int32).max, num_slots + 3]  # out of range
        elif kind == 3 and num_candidates > 2:
            idx[t, 1] = idx[t, 0]  # duplicates count once per occurrence
            idx[t, -1] = np.iinfo(np.int32).min
        elif kind == 4 and num_candidates > 5:
            idx[t, :-3] = -1  # tail-only row
        elif kind == 5 and num_candidates > 1:
            idx[t, :-1] = -1  # one active candidate, in the last block
    return idx


def glm_candidate_row(rng, complete_pools, tail, missing=(), num_groups=512, width=None):
    """One GLM kpool candidate row ``[expanded groups | tail | -1 ...]`` of ``width``
    (default ``4 * num_groups + 3``) columns: up to ``num_groups`` of the ``complete_pools``
    pools of 4 tokens, each expanded to its 4 slots, the groups listed in ``missing`` as runs
    of four -1, then ``tail`` tokens of the incomplete last pool (slots right after the
    complete pools)."""
    row = np.full(width or 4 * num_groups + 3, -1, np.int32)
    chosen = rng.choice(complete_pools, size=min(num_groups, complete_pools), replace=False)
    for group, pool_id in enumerate(chosen):
        if group not in missing:
            row[4 * group : 4 * group + 4] = pool_id * 4 + np.arange(4)
    start = 4 * len(chosen)
    row[start : start + tail] = complete_pools * 4 + np.arange(tail)
    return row


def glm_candidate_rows(rng, num_tokens, num_groups=512, tail=3, num_slots=1 << 20, missing=0.02):
    """``[num_tokens, 4 * num_groups + tail]`` rows of :func:`glm_candidate_row` over a pool of
    ``num_slots`` slots, each group missing with probability ``missing``."""
    complete = (num_slots - tail) // 4
    rows = [
        glm_candidate_row(
            rng,
            complete,
            tail,
            set(np.flatnonzero(rng.random(num_groups) < missing)),
            num_groups,
            4 * num_groups + tail,
        )
        for _ in range(num_tokens)
    ]
    return np.stack(rows) if rows else np.full((0, 4 * num_groups + tail), -1, np.int32)


def poison_row(fmt) -> np.ndarray:
    """A row whose codes are e4m3fn NaN and whose scales are Inf/NaN."""
    row = np.zeros(fmt.bytes_per_token, np.uint8)
    row[:HEAD_DIM] = 0x7F
    row[layout.COMPACT.scales_offset : layout.COMPACT.scales_end] = np.array(
        [np.inf, np.nan, -np.inf, np.nan], "<f4"
    ).view(np.uint8)
    return row


def active_mask(indices, topk_lens, num_slots):
    num_candidates = indices.shape[1]
    lens = np.full(len(indices), num_candidates) if topk_lens is None else np.asarray(topk_lens)
    return (np.arange(num_candidates)[None] < lens[:, None]) & (indices >= 0) & (indices < num_slots)


def poison_inactive(pool2d, indices, topk_lens):
    """Poison every row that no active candidate references, in place: slot 0, unreferenced
    rows and rows referenced only by candidates past ``topk_lens``."""
    keep = np.zeros(len(pool2d), bool)
    keep[indices[active_mask(indices, topk_lens, len(pool2d))]] = True
    pool2d[~keep] = poison_row(layout.row_format(pool2d.shape[1]))
    return pool2d


def random_latent(rng, num_rows, scale_range=(1e-3, 1e3)) -> np.ndarray:
    """Latent rows ``[num_rows, 512]`` float32 whose tiles span several orders of magnitude."""
    x = rng.standard_normal((num_rows, HEAD_DIM)).astype(np.float32)
    lo, hi = np.log(scale_range[0]), np.log(scale_range[1])
    tile_scale = np.exp(rng.uniform(lo, hi, (num_rows, NUM_TILES, 1))).astype(np.float32)
    return (x.reshape(num_rows, NUM_TILES, TILE) * tile_scale).reshape(num_rows, HEAD_DIM)


def _latents(rng, num_rows, wide: bool):
    x = rng.standard_normal((num_rows, HEAD_DIM)).astype(np.float32)
    if not wide:
        return x
    rows = np.exp(rng.normal(0.0, 1.5, (num_rows, 1, 1)))  # per-row magnitudes e^N(0, 1.5)
    tiles = np.exp2(rng.uniform(-12, 12, (num_rows, NUM_TILES, 1)))  # tile ratios up to 2^24 ...
    tiles[rng.random(num_rows) < 0.75] = 1.0  # ... in a quarter of the rows
    return (
        (x.reshape(num_rows, NUM_TILES, TILE) * rows * tiles).reshape(num_rows, HEAD_DIM).astype(np.float32)
    )


def make_case(
    seed: int,
    num_tokens: int,
    num_heads: int,
    num_candidates: int,
    *,
    num_slots: int = 512,
    fmt: layout.RowFormat = layout.COMPACT,
    page_size: int | None = None,
    wide: bool = False,
    with_lens: bool = False,
    sm_scale: float | None = None,
    data: str | None = None,
    spread: float | None = None,
    hostile: bool = True,
) -> Case:
    """A hostile case: holes, out-of-range ids and duplicates in ``indices``
    (:func:`hostile_indices`; ``hostile=False``: valid ids only), every unreferenced row
    poisoned. ``data`` (default ``"wide"`` if ``wide`` else ``"tame"``) is one of
    :data:`DATA_KINDS`:

    - ``"tame"``: std-1 latents and queries;
    - ``"wide"``: per-row magnitudes spread by e^N(0, 1.5) (e^+-4 and beyond), tile-scale
      ratios up to 2^24 in a row, negative and zero scales, large-norm query heads,
      attention-sink candidates and all-equal scores: score spreads of hundreds of nats
      inside one token;
    - ``"mixed"``: rows e^U(-12, 0), and in every block of 64 candidates of a token one row
      e^12 larger, anti-aligned with every query (it scores lowest) while a small row
      dominates the softmax: a block's largest row is not its dominant candidate. ``spread``
      (default 10) is the mean spread of the ordinary rows' scores, in nats;
    - ``"offset"``: scores that share one large common offset: every query is nearly
      parallel to one direction ``mu``, every key is ``mu`` plus a variation orthogonal to
      all the queries, of the same norm. The scores differ only by the codes' rounding,
      the values as much as they agree. ``spread`` (default 1000) is the mean score, nats.

    ``sm_scale`` given overrides the one ``spread`` calibrates."""
    data = ("wide" if wide else "tame") if data is None else data
    if data not in DATA_KINDS:
        raise ValueError(f"data: expected one of {DATA_KINDS}, got {data!r}")
    rng = np.random.default_rng(seed)
    if hostile:
        indices = hostile_indices(rng, num_tokens, num_candidates, num_slots)
    else:
        indices = np.stack([rng.permutation(num_slots)[:num_candidates] for _ in range(num_tokens)])
        indices = indices.reshape(num_tokens, num_candidates).astype(np.int32)
    topk_lens = None
    if with_lens:
        topk_lens = rng.integers(-2, num_candidates + 3, num_tokens).astype(np.int32)
    q = rng.standard_normal((num_tokens, num_heads, HEAD_DIM)).astype(np.float32)
    if data == "mixed":
        q, latent, big = _mixed(rng, q, indices, topk_lens, num_slots)
    elif data == "offset":
        q, latent = _common_offset(rng, q, num_slots)
    else:
        latent = _latents(rng, num_slots, data == "wide")
    pool = quantize_f64(latent, fmt)
    wide = data == "wide"
    if wide:
        scales = pool[:, 512:528].copy().view("<f4")
        flip = rng.random(scales.shape) < 0.1  # negative scales
        scales[flip] *= -1
        scales[rng.random(scales.shape) < 0.03] = 0.0  # zero tiles
        pool[:, 512:528] = scales.view(np.uint8)
        q[:, ::3] *= 8.0  # large-norm heads
        for t in range(0, num_tokens, 5):  # attention sinks: a row aligned with head 0
            slot = indices[t, 0]
            if 0 <= slot < num_slots:
                pool[slot] = quantize_f64(q[t, 0][None] * 0.05, fmt)[0]  # ~100 nats above
        if num_tokens > 6:
            q[6, :2] = 0.0  # all-equal scores
    pool = poison_inactive(pool, indices, topk_lens)
    q16 = q.astype(ml_dtypes.bfloat16)
    if sm_scale is None:
        if data == "mixed":
            sm_scale = _calibrated(q16, pool, indices, topk_lens, spread or 10.0, "spread", exclude=big)
        elif data == "offset":
            sm_scale = _calibrated(q16, pool, indices, topk_lens, spread or 1000.0, "mean")
        else:
            sm_scale = 1 / 16 if wide else float(rng.uniform(0.02, 0.1))
    if page_size is not None:
        pages = -(-num_slots // page_size)
        extra = np.broadcast_to(poison_row(fmt), (pages * page_size - num_slots, fmt.bytes_per_token))
        pool = np.concatenate([pool, extra]).reshape(pages, page_size, fmt.bytes_per_token)
    label = f"seed={seed} T={num_tokens} H={num_heads} K={num_candidates} {data}"
    if spread is not None:
        label += f" {spread:g} nats"
    return Case(q16, pool, indices, topk_lens, float(sm_scale), label)


DATA_KINDS = ("tame", "wide", "mixed", "offset")
BLOCK = 64  # candidates per loop step of the kernels: the unit the "mixed" data is built on


def _mixed(rng, q, indices, topk_lens, num_slots):
    """Queries, latents and the set of large slots of the ``"mixed"`` data (make_case)."""
    num_tokens, num_candidates = indices.shape
    direction = np.sign(rng.standard_normal(HEAD_DIM)).astype(np.float32)
    latent = rng.standard_normal((num_slots, HEAD_DIM)) * np.exp(rng.uniform(-12, 0, (num_slots, 1)))
    active = active_mask(indices, topk_lens, num_slots)
    big = set()
    for t in range(num_tokens):
        for start in range(0, num_candidates, BLOCK):
            columns = np.flatnonzero(active[t, start : start + BLOCK]) + start
            if columns.size:
                big.add(int(indices[t, rng.choice(columns)]))
    big = np.array(sorted(big), np.int64)
    magnitude = np.abs(rng.standard_normal((big.size, HEAD_DIM)))
    latent[big] = -magnitude * direction * np.exp(12.0)
    # Every query leans towards the direction the large rows point away from.
    q = np.abs(q) * direction * 0.5 + rng.standard_normal(q.shape)
    return q.astype(np.float32), latent.astype(np.float32), big


def _common_offset(rng, q, num_slots):
    """Queries and latents of the ``"offset"`` data (make_case)."""
    mu = rng.standard_normal(HEAD_DIM)
    basis = rng.standard_normal((16, HEAD_DIM))  # every query is mu + a mix of these
    mix = rng.standard_normal((*q.shape[:2], 16)) / 4.0
    q = mu + 0.05 * (mix @ basis)
    span, _ = np.linalg.qr(np.concatenate([mu[None], basis]).T)  # [512, 17]
    noise = rng.standard_normal((num_slots, HEAD_DIM))
    noise -= (noise @ span) @ span.T
    noise *= np.linalg.norm(mu) / np.linalg.norm(noise, axis=1, keepdims=True)
    return q.astype(np.float32), (mu + noise).astype(np.float32)


def _calibrated(q16, pool, indices, topk_lens, target, what, exclude=()):
    """The ``sm_scale`` that makes the mean over (token, head) of the active candidates'
    score ``"spread"`` (max - min, ``exclude``'s slots left out) or ``"mean"`` (mean
    score) equal ``target`` nats."""
    q = q16.astype(np.float64)
    active = active_mask(indices, topk_lens, len(pool))
    measures = []
    for t in range(len(indices)):
        slots = indices[t][active[t]]
        slots = slots[~np.isin(slots, exclude)]
        if slots.size:
            raw = q[t] @ dequantize_f64(pool[slots]).T  # [H, n]
            measures.append(raw.max(1) - raw.min(1) if what == "spread" else raw.mean(1))
    measure = float(np.mean(np.concatenate(measures))) if measures else 1.0
    return target / measure if measure > 0 else 1.0


# ------------------------------------------------------------ extreme ranges

SCORE_ROUNDING = 2.0**-16  # allowed score error per unit of sm_scale * sum_i |q_i k_i| (float32)


def score_magnitude(case: Case) -> np.ndarray:
    """``[T, H]``: the largest ``|sm_scale| * sum_i |q_i k_i|`` over each token's active
    candidates (0 where none): the magnitude of a score's terms, which bounds what float32
    rounding can leave of a score whose terms cancel."""
    q = np.abs(case.q.astype(np.float64))
    pool = np.asarray(case.pool).reshape(-1, np.asarray(case.pool).shape[-1])
    active = active_mask(case.indices, case.topk_lens, len(pool))
    out = np.zeros(q.shape[:2])
    for t in range(q.shape[0]):
        slots = case.indices[t][active[t]]
        if slots.size:
            keys = np.abs(dequantize_f64(pool[slots]))
            with np.errstate(over="ignore"):
                out[t] = abs(case.sm_scale) * np.max(q[t] @ keys.T, axis=-1)
    return out


def extreme_case(kind: str, seed: int = 0) -> Case:
    """A small call at an edge of the float32 range (docs/semantics.md, "Ranges"):

    - ``large_sm_scale``: std-1 rows and queries, ``sm_scale = 1e35`` (lse ~1e36);
    - ``bf16_max_queries``: queries at the bfloat16 maximum, ``sm_scale = 1e-4``;
    - ``lse_near_float32_max``: ``sm_scale`` chosen so the largest lse is 3e38, finite;
    - ``lse_overflows``: ``sm_scale = 3.4e38``, every lse beyond float32 (+inf);
    - ``tiny_rows``: rows of magnitude 1e-34 (normal values, normal scales);
    - ``tiny_rows_large_sm_scale``: rows of 1e-32, ``sm_scale = 1e34`` (spreads of ~1000 nats);
    - ``rows_near_float32_max``: rows ``quantize`` writes up to 3e38, queries of 1e-36;
    - ``cancelling_rows_near_float32_max``: +-3e38 tiles whose terms cancel exactly, so
      the true score is 0 and float32 can only bound it (:func:`score_magnitude`).

    Every row no candidate references is poisoned (slot 0 included).
    """
    rng = np.random.default_rng(seed)
    num_tokens, num_heads, num_slots = 2, 8, 80
    num_candidates = 64
    indices = np.stack([rng.permutation(np.arange(1, num_slots))[:num_candidates] for _ in range(num_tokens)])
    indices = indices.astype(np.int32)
    indices[1, -3:] = [-1, num_slots, np.iinfo(np.int32).min]  # holes stay holes
    q = rng.standard_normal((num_tokens, num_heads, HEAD_DIM)).astype(np.float32)
    latent = rng.standard_normal((num_slots, HEAD_DIM)).astype(np.float32)
    sm_scale = 1 / 16
    if kind == "large_sm_scale":
        sm_scale = 1e35
    elif kind == "bf16_max_queries":
        q = np.full_like(q, float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)) * np.sign(q)
        sm_scale = 1e-4
    elif kind in ("lse_near_float32_max", "lse_overflows"):
        keys = dequantize_f64(quantize_f64(latent))
        peak = np.max(np.abs(q.astype(ml_dtypes.bfloat16).astype(np.float64) @ keys.T))
        sm_scale = 3e38 / peak if kind == "lse_near_float32_max" else 3.4e38
    elif kind == "tiny_rows":
        latent *= np.float32(1e-34) / np.abs(latent).max()
    elif kind == "tiny_rows_large_sm_scale":
        latent *= np.float32(1e-32) / np.abs(latent).max()
        sm_scale = 1e34
    elif kind == "rows_near_float32_max":
        latent *= np.float32(3e38) / np.abs(latent).max()
        q *= np.float32(1e-36)
    elif kind == "cancelling_rows_near_float32_max":
        latent = np.ones_like(latent)
        latent[::2, : HEAD_DIM // 2] = 3e38  # even rows: +3e38 in tiles 0-1 ...
        latent[::2, HEAD_DIM // 2 :] = -3e38  # ... and -3e38 in tiles 2-3
        q = np.ones_like(q)  # q . k = 0 exactly for the even rows, 512 for the others
    else:
        raise ValueError(f"kind: unknown extreme case {kind!r}")
    pool = poison_inactive(quantize_f64(latent), indices, None)
    label = f"{kind} seed={seed}"
    return Case(q.astype(ml_dtypes.bfloat16), pool, indices, None, float(sm_scale), label)


EXTREME_CASES = (
    "large_sm_scale",
    "bf16_max_queries",
    "lse_near_float32_max",
    "lse_overflows",
    "tiny_rows",
    "tiny_rows_large_sm_scale",
    "rows_near_float32_max",
    "cancelling_rows_near_float32_max",
)


def assert_extreme(out, lse, case: Case, score_limit: float = FLOAT32_MAX) -> None:
    """The contract on :func:`extreme_case` inputs: never NaN (every input is finite); where
    the true lse passes ``score_limit`` (the largest score the implementation represents,
    in nats: the float32 maximum, less for one that keeps scores in log2 units), ``lse =
    +inf``; elsewhere the accuracy bound, with the lse error allowed to grow by
    ``SCORE_ROUNDING`` x :func:`score_magnitude` (what float32 can say of a score whose
    terms cancel) and ``out`` checked where that allowance is below one nat."""
    out = np.asarray(out, np.float64)
    lse = np.asarray(lse, np.float64)
    ref_out, ref_lse = case.reference()
    where = f" ({case.label})"
    assert not np.isnan(out).any() and not np.isnan(lse).any(), f"NaN from finite input{where}"
    empty = np.isneginf(ref_lse)
    np.testing.assert_array_equal(np.isneginf(lse), empty, err_msg=f"empty heads{where}")
    overflow = ref_lse > min(score_limit, FLOAT32_MAX)
    assert (lse[overflow] == np.inf).all(), f"lse beyond {score_limit:.3e} is not +inf{where}"
    rounding = SCORE_ROUNDING * score_magnitude(case)
    bound = LSE_TOL * np.maximum(1.0, np.abs(ref_lse)) + rounding
    ok = ~overflow & ~empty
    worst = np.max(np.where(ok, np.abs(lse - ref_lse) - bound, -np.inf), initial=-np.inf)
    assert worst <= 0, f"lse error beyond the bound by {worst:.3e}{where}"
    tokens = ~(overflow | (rounding > 1.0)).any(axis=1)
    if tokens.any():
        out_err, _ = accuracy_errors(out[tokens], lse[tokens], ref_out[tokens], ref_lse[tokens])
        assert out_err.max() <= OUT_RTOL, f"per-token relative L2 error {out_err.max():.3e}{where}"
