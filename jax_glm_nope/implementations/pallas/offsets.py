"""64-bit addressing for byte arrays of 2-4 GiB in the Pallas Triton lowering.

Pallas-Triton computes a load's element offsets in int32 unless the array exceeds 2^32
bytes, and Triton sign-extends them. For an array of 1-byte elements between 2^31 and
2^32 bytes (a pool of 4-8M rows of 528 B: one layer of a large cache) every offset past
2^31 comes out negative, so rows past the 2 GiB line would be read 4 GiB too low.

The pool cannot be viewed as wider words instead: XLA implements a width-changing
bitcast as an elementwise copy (its ``BitcastDtypesExpander``), gigabytes per call.
So :func:`install` makes the lowering's offset computation use 64-bit offsets for such
arrays: it shows that function a taller leading axis. Besides the size, the function
reads only the strides, which do not depend on the leading axis, so the offsets are
the same numbers in a wider type. Arrays outside that window lower exactly as before.
"""

from __future__ import annotations

import dataclasses
import math

INT32_ELEMENTS = 2**31  # element offsets below this fit int32
INT64_BYTES = 2**32  # the lowering's own threshold: past it, offsets are 64-bit anyway


def needs_int64_offsets(shape: tuple[int, ...], itemsize: int) -> bool:
    """Whether the lowering would address an array of ``shape`` with int32 offsets that
    overflow: more than 2^31 elements in at most 2^32 bytes (1-byte elements)."""
    elements = math.prod(shape)
    return elements > INT32_ELEMENTS and elements * itemsize <= INT64_BYTES


def _install() -> str | None:
    try:
        from jax._src.pallas.triton import lowering
    except ImportError as err:  # pragma: no cover - a jax without the Triton lowering
        return f"jax has no Pallas Triton lowering ({err})"
    original = getattr(lowering, "_compute_offsets_from_indices", None)
    if original is None or not dataclasses.is_dataclass(getattr(lowering, "BlockInfo", None)):
        return (
            "this jax's Pallas Triton lowering has no _compute_offsets_from_indices(block_info, "
            "indexer) to give 64-bit offsets to arrays of 2-4 GiB"
        )
    if getattr(original, "_jax_glm_nope_int64", False):
        return None

    def compute_offsets(block_info, nd_indexer):
        aval = block_info.full_shape_dtype
        shape, itemsize = tuple(aval.shape), aval.dtype.itemsize
        if shape and needs_int64_offsets(shape, itemsize):
            row = math.prod(shape[1:]) * itemsize
            taller = aval.update(shape=(INT64_BYTES // row + 1, *shape[1:]))
            block_info = dataclasses.replace(block_info, full_shape_dtype=taller)
        return original(block_info, nd_indexer)

    compute_offsets._jax_glm_nope_int64 = True  # type: ignore[attr-defined]
    lowering._compute_offsets_from_indices = compute_offsets
    return None


# Why pools of 2-4 GiB cannot be served (None: they can).
UNSUPPORTED = _install()
