"""Load the native library, register its XLA FFI targets, and call them.

Each ``*_call`` function is one ``jax.ffi.ffi_call`` with the operand order, result
buffers and attributes its C++ handler binds (``ffi/``). They take validated,
normalised arrays; nothing here checks user input.
"""

from __future__ import annotations

import ctypes
import dataclasses
import os
import pathlib

import jax
import jax.numpy as jnp
import numpy as np

from .. import layout
from . import build, library

# XLA target name -> exported handler symbol (XLA_FFI_DEFINE_HANDLER_SYMBOL in ffi/).
WRITE_KV = "jax_glm_nope_write_kv"  # ours, arch-generic
DEQUANTIZE = "jax_glm_nope_dequantize"  # ours, arch-generic
SM90_SPARSE_MLA = "jax_glm_nope_sm90_sparse_mla"  # ours, sm_90a
FLASHINFER_DECODE = "jax_glm_nope_flashinfer_sm120_decode"  # FlashInfer's, sm_120a/sm_121a
FLASHINFER_PREFILL = "jax_glm_nope_flashinfer_sm120_prefill"
TARGETS = {
    WRITE_KV: "JaxGlmNopeWriteKv",
    DEQUANTIZE: "JaxGlmNopeDequantize",
    SM90_SPARSE_MLA: "JaxGlmNopeSm90SparseMla",
    FLASHINFER_DECODE: "JaxGlmNopeFlashInferSm120Decode",
    FLASHINFER_PREFILL: "JaxGlmNopeFlashInferSm120Prefill",
}
# The extern "C" queries of ffi/ Python calls through ctypes (the compiled rules the
# Python ones are checked against). With TARGETS' symbols, all the library exports
# (build.EXPORTED).
QUERIES = (
    "jax_glm_nope_flashinfer_decode_scratch_heads",
    "jax_glm_nope_flashinfer_decode_splits",
    "jax_glm_nope_sm90_num_splits",
    "jax_glm_nope_sm90_batch_num_splits",
    "jax_glm_nope_sm90_scratch_splits",
    "jax_glm_nope_sm90_kernel_count",
    "jax_glm_nope_sm90_kernel_row",
    "jax_glm_nope_sm90_kernel_index",
)

# Mirrors ffi/flashinfer/sm120/sm120_common.h: FlashInfer's decode walks candidates in
# windows of 64 and takes T <= 64; its prefill takes these head counts.
FLASHINFER_WINDOW = 64
FLASHINFER_MAX_DECODE_TOKENS = 64
FLASHINFER_PREFILL_HEADS = (8, 16, 32, 64, 128)


