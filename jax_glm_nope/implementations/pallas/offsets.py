"""64-bit addressing for byte arrays of 2-4 GiB in the Pallas Triton lowering.

Pallas-Triton computes a load's element offsets in int32 unless the array exceeds 2^32
bytes, and Triton sign-extends them. For an array of 1-byte elements between 2^31 and
2^32 bytes (a pool of 4-8M rows of 528 B: one layer of a large cache) every offset past
2^31 comes out negative, so rows past the 2 GiB line would be read 4 GiB too low.

The pool cannot be viewed as wider words instead: XLA implements a width-changing
bitcast as an elementwise copy (its ``BitcastDtypesExpander``), gigabytes per call.
So while this package's kernel is lowered for such a pool (:func:`int64_offsets`, entered
only around that lowering), the lowering's offset computation is shown a taller leading
axis for such arrays. Besides the size, the function reads only the strides, which do not
depend on the leading axis, so the offsets are the same numbers in a wider type. Arrays
outside that window lower exactly as before, and outside that lowering jax's function is
its own: nothing of jax is replaced at import or by any other call.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math

INT32_ELEMENTS = 2**31  # element offsets below this fit int32
INT64_BYTES = 2**32  # the lowering's own threshold: past it, offsets are 64-bit anyway
_MARK = "_jax_glm_nope_int64"


def needs_int64_offsets(shape: tuple[int, ...], itemsize: int) -> bool:
    """Whether the lowering would address an array of ``shape`` with int32 offsets that
    overflow: more than 2^31 elements in at most 2^32 bytes (1-byte elements)."""
    elements = math.prod(shape)
    return elements > INT32_ELEMENTS and elements * itemsize <= INT64_BYTES


def _lowering_module():
    """``(jax's Pallas Triton lowering module, None)``, or ``(None, why it cannot take
    64-bit offsets)``."""
    try:
        from jax._src.pallas.triton import lowering
    except ImportError as err:  # pragma: no cover - a jax without the Triton lowering
        return None, f"jax has no Pallas Triton lowering ({err})"
    original = getattr(lowering, "_compute_offsets_from_indices", None)
    if original is None or not dataclasses.is_dataclass(getattr(lowering, "BlockInfo", None)):
        return None, (
            "this jax's Pallas Triton lowering has no _compute_offsets_from_indices(block_info, "
            "indexer) to give 64-bit offsets to arrays of 2-4 GiB"
        )
    return lowering, None


def _wide(original):
    def compute_offsets(block_info, nd_indexer):
        aval = block_info.full_shape_dtype
        shape, itemsize = tuple(aval.shape), aval.dtype.itemsize
        if shape and needs_int64_offsets(shape, itemsize):
            row = math.prod(shape[1:]) * itemsize
            taller = aval.update(shape=(INT64_BYTES // row + 1, *shape[1:]))
            block_info = dataclasses.replace(block_info, full_shape_dtype=taller)
        return original(block_info, nd_indexer)

    setattr(compute_offsets, _MARK, True)
    return compute_offsets


@contextlib.contextmanager
def int64_offsets():
    """While active, jax's Pallas Triton lowering gives 64-bit offsets to 1-byte arrays of
    2-4 GiB (entered around the lowering of a kernel over such a pool only)."""
    lowering, _ = _lowering_module()
    original = getattr(lowering, "_compute_offsets_from_indices", None)
    if lowering is None or getattr(original, _MARK, False):  # unavailable, or already active
        yield
        return
    lowering._compute_offsets_from_indices = _wide(original)
    try:
        yield
    finally:
        lowering._compute_offsets_from_indices = original


def active() -> bool:
    """Whether jax's lowering currently gives 64-bit offsets to 2-4 GiB arrays."""
    lowering, _ = _lowering_module()
    return lowering is not None and getattr(lowering._compute_offsets_from_indices, _MARK, False)


# Why pools of 2-4 GiB cannot be served (None: they can).
UNSUPPORTED = _lowering_module()[1]
