"""The split merge: one Pallas program per (token, head, column block).

The kernel (``kernel.py``) cuts a decode token's candidates into ``S`` splits and writes
each split's normalised output and LSE in float32. This kernel merges them exactly, in one
launch: as six XLA fusions (two reductions, a select, an input reduction, two slices) the
merge cost as much as the attention itself at one token, most of it launch and fill, not
bytes (a 64-head token's partials are 4 MiB).

Each program loads every split of its ``block_d`` columns of one head and their LSEs in one
masked load (``[S_pad, block_d]``, ``S_pad`` the power of two Triton's tensors
need, 8K elements at most, so the loads of a program are all in flight at once), then:

- a NaN LSE in any split makes the head NaN (out and lse);
- otherwise the peak is the largest LSE; at ``+inf`` the splits at ``+inf`` share the weight
  equally and the others weigh 0 (``exp(lse - inf)`` would be NaN);
- otherwise split ``s`` weighs ``exp(lse_s - peak)`` (``-inf``: 0, the peak: 1, so the
  total is at least 1), normalised before it multiplies the output (no overflow);
- a head with no active candidate in any split gets out 0, lse ``-inf``.

Padded heads (``num_heads`` below the kernel's head blocks) are neither read nor written:
the merged output is ``[T, H, 512]`` bf16 and ``[T, H]`` float32, no slice after.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as plgpu

from ...layout import HEAD_DIM

ELEMENTS_PER_PROGRAM = 8192  # 32 KiB of float32 partials in flight per program (4 warps: 64 per thread)
MIN_BLOCK_D = 16  # a 64-byte run of one head's columns per split, the smallest useful load
NUM_WARPS = 4


def _next_power_of_two(n: int) -> int:
    return 1 << max(0, n - 1).bit_length()


def merge_blocks(num_splits: int) -> tuple[int, int]:
    """``(split_pad, block_d)`` for merging ``num_splits`` splits: every split of
    ``block_d`` columns of one head in one program of at most ``ELEMENTS_PER_PROGRAM``
    elements (``MIN_BLOCK_D`` columns at the least).

    One head per program: each split's columns are then one contiguous run, which Triton
    loads 16 bytes at a time (a block of several heads made the offsets a division and a
    remainder of the lane index, which Triton loaded 4 bytes at a time, several times slower
    than the bytes need)."""
    split_pad = _next_power_of_two(num_splits)
    return split_pad, min(HEAD_DIM, max(MIN_BLOCK_D, ELEMENTS_PER_PROGRAM // split_pad))


def _weights(lse):
    """``lse [S_pad, N]`` (masked entries ``-inf``) -> each split's share of its column and the
    column's merged LSE (NaN, +inf and empty columns as in the module docstring)."""
    nan = jnp.max(jnp.where(lse != lse, 1.0, 0.0), axis=0) > 0
    lse = jnp.where(lse != lse, -jnp.inf, lse)
    peak = jnp.max(lse, axis=0)
    at_peak = lse == peak[None, :]
    # The peak's own weight is 1 (also at +inf, where lse - peak is NaN); -inf weighs 0.
    safe_peak = jnp.where(jnp.abs(peak) <= jnp.finfo(jnp.float32).max, peak, 0.0)
    weights = jnp.where(at_peak, 1.0, jnp.exp(lse - safe_peak[None, :]))
    weights = jnp.where((lse == -jnp.inf) & ~at_peak, 0.0, weights)
    weights = jnp.where((peak == jnp.inf)[None, :] & ~at_peak, 0.0, weights)
    total = jnp.sum(weights, axis=0)
    empty = (peak == -jnp.inf) & ~nan  # a NaN split with only empty ones beside it: NaN, not empty
    safe_total = jnp.where(empty, 1.0, total)  # >= 1 unless empty
    share = jnp.where(nan[None, :], jnp.nan, weights / safe_total[None, :])
    merged_lse = jnp.where(empty, -jnp.inf, peak + jnp.log(safe_total))
    return share, jnp.where(nan, jnp.nan, merged_lse), empty