def flashinfer_scratch_heads(num_heads: int) -> int:
    """Rows of decode scratch per token: FlashInfer's ``decode_scratch_heads`` rule."""
    return 8 if num_heads == 8 else -(-num_heads // 16) * 16


def flashinfer_scratch_shapes(num_tokens: int, num_heads: int, num_candidates: int):
    """Shapes of FlashInfer's decode scratch results ``(mid_out, mid_lse)``.

    ``mid_out`` bf16 ``[T, sh, ceil(K/64), 512]`` and ``mid_lse`` f32 ``[T, sh, ceil(K/64)]``
    with ``sh = 8`` if ``H == 8`` else ``H`` rounded up to 16; the handler checks exactly
    these shapes and the tests compare the rule with the compiled one.
    """
    splits = -(-num_candidates // FLASHINFER_WINDOW)
    heads = flashinfer_scratch_heads(num_heads)
    return (num_tokens, heads, splits, layout.HEAD_DIM), (num_tokens, heads, splits)


def library_path(*, build_if_missing: bool = True) -> pathlib.Path | None:
    """The library this process uses (:func:`.library.find`: ``JAX_GLM_NOPE_FFI_LIBRARY``,
    the companion wheel's, a cached build that serves this device), else
    (``build_if_missing``) a new build for the default arch list."""
    arch = library.local_arch()
    found = library.find(arch)
    if found is not None:
        return found.path
    if not build_if_missing:
        return None
    try:
        return build.build()
    except build.BuildError as err:
        raise build.BuildError(f"{err}{library.passed_over(arch)}") from err


# Path -> the library, loaded once and its targets registered once, whoever named it.
_LOADED: dict[str, ctypes.CDLL] = {}


def _load_and_register(path: str, named: str) -> ctypes.CDLL:
    handlers = library.load(path, named)
    functions = {}
    for name, symbol in TARGETS.items():
        try:
            functions[name] = getattr(handlers, symbol)
        except AttributeError:
            raise build.BuildError(
                f"{named}, which lacks the handler {symbol}: not this release's jax_glm_nope library"
            ) from None
    for name, function in functions.items():
        jax.ffi.register_ffi_target(name, jax.ffi.pycapsule(function), platform="CUDA")
    return handlers


def load_library(path: str | os.PathLike | None = None) -> ctypes.CDLL:
    """Load (building on first use when ``path`` is None) and register every target."""
    if path is None:
        path = str(library_path())
        named = library.named_by(path)
    else:
        if isinstance(path, os.PathLike):
            path = os.fspath(path)
        if not isinstance(path, str):
            raise TypeError(f"path: expected None, a str or an os.PathLike naming a file, got {path!r}")
        if not path:
            raise ValueError("path: expected a library file, got an empty string (None finds this process's)")
        named = f"path: {path}"
    if path not in _LOADED:
        _LOADED[path] = _load_and_register(path, named)
    return _LOADED[path]


def register_ffi_targets(path: str | os.PathLike | None = None) -> None:
    """Build (once, cached) or load this package's native library and register its XLA FFI
    targets for CUDA. Tracing ``sparse_mla``/``write_kv`` does this on first use; a process
    that only calls a deserialized ``jax.export`` artifact carrying the targets calls it
    first (else XLA answers "No FFI handler registered for jax_glm_nope_..."). ``path``: a
    library file to use instead (the file is checked, not its build; a ``TypeError`` for
    anything but a str or path, a ``ValueError`` for an empty one); None finds or builds
    this process's (:func:`library_path`)."""
    load_library(path)


def load_library_for(device) -> None:
    """Load and register the library at trace time when ``device`` (the dispatch
    decision's) is this process's own; for another machine's (:func:`jax_glm_nope.
    lowering_for`) lowering needs only the target names, and the machine that runs the
    artifact loads its own library."""
    from .. import device as device_mod

    if device_mod.is_local(device):
        load_library()


def cxx_flashinfer_scratch_rule(library: ctypes.CDLL, num_heads: int, num_candidates: int):
    """``(scratch_heads, splits)`` as the compiled C++ computes them (for tests)."""
    return (
        library.jax_glm_nope_flashinfer_decode_scratch_heads(num_heads),
        library.jax_glm_nope_flashinfer_decode_splits(num_candidates),
    )


def _attention_results(q, *scratch):
    num_tokens, num_heads, _ = q.shape
    return (
        jax.ShapeDtypeStruct(q.shape, jnp.bfloat16),
        jax.ShapeDtypeStruct((num_tokens, num_heads), jnp.float32),
        *scratch,
    )


def flashinfer_decode_call(q, pool, indices, topk_lens, sm_scale: float):
    """FlashInfer's split-K decode: ``(out [T,H,512] bf16, lse [T,H] f32)``; T <= 64."""
    mid_out, mid_lse = flashinfer_scratch_shapes(q.shape[0], q.shape[1], indices.shape[1])
    results = _attention_results(
        q, jax.ShapeDtypeStruct(mid_out, jnp.bfloat16), jax.ShapeDtypeStruct(mid_lse, jnp.float32)
    )
    out, lse, _, _ = jax.ffi.ffi_call(FLASHINFER_DECODE, results)(
        q, pool, indices, topk_lens, sm_scale=np.float32(sm_scale)
    )
    return out, lse


def flashinfer_prefill_call(q, pool, indices, topk_lens, sm_scale: float):
    """FlashInfer's prefill: K a multiple of 64, H in ``FLASHINFER_PREFILL_HEADS``."""
    return jax.ffi.ffi_call(FLASHINFER_PREFILL, _attention_results(q))(
        q, pool, indices, topk_lens, sm_scale=np.float32(sm_scale)
    )


# Mirrors ffi/ours/sm90/params.cuh: the split rules are tested against the compiled ones,
# the grid (head groups, CTAs per SM) against each row of the compiled kernel table.
SM90_BLOCK_ROWS = 64  # candidates per block
SM90_INVARIANT_BLOCKS_PER_SPLIT = 8
SM90_MAX_HEADS = 128
SM90_GROUP_HEADS = 32  # heads per CTA up to 32 heads
SM90_WIDE_GROUP_HEADS = 64  # above 32 heads: one CTA per group of 64 heads (the heads-major kernel)


def sm90_head_groups(num_heads: int) -> int:
    """CTAs per (token, split): one up to 32 heads, then one per group of 64 heads."""
    return 1 if num_heads <= SM90_GROUP_HEADS else -(-num_heads // SM90_WIDE_GROUP_HEADS)


def sm90_ctas_per_sm(num_heads: int) -> int:
    """Resident CTAs per SM the batch-sized rule counts on: two for 9-16 heads, else one."""
    return 2 if 8 < num_heads <= 16 else 1


def sm90_splits_of(num_candidates: int, blocks_per_split: int) -> int:
    blocks = -(-num_candidates // SM90_BLOCK_ROWS)
    return -(-blocks // blocks_per_split)


def sm90_num_splits(num_heads: int, num_candidates: int) -> int:
    """The batch-invariant rule: a function of (H, K) only (eight 64-row blocks per split)."""
    return sm90_splits_of(num_candidates, SM90_INVARIANT_BLOCKS_PER_SPLIT)


def sm90_batch_num_splits(num_tokens: int, num_heads: int, num_candidates: int, sm_count: int) -> int:
    """The batch-sized rule: as many splits per token as keep the grid (tokens x splits x
    head groups) within one wave of resident CTAs (one per SM, two for 9-16 heads), at
    least one, at most one block each."""
    blocks = -(-num_candidates // SM90_BLOCK_ROWS)
    groups = sm90_head_groups(num_heads)
    target = sm90_ctas_per_sm(num_heads) * max(sm_count, 1) // groups
    splits = min(max(target // max(num_tokens, 1), 1), blocks)
    return sm90_splits_of(num_candidates, -(-blocks // splits))


def sm90_scratch_shapes(num_tokens: int, num_heads: int, splits: int) -> tuple:
    """``(part_out [T, P, H, 512], part_lse [T, P, H])`` f32 with ``P = splits`` when
    ``splits > 1``, else ``P = 0`` (the kernel then writes out and lse itself)."""
    rows = splits if splits > 1 else 0
    return (num_tokens, rows, num_heads, layout.HEAD_DIM), (num_tokens, rows, num_heads)


def sm90_sparse_mla_call(q, pool, indices, topk_lens, sm_scale: float, splits: int):
    """Our SM90 sparse MLA: ``(out [T,H,512] bf16, lse [T,H] f32)``; the handler reads the
    split count from the scratch shape."""
    part_out, part_lse = sm90_scratch_shapes(q.shape[0], q.shape[1], splits)
    results = _attention_results(
        q, jax.ShapeDtypeStruct(part_out, jnp.float32), jax.ShapeDtypeStruct(part_lse, jnp.float32)
    )
    out, lse, _, _ = jax.ffi.ffi_call(SM90_SPARSE_MLA, results)(
        q, pool, indices, topk_lens, sm_scale=np.float32(sm_scale)
    )
    return out, lse


def cxx_sm90_split_rules(library: ctypes.CDLL, num_tokens, num_heads, num_candidates, sm_count):
    """``(invariant, batch, scratch rows of batch)`` as the compiled C++ computes them."""
    batch = library.jax_glm_nope_sm90_batch_num_splits(num_tokens, num_heads, num_candidates, sm_count)
    return (
        library.jax_glm_nope_sm90_num_splits(num_heads, num_candidates),
        batch,
        library.jax_glm_nope_sm90_scratch_splits(batch),
    )


class _KernelRow(ctypes.Structure):
    # ffi/ours/sm90/sparse_mla.cu's JaxGlmNopeSm90KernelRow, field for field.
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("min_heads", ctypes.c_int32),
        ("max_heads", ctypes.c_int32),
        ("min_blocks_per_split", ctypes.c_int32),
        ("max_blocks_per_split", ctypes.c_int32),
        ("group_heads", ctypes.c_int32),
        ("ctas_per_sm", ctypes.c_int32),
        ("threads", ctypes.c_int32),
        ("smem_bytes", ctypes.c_int32),
        ("padded_rows", ctypes.c_int32),
        ("batch_invariant", ctypes.c_int32),
    ]


@dataclasses.dataclass(frozen=True)
class Sm90Kernel:
    """One row of the compiled kernel table (``kKernels`` in
    ffi/ours/sm90/sparse_mla_kernel.cuh): which calls the kernel serves and its grid."""

    index: int
    name: str
    min_heads: int
    max_heads: int
    min_blocks_per_split: int
    max_blocks_per_split: int | None  # None: no upper limit
    group_heads: int  # heads per CTA: ceil(H / group_heads) CTAs per (token, split)
    ctas_per_sm: int  # resident CTAs per SM that the batch-sized split rule counts on
    threads: int
    smem_bytes: int
    padded_rows: bool
    batch_invariant: bool


def _sm90_kernel_row(library: ctypes.CDLL, index: int) -> Sm90Kernel:
    read = library.jax_glm_nope_sm90_kernel_row
    read.restype = ctypes.c_bool
    read.argtypes = (ctypes.c_int, ctypes.POINTER(_KernelRow))
    row = _KernelRow()
    if not read(index, ctypes.byref(row)):
        raise RuntimeError(f"the native library has no kernel row {index}")
    unbounded = row.max_blocks_per_split == 2**31 - 1
    return Sm90Kernel(
        index=index,
        name=row.name.decode(),
        min_heads=row.min_heads,
        max_heads=row.max_heads,
        min_blocks_per_split=row.min_blocks_per_split,
        max_blocks_per_split=None if unbounded else row.max_blocks_per_split,
        group_heads=row.group_heads,
        ctas_per_sm=row.ctas_per_sm,
        threads=row.threads,
        smem_bytes=row.smem_bytes,
        padded_rows=bool(row.padded_rows),
        batch_invariant=bool(row.batch_invariant),
    )


def cxx_sm90_kernels(library: ctypes.CDLL) -> tuple[Sm90Kernel, ...]:
    """The compiled kernel table, row by row (the one source of the kernel rows)."""
    return tuple(_sm90_kernel_row(library, i) for i in range(library.jax_glm_nope_sm90_kernel_count()))


def cxx_sm90_kernel(library: ctypes.CDLL, num_heads: int, num_candidates: int, splits: int):
    """The row of the compiled kernel table that the launcher takes for this call (an
    :class:`Sm90Kernel`), or None for a call it refuses."""
    index = library.jax_glm_nope_sm90_kernel_index(num_heads, num_candidates, splits)
    return None if index < 0 else _sm90_kernel_row(library, index)


def write_kv_call(pool2d, latent, slots):
    """Quantize ``latent`` rows into ``pool2d`` at ``slots``, in place (operand 0 aliases result 0)."""
    return jax.ffi.ffi_call(
        WRITE_KV,
        jax.ShapeDtypeStruct(pool2d.shape, jnp.uint8),
        input_output_aliases={0: 0},
        vmap_method="sequential",
    )(pool2d, latent, slots)


def dequantize_call(rows):
    """``rows [N, 528 | 656]`` uint8 -> ``[N, 512]`` float32."""
    return jax.ffi.ffi_call(
        DEQUANTIZE,
        jax.ShapeDtypeStruct((rows.shape[0], layout.HEAD_DIM), jnp.float32),
        vmap_method="sequential",
    )(rows)
