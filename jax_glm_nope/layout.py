"""The one home of the cached-token row layout.

Every cached token of a NoPE sparse-MLA layer is one row of bytes::

    COMPACT (528 B)                        PADDED (656 B, inherited from DeepSeek-V3.2)
    [0, 512)    512 float8_e4m3fn codes    same
    [512, 528)  4 x float32 LE scales      same
    [528, 656)  -                          reserved: written as zeros, never read

Value ``i`` of a row is ``e4m3(code[i]) * scale[i // 128]`` in float32. Kernels,
tests, benchmarks and the capacity planner import the offsets from here; nothing
else spells out a byte position.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

HEAD_DIM = 512  # kv_lora_rank: the latent width, also q.k and value width
TILE = 128  # values sharing one scale
NUM_TILES = HEAD_DIM // TILE  # 4 scales per row
SCALE_BYTES = 4  # float32
FP8_MAX = 448.0  # largest finite float8_e4m3fn


@dataclasses.dataclass(frozen=True)
class RowFormat:
    """Byte layout of one cached-token row."""

    name: str
    bytes_per_token: int
    codes_offset: int = 0  # [codes_offset, codes_offset + HEAD_DIM): fp8 codes
    scales_offset: int = HEAD_DIM  # [scales_offset, scales_end): NUM_TILES float32
    reserved_offset: int = HEAD_DIM + NUM_TILES * SCALE_BYTES  # zeros up to bytes_per_token

    # The two layouts, set below once the class exists (ClassVar: not dataclass fields).
    COMPACT: ClassVar[RowFormat]
    PADDED: ClassVar[RowFormat]

    @property
    def scales_end(self) -> int:
        return self.scales_offset + NUM_TILES * SCALE_BYTES

    @property
    def reserved_bytes(self) -> int:
        return self.bytes_per_token - self.reserved_offset

    def __repr__(self) -> str:
        return f"RowFormat.{self.name}"


RowFormat.COMPACT = RowFormat("COMPACT", 528)
RowFormat.PADDED = RowFormat("PADDED", 656)
COMPACT: RowFormat = RowFormat.COMPACT
PADDED: RowFormat = RowFormat.PADDED
FORMATS = (COMPACT, PADDED)

# Kernels read only this many bytes of a row, whatever its format.
KERNEL_ROW_BYTES = COMPACT.bytes_per_token

BF16_LATENT_BYTES = HEAD_DIM * 2  # a BF16 latent cache row, for comparisons


def row_format(row_bytes: int) -> RowFormat:
    """The format whose rows are ``row_bytes`` long; raises for any other size."""
    for fmt in FORMATS:
        if fmt.bytes_per_token == row_bytes:
            return fmt
    raise ValueError(
        f"row_bytes: expected one of {[f.bytes_per_token for f in FORMATS]} "
        f"(COMPACT or PADDED rows), got {row_bytes}"
    )
