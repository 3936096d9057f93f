"""The Pallas (Triton lowering) kernel: sparse MLA over gathered FP8 rows.

One program per (head block, candidate split, token). It loads the token's queries
once (as fp16, exactly scaled by a power of two), then walks its candidate range
``block_k`` rows at a time:

1. gather ``block_k`` rows of the pool by pointer arithmetic (``row * row_bytes +
   column``); holes, out-of-range slots and columns past ``topk_lens`` are masked
   loads, so their bytes are never read (slot 0 may hold NaN);
2. per 128-wide tile ``c``: ``scores += (q_c . codes_c^T) * unit_scale_c`` -- the e4m3
   codes are exact in fp16, and each tile's fp32 scale, in units of the power of two
   above its row's largest scale, multiplies the 128-wide partial score instead of
   every element; that power of two, the queries' and ``sm_scale`` come back as one
   exponent per (head, candidate), applied in two exact factors;
3. an online softmax in base 2, halved (``scores = nats * log2(e) / 2``: every finite
   natural-log lse fits float32);
4. per tile: ``acc_c += (p * unit_scale_c) . codes_c`` -- the value-side scale is folded
   into the probabilities (normalised per head before the fp16 conversion); ``acc_c``
   is a running weighted mean in units of a per-head power of two, scaled back once.

With ``Schedule.prefetch`` step ``i + 1`` is gathered while step ``i`` computes.
Each program writes its range's normalised output and natural-log LSE; with one split
those are final, otherwise ``ops.py`` merges the splits exactly. No atomics: the
same inputs give the same bits. Design: docs/pallas.md; times: docs/h200_results.md.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as plgpu

from ...candidates import counts_every_candidate, valid_slots
from ...layout import COMPACT, HEAD_DIM, NUM_TILES, SCALE_BYTES, TILE
from ...mesh_axes import same_varying_axes, type_keywords
from ..numerics import (
    FLOAT32_MAX,
    MAX_EXPONENT,
    MIN_EXPONENT,
    exp2i,
    exponent_field,
    power_of_two_exponent,
    scale_by_power_of_two,
    split_float,
)
from .schedule import Schedule, split_results

LOG2E = math.log2(math.e)
LN2 = math.log(2.0)
MMA_DTYPE = jnp.float16  # operands of both matrix products (see _row_codes)
# Scores are kept as nats * log2(e) / 2: exp2 is one instruction, and the halving keeps
# every score whose lse is finite in float32 (up to 3.4e38 nats) inside the float32 range.
SCORE_UNITS = LOG2E / 2
NO_EXPONENT = -(2**20)  # the running value exponent of a head with nothing accumulated yet


def _gather(pool_ref, rows, active, start: int, width: int):
    """Bytes ``[start, start + width)`` of each of ``rows``: ``[block_k, width]`` uint8.

    Pointer arithmetic (``row * row_bytes + column``, 64-bit for pools past 2 GiB:
    ``offsets.py``); rows that are not ``active`` are masked loads, never read, and come
    back as 0. Both indexers are int arrays (the Pallas interpreter cannot mix them with
    slices).
    """
    columns = start + lax.iota(jnp.int32, width)
    return plgpu.load(pool_ref.at[rows[:, None], columns[None, :]], mask=active[:, None], other=0)


def _dot(a, b, *, trans_b: bool = False):
    """``a @ b`` (or ``a @ b.T``) with float32 accumulation: one ``tl.dot``."""
    contract = ((1,), (1,)) if trans_b else ((1,), (0,))
    return lax.dot_general(a, b, (contract, ((), ())), preferred_element_type=jnp.float32)


def _row_scales(pool_ref, rows, active):
    """``[block_k]`` rows -> ``NUM_TILES`` float32 ``[block_k]`` scales (0 where inactive)."""
    shifts = lax.iota(jnp.int32, SCALE_BYTES).astype(jnp.uint32) * 8  # byte b -> bits [8b, 8b+8)
    scales = []
    for tile in range(NUM_TILES):
        start = COMPACT.scales_offset + tile * SCALE_BYTES
        raw = _gather(pool_ref, rows, active, start, SCALE_BYTES)
        # The bytes never overlap; dtype=uint32 keeps the word 32-bit under JAX_ENABLE_X64.
        word = jnp.sum(raw.astype(jnp.uint32) << shifts[None, :], axis=1, dtype=jnp.uint32)
        scales.append(lax.bitcast_convert_type(word, jnp.float32))
    return scales


def _row_codes(pool_ref, rows, active, tile):
    """The ``tile``-th 128 codes of each row, ``[block_k, 128]`` uint8 (0 where inactive).

    The MMAs take them as fp16 (``_exact_fp16``), not bf16: e4m3 -> f16 is one packed
    instruction per two values (``F2FP.F16.E4M3.UNPACK``), while e4m3 -> bf16 goes
    through f16 and then a one-value-at-a-time ``F2F.BF16.F16`` -- the largest
    instruction class in the SASS of the bf16 version (measured on the H200). Every e4m3
    value is exact in fp16.
    """
    return _gather(pool_ref, rows, active, COMPACT.codes_offset + tile * TILE, TILE)


def _exact_fp16(codes):
    """uint8 e4m3 codes -> fp16 (exact)."""
    return lax.bitcast_convert_type(codes, jnp.float8_e4m3fn).astype(MMA_DTYPE)


def _power_of_two_above(x):
    """``(2^(e+1), 2^-(e+1), e+1)`` for ``x = m * 2^e``, ``1 <= m < 2`` (x > 0, finite):
    exact scaling, the exponent as int32.

    Built from the exponent bits: dividing by a power of two never rounds, so bf16
    queries (8-bit mantissa) stay exact in fp16 (11 bits) after the division.
    """
    exponent = (lax.bitcast_convert_type(x, jnp.int32) >> 23) & 0xFF
    exponent = jnp.minimum(exponent, 252)  # |q| < 2^125; keeps 2^-(e+1) a normal float
    above = lax.bitcast_convert_type((exponent + 1) << 23, jnp.float32)
    inverse = lax.bitcast_convert_type((253 - exponent) << 23, jnp.float32)
    return above, inverse, exponent - 126


def _unit_queries(q_ref, token, head_block, block_h: int, num_heads: int):
    """The token's queries scaled by a power of two into [-1, 1], in fp16, and that power's
    exponent (int32 per head).

    fp16 has 3 more mantissa bits than bf16 but a narrow range: scaled so the head's
    largest value is in [0.5, 1), every bf16 query value above 2^-17 of the maximum
    converts exactly (smaller ones round, contributing below that to the dot product).
    Converted in the kernel and held in registers: converting once in XLA so the MMAs
    read them from shared memory measured 6-9% slower on the H200.
    """
    # q arrives unpadded as [T * H, 512], so no pad of q runs before the kernel. When the
    # head blocks tile H, a block is a plain slice of rows; otherwise the last block's heads
    # past H read the last head again (finite, computed, never stored), through a gather.
    if num_heads % block_h == 0:
        first = token * num_heads + head_block * block_h
        parts = [q_ref[pl.ds(first, block_h), pl.ds(c * TILE, TILE)] for c in range(NUM_TILES)]
    else:
        heads = head_block * block_h + lax.iota(jnp.int32, block_h)
        rows = token * num_heads + jnp.minimum(heads, num_heads - 1)
        columns = lax.iota(jnp.int32, TILE)
        parts = [q_ref[rows[:, None], (c * TILE + columns)[None, :]] for c in range(NUM_TILES)]
    parts = [part.astype(jnp.float32) for part in parts]
    peak = jnp.max(jnp.abs(parts[0]), axis=1)
    for part in parts[1:]:
        peak = jnp.maximum(peak, jnp.max(jnp.abs(part), axis=1))
    finite = peak <= FLOAT32_MAX  # False for inf and NaN (a max may drop NaN: the MMA keeps it)
    peak = jnp.where(peak > 0, peak, 1.0)  # zero (or padding) heads: any scale works
    _, inverse, exponent = _power_of_two_above(jnp.where(finite, peak, 1.0))
    return [(part * inverse[:, None]).astype(MMA_DTYPE) for part in parts], exponent, ~finite


def _normalised_weights(probs, scales, axis: int):
    """``probs * scales`` as fp16 in [-1, 1] per head, and the exponent (int32 per head) of
    the power of two taken out (``NO_EXPONENT`` where every weight is zero).

    ``axis`` is the candidate axis of ``probs``. The value side multiplies these weights
    by the fp16 codes; dividing by the power of two above the head's largest ``|weight|``
    keeps fp16's 11-bit precision for the terms that matter. The factor comes from the
    exponent bits, never from ``1 / peak``: a block far below the running maximum has
    subnormal weights, which the GPU flushes to zero (``1 / peak`` would then be inf and
    ``0 * inf`` NaN); here such a block simply contributes zero.
    """
    weights = probs * (scales[None, :] if axis == 1 else scales[:, None])
    peak = jnp.max(jnp.abs(weights), axis=axis)
    exponent = power_of_two_exponent(peak)
    inverse = exp2i(-exponent)
    inverse = inverse[:, None] if axis == 1 else inverse[None, :]
    # No (or only subnormal) weight: nothing to accumulate, and no claim on acc's units.
    return (weights * inverse).astype(MMA_DTYPE), jnp.where(exponent_field(peak) > 0, exponent, NO_EXPONENT)


def _kernel(
    *refs,
    has_lens: bool,
    sched: Schedule,
    tiles_per_split: int,
    num_slots: int,
    num_heads: int,
    sm_scale: float,
):
    """One (head block, split, token) program.

    Two orientations of the same math (``sched.candidates_major``):

    - heads-major: ``scores [block_h, block_k] = q . codes^T`` (what the dispatch table
      uses);
    - candidates-major: ``scores^T [block_k, block_h] = codes . q^T``, so the 64
      gathered rows fill a warpgroup MMA's M dimension and the few heads its N; the
      accumulator is ``out^T``. Meant for 8-16 heads, where heads-major runs 16-row
      MMAs, but measured 2x slower there on the H200 (more register spills); the
      table uses it for small launches at 17-32 heads (decode of two to four tokens),
      where it won (docs/pallas.md, the dispatch table).

    With ``sched.prefetch`` the loop gathers one step ahead (``prefetching_step``).
    Without ``has_lens`` (no ``topk_lens`` operand) every candidate counts: the padded
    columns are -1, inactive like any hole.
    """
    if has_lens:
        indices_ref, lens_ref, q_ref, pool_ref, out_ref, lse_ref = refs
    else:
        indices_ref, q_ref, pool_ref, out_ref, lse_ref = refs
    head_block, split, token = pl.program_id(0), pl.program_id(1), pl.program_id(2)
    block_h, block_k = sched.block_h, sched.block_k
    major = sched.candidates_major
    cand_axis = 0 if major else 1  # the candidate axis of scores
    heads = pl.ds(head_block * block_h, block_h)
    topk_len = lens_ref[token] if has_lens else None
    queries, query_exponent, bad_query = _unit_queries(q_ref, token, head_block, block_h, num_heads)
    # The per-head score factor 2^(query exponent) * sm_scale * SCORE_UNITS, its mantissa
    # static; a step adds the exponent of its scales' unit (attend).
    mantissa, exponent = split_float(sm_scale * SCORE_UNITS)
    head_exponent = query_exponent + exponent
    per_head = (lambda v: v[None, :]) if major else (lambda v: v[:, None])
    per_cand = (lambda v: v[:, None]) if major else (lambda v: v[None, :])

    def candidate_slots(i):
        """Slot ids of the split's ``i``-th ``block_k`` candidates (``i`` clamped in range)."""
        first = (split * tiles_per_split + jnp.minimum(i, tiles_per_split - 1)) * block_k
        return indices_ref[token, pl.ds(first, block_k)]

    def fetch(i, slots):
        """Issue the gathers of the split's ``i``-th ``block_k`` candidates (none past the end)."""
        active = valid_slots(slots, num_slots) & (i < tiles_per_split)
        if has_lens:
            column = (split * tiles_per_split + i) * block_k + lax.iota(jnp.int32, block_k)
            active &= column < topk_len
        rows = jnp.where(active, slots, 0)  # a safe address; the mask keeps it unread
        scales = _row_scales(pool_ref, rows, active)
        codes = [_row_codes(pool_ref, rows, active, c) for c in range(NUM_TILES)]
        return active, tuple(scales), tuple(codes)

    def attend(carry, fetched):
        row_max, row_sum, acc, acc_exponent, bad = carry
        active, scales, raw_codes = fetched
        codes = [_exact_fp16(raw) for raw in raw_codes]
        # Per candidate (cheap): the scales in units of the power of two above the row's own
        # largest finite scale, so no tile term (|q . codes| <= 128 * 448 * 4, |unit| < 4)
        # overflows and a row of tiny but normal scales keeps its precision whatever the
        # other rows of the step hold (one row at the float32 maximum beside rows of 1e-3:
        # a shared unit would make theirs subnormal, read as zero); NaN where a scale is
        # not finite.
        finite = [jnp.abs(sc) <= FLOAT32_MAX for sc in scales]
        peak = jnp.where(finite[0], jnp.abs(scales[0]), 0.0)
        for ok, sc in zip(finite[1:], scales[1:], strict=True):
            peak = jnp.maximum(peak, jnp.where(ok, jnp.abs(sc), 0.0))
        row_exponent = power_of_two_exponent(peak)  # [block_k]
        row_inverse = exp2i(-row_exponent)
        unit_scales = [
            jnp.where(ok, sc * row_inverse, jnp.nan) for ok, sc in zip(finite, scales, strict=True)
        ]
        scores = None
        for c in range(NUM_TILES):
            # One 128-wide partial score per scale tile, scaled once per candidate.
            if major:
                partial = _dot(codes[c], queries[c], trans_b=True)
            else:
                partial = _dot(queries[c], codes[c], trans_b=True)
            term = partial * per_cand(unit_scales[c])  # |term| < 2^21 for finite input
            scores = term if scores is None else scores + term
        # NaN here means a NaN code, a non-finite scale (made NaN above) or a NaN query.
        hit = jnp.where((scores != scores) & per_cand(active), 1.0, 0.0)
        bad = jnp.maximum(bad, jnp.max(hit, axis=cand_axis))
        if sm_scale == 0:  # static: every score is 0 (inf * 0 would be NaN)
            scores = jnp.zeros_like(scores)
        else:
            # score = raw * mantissa * 2^e, e per (head, candidate), as two factors of the
            # same direction (both >= 1 or both <= 1): nothing overflows before the score
            # itself does.
            e = per_head(head_exponent) + per_cand(row_exponent)
            first = jnp.minimum(jnp.maximum(e, MIN_EXPONENT), MAX_EXPONENT)
            scores = scores * mantissa * exp2i(first) * exp2i(e - first)
        # Clamped to the float32 range: a score that overflows becomes the largest, and
        # the head's lse is then +inf (below), never NaN.
        scores = jnp.minimum(jnp.maximum(scores, -FLOAT32_MAX), FLOAT32_MAX)
        scores = jnp.where(per_cand(active), scores, -jnp.inf)
        new_max = jnp.maximum(row_max, jnp.max(scores, axis=cand_axis))
        # A head with nothing active yet keeps max -inf; subtract 0 so exp2 gives 0, not NaN.
        safe_max = jnp.where(new_max == -jnp.inf, 0.0, new_max)
        correction = jnp.exp2((row_max - safe_max) * 2.0)  # scores are half base-2 units
        probs = jnp.exp2((scores - per_head(safe_max)) * 2.0)
        new_sum = row_sum * correction + jnp.sum(probs, axis=cand_axis)
        # acc holds the running weighted mean, so it never exceeds the largest |value|:
        # new_sum >= 1 once anything is active (the maximum's weight is 1).
        inv_sum = jnp.where(new_sum > 0, 1.0 / jnp.where(new_sum > 0, new_sum, 1.0), 0.0)
        keep = row_sum * correction * inv_sum
        # The values are weighted by probs * 2^row_exponent: taken in units of 2^G per head,
        # G above the largest of them (from exponent bits), so a small row that dominates
        # keeps its weight beside a large row that scores low; what falls below 2^-126 of
        # the head's largest weighted row is below float32's reach of the result anyway.
        weighted = (exponent_field(probs) - 126) + per_cand(row_exponent)
        head_weight = jnp.max(jnp.where(probs > 0, weighted, NO_EXPONENT), axis=cand_axis)
        probs = probs * exp2i(per_cand(row_exponent) - per_head(head_weight))
        new_acc, new_exponent = [], []
        for c in range(NUM_TILES):
            # The value-side scale is folded into the probabilities, not into 64K values.
            weights, weight_exponent = _normalised_weights(probs, unit_scales[c], cand_axis)
            if major:  # out^T [128, block_h] += codes^T . weights
                update = lax.dot_general(
                    codes[c], weights, (((0,), (0,)), ((), ())), preferred_element_type=jnp.float32
                )
            else:
                update = _dot(weights, codes[c])
            # acc_c is kept in units of 2^acc_exponent_c (per head): the largest weight *
            # scale seen so far, so neither a tiny row nor a small weight underflows, and
            # older steps fade by their true ratio to it.
            step = weight_exponent + head_weight
            exponent_c = jnp.maximum(acc_exponent[c], step)
            old = keep * exp2i(acc_exponent[c] - exponent_c)
            new = inv_sum * exp2i(step - exponent_c)
            new_acc.append(acc[c] * per_head(old) + update * per_head(new))
            new_exponent.append(exponent_c)
        return new_max, new_sum, tuple(new_acc), tuple(new_exponent), bad

    def step(i, carry):
        return attend(carry, fetch(i, candidate_slots(i)))

    def prefetching_step(i, carry):
        # Gather step i + 1 (its slot ids were read a step earlier) and read step i + 2's
        # slot ids before computing on step i, so the latencies overlap the MMAs: Triton
        # pipelines the gather itself only when both MMAs read the codes from shared
        # memory (64-head blocks, docs/pallas.md).
        state, fetched, slots = carry
        ahead = fetch(i + 1, slots)
        return attend(state, fetched), ahead, candidate_slots(i + 2)

    acc_shape = (TILE, block_h) if major else (block_h, TILE)
    init = (
        jnp.full((block_h,), -jnp.inf, jnp.float32),
        jnp.zeros((block_h,), jnp.float32),
        tuple(jnp.zeros(acc_shape, jnp.float32) for _ in range(NUM_TILES)),
        tuple(jnp.full((block_h,), NO_EXPONENT, jnp.int32) for _ in range(NUM_TILES)),
        jnp.where(bad_query, 1.0, 0.0),
    )
    if sched.prefetch:
        first = (init, fetch(0, candidate_slots(0)), candidate_slots(1))
        (row_max, row_sum, acc, acc_exponent, bad), _, _ = lax.fori_loop(
            0, tiles_per_split, prefetching_step, first
        )
    else:
        row_max, row_sum, acc, acc_exponent, bad = lax.fori_loop(0, tiles_per_split, step, init)
    # Non-finite referenced input marks the head NaN in out and lse, never the empty
    # sentinel; an empty head gets out = 0, lse = -inf, whatever q is. Active scores are
    # clamped to >= -FLOAT32_MAX, so the max stays -inf exactly when nothing is active.
    nonempty = row_max != -jnp.inf
    bad = (bad > 0) & nonempty
    for c in range(NUM_TILES):
        value = scale_by_power_of_two(acc[c], per_head(jnp.where(nonempty, acc_exponent[c], 0)))
        value = jnp.where(per_head(bad), jnp.nan, value)
        value = (value.T if major else value).astype(out_ref.dtype)
        # Plain ref stores (Triton lowers them like plgpu.store without a mask); the
        # interpreter's plgpu.store mixes int32 and int64 indices under JAX_ENABLE_X64.
        out_ref[split, token, heads, pl.ds(c * TILE, TILE)] = value
    # A saturated maximum (the true score overflows) gives +inf here; a head whose every
    # score lies below -FLOAT32_MAX saturates at -FLOAT32_MAX (-inf means nothing active).
    lse = row_max * (2 * LN2) + jnp.log(jnp.where(row_sum > 0, row_sum, 1.0))
    lse = jnp.where(nonempty, jnp.maximum(lse, -FLOAT32_MAX), -jnp.inf)
    lse_ref[split, token, heads] = jnp.where(bad, jnp.nan, lse)