def _merge_kernel(
    out_ref, lse_ref, merged_ref, merged_lse_ref, *, num_splits, padded_heads, split_pad, block_d
):
    token, head, dim_block = pl.program_id(0), pl.program_id(1), pl.program_id(2)
    num_heads = pl.num_programs(1)
    splits = lax.iota(jnp.int32, split_pad)
    live = splits[:, None] < num_splits
    # The flattened partials: [S, T * Hp] LSEs and [S, T * Hp * 512] outputs; this program's
    # columns are one contiguous run per split.
    row = token * padded_heads + head
    first = row * HEAD_DIM + dim_block * block_d
    lse = plgpu.load(lse_ref.at[splits[:, None], jnp.full((1, 1), row, jnp.int32)], mask=live, other=-jnp.inf)
    parts = plgpu.load(
        out_ref.at[splits[:, None], (first + lax.iota(jnp.int32, block_d))[None, :]], mask=live, other=0.0
    )
    share, merged_lse, empty = _weights(lse)  # [S_pad, 1], [1], [1]
    merged = jnp.where(empty[None, :], 0.0, jnp.sum(share * parts, axis=0, keepdims=True))
    out_first = (token * num_heads + head) * HEAD_DIM + dim_block * block_d
    merged_ref[pl.ds(out_first, block_d)] = merged[0].astype(merged_ref.dtype)

    @pl.when(dim_block == 0)
    def _():
        merged_lse_ref[pl.ds(token * num_heads + head, 1)] = merged_lse


def merge_splits(out, lse, num_heads: int | None = None, *, interpret: bool = False):
    """Exact log-sum-exp merge of ``out [S, T, Hp, 512]`` f32 and ``lse [S, T, Hp]``
    (each split's output normalised by its own sum) -> ``(out [T, H, 512] bf16,
    lse [T, H] f32)`` for the first ``num_heads`` heads (all by default)."""
    num_splits, num_tokens, padded_heads, _ = out.shape
    num_heads = padded_heads if num_heads is None else num_heads
    if num_tokens == 0:
        return jnp.zeros((0, num_heads, HEAD_DIM), jnp.bfloat16), jnp.zeros((0, num_heads), jnp.float32)
    if num_splits * num_tokens * padded_heads * HEAD_DIM >= 2**31:
        raise ValueError(
            f"schedule: {num_splits} splits of {num_tokens} tokens x {padded_heads} heads exceed the "
            "split merge's 32-bit offsets; use fewer splits at this T (tuning schedules only)"
        )
    split_pad, block_d = merge_blocks(num_splits)
    kernel = functools.partial(
        _merge_kernel, num_splits=num_splits, padded_heads=padded_heads, split_pad=split_pad, block_d=block_d
    )
    grid = (num_tokens, num_heads, HEAD_DIM // block_d)
    struct_kw = {}
    mat = getattr(jax.typeof(out), "manual_axis_type", None)
    if mat is not None:
        struct_kw["manual_axis_type"] = mat
    merged, merged_lse = pl.pallas_call(
        kernel,
        grid=grid,
        out_shape=(
            jax.ShapeDtypeStruct((num_tokens * num_heads * HEAD_DIM,), jnp.bfloat16, **struct_kw),
            jax.ShapeDtypeStruct((num_tokens * num_heads,), jnp.float32, **struct_kw),
        ),
        compiler_params=plgpu.CompilerParams(num_warps=NUM_WARPS, num_stages=1),
        interpret=interpret,
        name="sparse_mla_split_merge",
    )(out.reshape(num_splits, -1), lse.reshape(num_splits, -1))
    return merged.reshape(num_tokens, num_heads, HEAD_DIM), merged_lse.reshape(num_tokens, num_heads)
