"""The Pallas (Triton lowering) kernel: sparse MLA over gathered FP8 rows.

One program per (head block, candidate split, token). It loads the token's queries
once, then walks its candidate range ``block_k`` rows at a time:

1. gather ``block_k`` rows of the pool by pointer arithmetic (``row * row_bytes +
   column``); holes, out-of-range slots and columns past ``topk_lens`` are masked
   loads, so their bytes are never read (slot 0 may hold NaN);
2. per 128-wide tile ``c``: ``scores += (q_c . codes_c^T) * scale_c`` -- the e4m3
   codes are exact in bf16, the tile's fp32 scale multiplies the 128-wide partial
   score instead of every element;
3. an online softmax in base 2 (``sm_scale * log2(e)`` folded into the scales);
4. per tile: ``acc_c += (p * scale_c) . codes_c`` -- the value-side scale is folded
   into the probabilities.

Each program writes its range's normalised output and natural-log LSE; with one split
those are final, otherwise ``ops.py`` merges the splits exactly. No atomics: the
same inputs give the same bits.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as plgpu

from ..layout import COMPACT, HEAD_DIM, NUM_TILES, SCALE_BYTES, TILE
from .schedule import Schedule

LOG2E = math.log2(math.e)
LN2 = math.log(2.0)
SCORE_TILES = NUM_TILES  # one partial score per scale tile


def _gather(pool_ref, rows, active, start: int, width: int):
    """Bytes ``[start, start + width)`` of each of ``rows``: ``[block_k, width]`` uint8.

    Pointer arithmetic (``row * row_bytes + column``); rows that are not ``active`` are
    masked loads, never read, and come back as 0. Both indexers are int arrays (the
    Pallas interpreter cannot mix them with slices).
    """
    columns = start + lax.iota(jnp.int32, width)
    return plgpu.load(pool_ref.at[rows[:, None], columns[None, :]], mask=active[:, None], other=0)


def _row_scales(pool_ref, rows, active):
    """``[block_k]`` rows -> ``NUM_TILES`` float32 ``[block_k]`` scales (0 where inactive)."""
    shifts = lax.iota(jnp.int32, SCALE_BYTES).astype(jnp.uint32) * 8  # byte b -> bits [8b, 8b+8)
    scales = []
    for tile in range(NUM_TILES):
        start = COMPACT.scales_offset + tile * SCALE_BYTES
        raw = _gather(pool_ref, rows, active, start, SCALE_BYTES)
        word = jnp.sum(raw.astype(jnp.uint32) << shifts[None, :], axis=1)  # bytes never overlap
        scales.append(lax.bitcast_convert_type(word, jnp.float32))
    return scales


def _row_codes(pool_ref, rows, active, tile):
    """The ``tile``-th 128 codes of each row, as exact bf16 ``[block_k, 128]`` (0 where inactive)."""
    start = COMPACT.codes_offset + tile * TILE
    raw = _gather(pool_ref, rows, active, start, TILE)
    return lax.bitcast_convert_type(raw, jnp.float8_e4m3fn).astype(jnp.bfloat16)


def _kernel(indices_ref, lens_ref, q_ref, pool_ref, out_ref, lse_ref, *, sched: Schedule,
            tiles_per_split: int, num_slots: int, sm_scale: float):
    head_block, split, token = pl.program_id(0), pl.program_id(1), pl.program_id(2)
    block_h, block_k = sched.block_h, sched.block_k
    heads = pl.ds(head_block * block_h, block_h)
    topk_len = lens_ref[token]
    queries = [q_ref[token, heads, pl.ds(c * TILE, TILE)] for c in range(NUM_TILES)]
    score_scale = sm_scale * LOG2E  # scores kept in base 2: exp2 is one instruction

    def step(i, carry):
        row_max, row_sum, acc = carry
        first = (split * tiles_per_split + i) * block_k
        column = first + lax.iota(jnp.int32, block_k)
        slots = indices_ref[token, pl.ds(first, block_k)]
        active = (column < topk_len) & (slots >= 0) & (slots < num_slots)
        rows = jnp.where(active, slots, 0)  # a safe address; the mask keeps it unread
        scales = _row_scales(pool_ref, rows, active)
        codes = [_row_codes(pool_ref, rows, active, c) for c in range(NUM_TILES)]
        scores = None
        for c in range(NUM_TILES):
            partial = pl.dot(queries[c], codes[c], trans_b=True)  # [block_h, block_k] f32
            partial = partial * (scales[c] * score_scale)[None, :]
            scores = partial if scores is None else scores + partial
        scores = jnp.where(active[None, :], scores, -jnp.inf)
        new_max = jnp.maximum(row_max, jnp.max(scores, axis=1))
        # A row with nothing active yet keeps max -inf; subtract 0 so exp2 gives 0, not NaN.
        safe_max = jnp.where(new_max == -jnp.inf, 0.0, new_max)
        correction = jnp.exp2(row_max - safe_max)
        probs = jnp.exp2(scores - safe_max[:, None])
        row_sum = row_sum * correction + jnp.sum(probs, axis=1)
        acc = tuple(
            acc[c] * correction[:, None]
            + pl.dot((probs * scales[c][None, :]).astype(jnp.bfloat16), codes[c])
            for c in range(NUM_TILES)
        )
        return new_max, row_sum, acc

    init = (
        jnp.full((block_h,), -jnp.inf, jnp.float32),
        jnp.zeros((block_h,), jnp.float32),
        tuple(jnp.zeros((block_h, TILE), jnp.float32) for _ in range(NUM_TILES)),
    )
    row_max, row_sum, acc = lax.fori_loop(0, tiles_per_split, step, init)
    nonempty = row_sum > 0
    inv_sum = jnp.where(nonempty, 1.0 / jnp.where(nonempty, row_sum, 1.0), 0.0)
    for c in range(NUM_TILES):
        value = (acc[c] * inv_sum[:, None]).astype(out_ref.dtype)
        out_ref[split, token, heads, pl.ds(c * TILE, TILE)] = value
    lse = jnp.where(nonempty, row_max * LN2 + jnp.log(jnp.where(nonempty, row_sum, 1.0)), -jnp.inf)
    lse_ref[split, token, heads] = lse


def _varying_axes(x) -> frozenset:
    mat = getattr(jax.typeof(x), "manual_axis_type", None)
    return frozenset(mat.varying) if mat is not None else frozenset()


def _same_varying_axes(*arrays):
    """Inside ``shard_map`` (check_vma), give every operand the union of the operands'
    varying mesh axes, and return the ``ShapeDtypeStruct`` keywords the outputs need."""
    axes = frozenset().union(*map(_varying_axes, arrays))
    if axes:
        arrays = tuple(
            lax.pcast(x, tuple(sorted(axes - _varying_axes(x))), to="varying")
            if axes - _varying_axes(x) else x
            for x in arrays
        )
    mat = getattr(jax.typeof(arrays[0]), "manual_axis_type", None)
    return arrays, ({} if mat is None else {"manual_axis_type": mat})


def attend_splits(q, pool, indices, topk_lens, sm_scale: float, sched: Schedule, *,
                  interpret: bool = False):
    """Per-split results: ``out [S, T, Hp, 512]``, ``lse [S, T, Hp]`` float32.

    ``q [T, Hp, 512]`` with ``Hp`` a multiple of ``sched.block_h`` and ``indices [T, Kp]``
    with ``Kp == sched.padded_candidates(Kp)``: the caller pads (``ops.py``). With one
    split the output is already bf16 and final.
    """
    num_tokens, padded_heads, _ = q.shape
    num_slots = pool.shape[0]
    tiles_per_split = sched.tiles(indices.shape[1])
    out_dtype = jnp.bfloat16 if sched.num_splits == 1 else jnp.float32
    grid = (padded_heads // sched.block_h, sched.num_splits, num_tokens)
    (indices, topk_lens, q, pool), struct_kw = _same_varying_axes(indices, topk_lens, q, pool)
    kernel = functools.partial(_kernel, sched=sched, tiles_per_split=tiles_per_split,
                               num_slots=num_slots, sm_scale=sm_scale)
    return pl.pallas_call(
        kernel,
        grid=grid,
        out_shape=(
            jax.ShapeDtypeStruct((sched.num_splits, num_tokens, padded_heads, HEAD_DIM), out_dtype,
                                 **struct_kw),
            jax.ShapeDtypeStruct((sched.num_splits, num_tokens, padded_heads), jnp.float32, **struct_kw),
        ),
        compiler_params=plgpu.CompilerParams(num_warps=sched.num_warps, num_stages=sched.num_stages),
        interpret=interpret,
        name="sparse_mla_fp8_rows",
    )(indices, topk_lens, q, pool)