def attend_splits(q, pool, indices, topk_lens, sm_scale: float, sched: Schedule, *, interpret: bool = False):
    """Per-split results: ``out [S, T, Hp, 512]``, ``lse [S, T, Hp]`` float32.

    ``q [T, H, 512]`` (``Hp``: H rounded up to ``sched.block_h``) and ``indices [T, Kp]``
    with ``Kp == sched.padded_candidates(Kp)``: the caller pads the candidates (``ops.py``).
    With one split the output is already bf16 and final.
    """
    num_tokens, num_heads, _ = q.shape
    (out_shape, out_dtype), (lse_shape, lse_dtype) = split_results(num_tokens, num_heads, sched)
    padded_heads = out_shape[2]
    q = q.reshape(num_tokens * num_heads, HEAD_DIM)
    num_slots = pool.shape[0]
    tiles_per_split = sched.tiles(indices.shape[1])
    grid = (padded_heads // sched.block_h, sched.num_splits, num_tokens)
    # Inside shard_map the operands share their mesh axes, and so do the results.
    has_lens = not counts_every_candidate(topk_lens)
    operands = same_varying_axes(indices, *([topk_lens] if has_lens else []), q, pool)
    struct_kw = type_keywords(jax.typeof(operands[0]))
    kernel = functools.partial(
        _kernel,
        has_lens=has_lens,
        sched=sched,
        tiles_per_split=tiles_per_split,
        num_slots=num_slots,
        num_heads=num_heads,
        sm_scale=sm_scale,
    )
    return pl.pallas_call(
        kernel,
        grid=grid,
        out_shape=(
            jax.ShapeDtypeStruct(out_shape, jnp.dtype(out_dtype), **struct_kw),
            jax.ShapeDtypeStruct(lse_shape, jnp.dtype(lse_dtype), **struct_kw),
        ),
        compiler_params=plgpu.CompilerParams(num_warps=sched.num_warps, num_stages=sched.num_stages),
        interpret=interpret,
        name="sparse_mla_fp8_rows",
    )(*operands)
