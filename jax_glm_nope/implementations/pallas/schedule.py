"""Which schedule serves a call: one pure function of (T, H, K), read top to bottom.

A schedule fixes the program grid of the kernel (``kernel.py``) and its Triton knobs:

- ``block_h``: query heads per program. ``tl.dot`` needs at least 16 rows, so 1-16
  heads run in one 16-row block (8 heads pay for 16 rows of MMA, never for 64); up to
  32 heads in one 32-row block; more heads in 64-row blocks, the largest whose
  ``[64, 512]`` float32 accumulator (128 KiB) still fits the registers of 8 warps.
- ``block_k``: candidates gathered per loop step (one ``[block_k, 528]`` tile of rows).
- ``num_splits``: the candidate axis is cut into this many contiguous ranges, one
  program each, combined afterwards by an exact log-sum-exp merge. Decode batches
  (T = 1..32) have too few (token, head-block) pairs to fill the GPU's SMs; splitting
  raises the program count to ``GATHER_BOUND_WAVES`` or ``MATH_BOUND_WAVES``
  programs per SM.
- ``num_warps``, ``num_stages``: Triton's; ``candidates_major``: which operand of the
  MMAs the gathered rows are; ``prefetch``: the kernel gathers step ``i + 1`` while
  step ``i`` computes (``kernel.py``).
"""

from __future__ import annotations

import dataclasses

from ...device import DEFAULT_SM_COUNT as NUM_SMS  # the H200's, where the table was measured
from ...layout import HEAD_DIM

SMALL_HEADS = 16  # tl.dot's smallest M (or N): 1..16 heads share one 16-row block
MEDIUM_HEADS = 32
LARGE_BLOCK_H = 64  # one Hopper warpgroup MMA is 64 rows
BLOCK_K = 64  # gathered rows per step: 64 x 528 B = 33 KB in flight per program
# Programs we aim for, in multiples of the SM count. Gather-bound blocks (<= 32 heads)
# want two per SM so one gathers while the other computes; 64-head blocks hold 255
# registers per thread (one program per SM), and splitting them further only adds
# merge traffic (measured on the H200: docs/pallas.md).
GATHER_BOUND_WAVES = 2
MATH_BOUND_WAVES = 1


@dataclasses.dataclass(frozen=True)
class Schedule:
    block_h: int
    block_k: int
    num_splits: int
    num_warps: int
    num_stages: int
    candidates_major: bool = False  # MMA rows are candidates, not heads (kernel.py)
    prefetch: bool = False  # gather step i + 1 while computing step i (kernel.py)

    def tiles(self, num_candidates: int) -> int:
        """Candidate tiles per split (the candidate axis is padded to cover them all)."""
        total = -(-num_candidates // self.block_k)
        return -(-total // self.num_splits)

    def padded_candidates(self, num_candidates: int) -> int:
        return self.tiles(num_candidates) * self.num_splits * self.block_k


def split_results(num_tokens: int, num_heads: int, sched: Schedule) -> tuple:
    """The kernel's results, ``((shape, dtype), (shape, dtype))``: each split's output
    ``[S, T, Hp, 512]`` (bfloat16 when one split makes it final, else float32) and LSE
    ``[S, T, Hp]`` float32, ``Hp`` the heads rounded up to ``sched.block_h``."""
    padded_heads = -(-num_heads // sched.block_h) * sched.block_h
    out_dtype = "bfloat16" if sched.num_splits == 1 else "float32"
    return (
        ((sched.num_splits, num_tokens, padded_heads, HEAD_DIM), out_dtype),
        ((sched.num_splits, num_tokens, padded_heads), "float32"),
    )


def head_block(num_heads: int) -> int:
    if num_heads <= SMALL_HEADS:
        return SMALL_HEADS
    if num_heads <= MEDIUM_HEADS:
        return MEDIUM_HEADS
    return LARGE_BLOCK_H


def choose_schedule(
    num_tokens: int, num_heads: int, num_candidates: int, sm_count: int = NUM_SMS
) -> Schedule:
    """The schedule for ``q [T, H, 512]`` over ``indices [T, K]`` on a GPU of ``sm_count``
    SMs (the dispatch table).

    | heads   | block_h | MMA rows   | warps | programs aimed at          | gather          |
    |---------|---------|------------|-------|----------------------------|-----------------|
    | 1-16    | 16      | heads      | 8     | 2 x SMs (split candidates) | one step ahead  |
    | 17-32   | 32      | heads      | 8     | 2 x SMs (split candidates) | one step ahead  |
    | 33-128  | 64      | heads      | 8     | 1 x SMs (split candidates) | Triton pipeline |

    *Small launches*: when even one program per 64-candidate step cannot give every SM
    a program (``T * head blocks * steps < SMs``: decode of a few tokens), 33-128 heads
    run in 32-head blocks (twice the programs; 4 warps up to 64 heads) and 17-32 heads
    with the candidates as the MMA rows; a single token at 17-64 heads runs in 16-head
    blocks instead (the 1-16-head kernel side by side: 2-4 times the programs). Every
    choice is a measurement on the H200 (docs/h200_results.md, docs/pallas.md).
    """
    block_h = head_block(num_heads)
    tiles = -(-num_candidates // BLOCK_K)
    candidates_major, num_warps = False, 8
    if max(1, num_tokens) * -(-num_heads // block_h) * tiles < sm_count:
        if num_tokens <= 1 and num_heads <= LARGE_BLOCK_H:
            # the fastest at T=1 (docs/h200_results.md's sweep; 32-head blocks at 128 heads)
            block_h = SMALL_HEADS
        elif block_h == LARGE_BLOCK_H:
            block_h = MEDIUM_HEADS
            # 4 warps at 33-64 heads: faster at one token on the H200, untimed at T=2-4
            num_warps = 4 if num_heads <= LARGE_BLOCK_H else 8
        elif block_h == MEDIUM_HEADS:
            candidates_major = True
    waves = MATH_BOUND_WAVES if block_h == LARGE_BLOCK_H else GATHER_BOUND_WAVES
    head_blocks = -(-num_heads // block_h)
    pairs = max(1, num_tokens * head_blocks)  # (token, head block) programs without a split
    num_splits = max(1, min(tiles, waves * sm_count // pairs))
    num_splits = -(-tiles // -(-tiles // num_splits))  # equal splits: none is all padding
    sched = Schedule(block_h, BLOCK_K, num_splits, num_warps, 2, candidates_major)
    # 64-head blocks read both MMA operands from shared memory and Triton pipelines their
    # gathers (cp.async); smaller blocks keep the codes in registers, so the kernel
    # gathers the next step itself. With one step per split there is nothing to overlap.
    prefetch = block_h < LARGE_BLOCK_H and not candidates_major and sched.tiles(num_candidates) > 1
    return dataclasses.replace(sched, prefetch=prefetch)
