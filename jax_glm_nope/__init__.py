"""jax_glm_nope: GLM NoPE sparse-MLA attention over compact 528-byte FP8 KV rows, in JAX."""

from .api import dequantize, quantize, repack, sparse_mla, write_kv
from .cache import (
    allocate_pools,
    block_tables_to_candidate_slots,
    block_tables_to_slots,
    pool_bytes,
    pool_partition_spec,
    pool_shape,
    stacked_slots,
)
from .candidates import mask_holes, pad_candidates, to_slots
from .choice import Choice, sparse_mla_implementation, sparse_mla_scratch_bytes, write_kv_implementation
from .device import Device, lowering_for
from .dispatch import SparseMlaImplementation, WriteKvImplementation, export_disabled_checks
from .layout import COMPACT, HEAD_DIM, PADDED, RowFormat, row_format
from .native.targets import register_ffi_targets
from .planner import capacity
from .ragged import RaggedInputs, ragged_inputs
from .validate import MAX_HEADS, MAX_TOKENS
from .version import __version__ as __version__

__all__ = [
    "COMPACT",
    "HEAD_DIM",
    "MAX_HEADS",
    "MAX_TOKENS",
    "Choice",
    "Device",
    "PADDED",
    "RaggedInputs",
    "RowFormat",
    "SparseMlaImplementation",
    "WriteKvImplementation",
    "allocate_pools",
    "block_tables_to_candidate_slots",
    "block_tables_to_slots",
    "capacity",
    "dequantize",
    "export_disabled_checks",
    "lowering_for",
    "mask_holes",
    "pad_candidates",
    "pool_bytes",
    "pool_partition_spec",
    "pool_shape",
    "quantize",
    "ragged_inputs",
    "register_ffi_targets",
    "repack",
    "row_format",
    "sparse_mla",
    "sparse_mla_implementation",
    "sparse_mla_scratch_bytes",
    "stacked_slots",
    "to_slots",
    "write_kv",
    "write_kv_implementation",
]
