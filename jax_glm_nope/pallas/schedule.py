"""Which schedule serves a call: one pure function of (T, H, K), read top to bottom.

A schedule fixes the program grid of the kernel (``kernel.py``) and its Triton knobs:

- ``block_h``: query heads per program. ``tl.dot`` needs at least 16 rows, so 1-16
  heads run in one 16-row block (8 heads pay for 16 rows of MMA, never for 64); up to
  32 heads in one 32-row block; more heads in 64-row blocks, the largest whose
  ``[64, 512]`` float32 accumulator (128 KiB) still fits the registers of 8 warps.
- ``block_k``: candidates gathered per loop step (one ``[block_k, 528]`` tile of rows).
- ``num_splits``: the candidate axis is cut into this many contiguous ranges, one
  program each, combined afterwards by an exact log-sum-exp merge. Decode batches
  (T = 1..32) have too few (token, head-block) pairs to fill 132 SMs; splitting
  raises the program count to about ``TARGET_WAVES`` programs per SM.
"""

from __future__ import annotations

import dataclasses

NUM_SMS = 132  # H200 / H100 SXM; only sizes the split, correctness never depends on it
TARGET_WAVES = 4  # programs per SM we aim for: enough loads in flight to hide latency
MIN_TILES_PER_SPLIT = 1  # a split never covers less than one candidate tile
SMALL_HEADS = 16  # tl.dot's smallest M: 1..16 heads share one 16-row block
MEDIUM_HEADS = 32
LARGE_BLOCK_H = 64


@dataclasses.dataclass(frozen=True)
class Schedule:
    block_h: int
    block_k: int
    num_splits: int
    num_warps: int
    num_stages: int

    def tiles(self, num_candidates: int) -> int:
        """Candidate tiles per split (the candidate axis is padded to cover them all)."""
        total = -(-num_candidates // self.block_k)
        return -(-total // self.num_splits)

    def padded_candidates(self, num_candidates: int) -> int:
        return self.tiles(num_candidates) * self.num_splits * self.block_k


def head_block(num_heads: int) -> int:
    if num_heads <= SMALL_HEADS:
        return SMALL_HEADS
    if num_heads <= MEDIUM_HEADS:
        return MEDIUM_HEADS
    return LARGE_BLOCK_H


def choose_schedule(num_tokens: int, num_heads: int, num_candidates: int) -> Schedule:
    """The schedule for ``q [T, H, 512]`` over ``indices [T, K]``."""
    block_h = head_block(num_heads)
    block_k = 64
    num_warps = 8 if block_h == LARGE_BLOCK_H else 4
    num_stages = 2
    head_blocks = -(-num_heads // block_h)
    tiles = -(-num_candidates // block_k)
    programs = max(1, num_tokens * head_blocks)
    wanted = -(-TARGET_WAVES * NUM_SMS // programs)
    num_splits = max(1, min(wanted, tiles // MIN_TILES_PER_SPLIT))
    # Equal splits: re-derive the count so no split is empty after rounding.
    num_splits = -(-tiles // -(-tiles // num_splits))
    return Schedule(block_h, block_k, num_splits, num_warps, num_stages)
