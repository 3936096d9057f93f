"""jax_glm_nope: GLM NoPE sparse-MLA attention over compact 528-byte FP8 KV rows, in JAX."""

from .api import dequantize, quantize, repack, sparse_mla, write_kv
from .candidates import mask_holes, pad_candidates, to_slots
from .layout import COMPACT, PADDED, RowFormat, row_format
from .planner import capacity

__version__ = "0.1.0"

__all__ = [
    "COMPACT",
    "PADDED",
    "RowFormat",
    "capacity",
    "dequantize",
    "mask_holes",
    "pad_candidates",
    "quantize",
    "repack",
    "row_format",
    "sparse_mla",
    "to_slots",
    "write_kv",
]
