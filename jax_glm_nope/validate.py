"""The validating boundary (docs/semantics.md, errors).

Every public function calls these before anything else. They run at trace time
(shapes and dtypes are static), raise ``TypeError`` for a wrong kind or dtype and
``ValueError`` for a wrong shape or value, and name the argument, what was expected
and what was given. Nothing below this module re-validates.
"""

from __future__ import annotations

import numbers
from typing import cast

import jax
import jax.numpy as jnp
import numpy as np

from . import layout
from .layout import HEAD_DIM, RowFormat

INT32_LIMIT = 2**31  # slot ids and candidate indices are int32: every one is below it

MAX_TOKENS = 65536  # T limit of sparse_mla
MAX_HEADS = 128
FLOAT32_MAX = float(np.finfo(np.float32).max)


def _array(x, name: str):
    if not (hasattr(x, "shape") and hasattr(x, "dtype")):
        raise TypeError(f"{name}: expected an array (jax.Array or numpy.ndarray), got {type(x).__name__}")
    check_static_shape(x, name)
    if isinstance(x, jax.ShapeDtypeStruct):  # has a shape and a dtype, but no values
        raise TypeError(
            f"{name}: expected an array (jax.Array or numpy.ndarray), got a jax.ShapeDtypeStruct "
            f"{_shape_text(x.shape)} {_dtype_name(x)} (an abstract value: pass it to jax.jit(f).lower, "
            "jax.eval_shape or jax.export, which trace the call, not to the function itself)"
        )
    return x


def _shape_text(shape) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def check_static_shape(x, name: str) -> tuple[int, ...]:
    """The shape of ``x`` as ints; a symbolic dimension (``jax.export`` shape
    polymorphism) is a ``ValueError`` naming ``name``.

    Kernel schedules, scratch sizes and the dispatch table are chosen from concrete
    T, H and K at trace time, so every public function needs static shapes.
    """
    shape = tuple(x.shape)
    if not all(isinstance(d, numbers.Integral) for d in shape):
        raise ValueError(
            f"{name}: shapes must be static (symbolic dimensions from jax.export shape "
            f"polymorphism are not supported; export one artifact per shape), got shape {_shape_text(shape)}"
        )
    return tuple(int(d) for d in shape)


def _dtype_name(x) -> str:
    return np.dtype(x.dtype).name


def check_dtype(x, name: str, allowed: tuple) -> None:
    _array(x, name)
    if np.dtype(x.dtype) not in [np.dtype(d) for d in allowed]:
        wanted = " or ".join(np.dtype(d).name for d in allowed)
        raise TypeError(f"{name}: expected dtype {wanted}, got {_dtype_name(x)}")


def check_rank(x, name: str, ranks: tuple[int, ...], meaning: str) -> None:
    _array(x, name)
    if x.ndim not in ranks:
        raise ValueError(f"{name}: expected shape {meaning}, got shape {tuple(x.shape)}")


def check_length(x, name: str, length: int, meaning: str) -> None:
    """A 1-D array of ``length`` entries; ``meaning`` says where the length comes from."""
    _array(x, name)
    if tuple(x.shape) != (length,):
        raise ValueError(f"{name}: expected shape ({length},) ({meaning}), got {tuple(x.shape)}")


def check_pool(pool, name: str = "pool") -> tuple[int, RowFormat]:
    """A 2-D ``[num_slots, row_bytes]`` or 3-D ``[pages, page_size, row_bytes]`` uint8 pool.

    Returns ``(num_slots, fmt)``.
    """
    check_dtype(pool, name, (jnp.uint8,))
    if getattr(pool, "ndim", 0) == 4:
        # The shape allocate_pools(..., stacked=True) returns: the kernels read one flat
        # pool, so the layer axis folds into the slots rather than being indexed away.
        raise ValueError(
            f"{name}: expected shape [num_slots, row_bytes] or [num_pages, page_size, row_bytes], got "
            f"shape {tuple(pool.shape)}: a stacked [num_layers, num_pages, page_size, row_bytes] pool "
            f"is passed flat, pool.reshape(-1, {pool.shape[-1]}), with slots and indices from "
            "stacked_slots(slots, layer, num_pages * page_size)"
        )
    check_rank(pool, name, (2, 3), "[num_slots, row_bytes] or [num_pages, page_size, row_bytes]")
    try:
        fmt = layout.row_format(int(pool.shape[-1]))
    except ValueError as err:
        raise ValueError(f"{name}: {err} (last axis of shape {tuple(pool.shape)})") from None
    num_slots = int(np.prod(pool.shape[:-1]))
    if num_slots < 1:
        raise ValueError(f"{name}: expected at least one slot, got shape {tuple(pool.shape)}")
    if num_slots >= 2**31:
        raise ValueError(f"{name}: at most 2**31 - 1 slots (int32 slot ids), got {num_slots}")
    return num_slots, fmt


def check_q(q) -> tuple[int, int]:
    check_dtype(q, "q", (jnp.bfloat16,))
    check_rank(q, "q", (3,), f"[T, H, {HEAD_DIM}]")
    num_tokens, num_heads, head_dim = (int(d) for d in q.shape)
    if head_dim != HEAD_DIM:
        raise ValueError(f"q: expected head dim {HEAD_DIM} (last axis), got shape {tuple(q.shape)}")
    if not 1 <= num_heads <= MAX_HEADS:
        raise ValueError(f"q: expected 1 <= H <= {MAX_HEADS} heads (axis 1), got H={num_heads}")
    if num_tokens > MAX_TOKENS:
        raise ValueError(f"q: expected at most {MAX_TOKENS} tokens (axis 0), got T={num_tokens}")
    return num_tokens, num_heads


def check_indices(indices, num_tokens: int, name: str = "indices") -> int:
    check_dtype(indices, name, (jnp.int32,))
    check_rank(indices, name, (2,), "[T, K]")
    if int(indices.shape[0]) != num_tokens:
        raise ValueError(f"{name}: expected {num_tokens} rows (T of q), got shape {tuple(indices.shape)}")
    num_candidates = int(indices.shape[1])
    if num_candidates < 1:
        raise ValueError(f"{name}: expected K >= 1 candidates (axis 1), got K={num_candidates}")
    return num_candidates


def check_topk_lens(topk_lens, num_tokens: int) -> None:
    check_dtype(topk_lens, "topk_lens", (jnp.int32,))
    if tuple(topk_lens.shape) != (num_tokens,):
        raise ValueError(f"topk_lens: expected shape ({num_tokens},) (T of q), got {tuple(topk_lens.shape)}")


def check_sm_scale(sm_scale) -> float:
    """A Python float, int or numpy real scalar whose value is finite in float32.

    The kernels compute scores in float32: a scale beyond the float32 maximum (1e39,
    1e300) is inf there and turns every score into inf or NaN.
    """
    if isinstance(sm_scale, (bool, np.bool_)) or not isinstance(sm_scale, numbers.Real):
        raise TypeError(
            f"sm_scale: expected a Python float (or int, or numpy real scalar), got {type(sm_scale).__name__}"
        )
    expected = f"sm_scale: expected a finite float (finite in float32: |sm_scale| <= {FLOAT32_MAX:.8g})"
    try:
        value = float(sm_scale)
    except OverflowError:  # an int past the float64 range
        raise ValueError(
            f"{expected}, got an int of {len(str(abs(int(cast(int, sm_scale)))))} digits"
        ) from None
    if not np.isfinite(value) or abs(value) > FLOAT32_MAX:
        raise ValueError(f"{expected}, got {value!r}")
    return value


def check_bool(value, name: str) -> bool:
    """A Python or numpy bool, as a Python bool; any other truthy object ("yes", 1) is a TypeError."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}: expected a bool (True or False), got {type(value).__name__} {value!r}")
    return bool(value)


def check_latent(latent, name: str = "latent") -> int:
    check_dtype(latent, name, (jnp.bfloat16, jnp.float16, jnp.float32))
    check_rank(latent, name, (2,), f"[T, {HEAD_DIM}]")
    if int(latent.shape[1]) != HEAD_DIM:
        raise ValueError(
            f"{name}: expected {HEAD_DIM} values per row (axis 1), got shape {tuple(latent.shape)}"
        )
    return int(latent.shape[0])


def check_slots(slots, num_tokens: int, name: str = "slots") -> None:
    check_dtype(slots, name, (jnp.int32,))
    if tuple(slots.shape) != (num_tokens,):
        raise ValueError(
            f"{name}: expected shape ({num_tokens},) (one slot per latent row), got {tuple(slots.shape)}"
        )


def check_format(fmt, name: str = "fmt") -> RowFormat:
    """``COMPACT``/``PADDED`` (or an equal ``RowFormat``) or their row bytes, 528/656.

    ``RowFormat`` is a public dataclass, so anyone can build ``RowFormat("X", 600)``;
    only the two layouts every kernel reads are accepted.
    """
    if isinstance(fmt, RowFormat):
        for known in layout.FORMATS:
            if fmt == known:
                return known
        raise ValueError(
            f"{name}: expected RowFormat.COMPACT or RowFormat.PADDED (or 528/656), got "
            f"RowFormat({fmt.name!r}, bytes_per_token={fmt.bytes_per_token}, "
            f"codes_offset={fmt.codes_offset}, scales_offset={fmt.scales_offset}, "
            f"reserved_offset={fmt.reserved_offset})"
        )
    if isinstance(fmt, numbers.Integral) and not isinstance(fmt, bool):
        for known in layout.FORMATS:
            if known.bytes_per_token == int(fmt):
                return known
        raise ValueError(
            f"{name}: expected one of {[f.bytes_per_token for f in layout.FORMATS]} row bytes "
            f"(COMPACT or PADDED rows), got {fmt}"
        )
    raise TypeError(f"{name}: expected a RowFormat (COMPACT or PADDED) or 528/656, got {fmt!r}")


def check_rows(rows, name: str = "rows") -> RowFormat:
    check_dtype(rows, name, (jnp.uint8,))
    if rows.ndim < 1:
        raise ValueError(f"{name}: expected shape [..., row_bytes], got a scalar")
    try:
        return layout.row_format(int(rows.shape[-1]))
    except ValueError as err:
        raise ValueError(f"{name}: {err} (last axis of shape {tuple(rows.shape)})") from None


def check_table(x, name: str, meaning: str, *, nonempty: bool = True) -> tuple[int, int]:
    """An int32 ``[rows, cols]`` table of static shape (block tables, req_to_token):
    ``(rows, cols)``; with ``nonempty`` both at least 1."""
    check_dtype(x, name, (jnp.int32,))
    check_rank(x, name, (2,), meaning)
    rows, cols = check_static_shape(x, name)
    if nonempty and (rows < 1 or cols < 1):
        raise ValueError(f"{name}: expected a non-empty {meaning} table, got shape {tuple(x.shape)}")
    return rows, cols


def check_page_size(page_size, name: str = "page_size") -> int:
    """Tokens per page: a Python int, at least 1, and small enough that a page's slots
    have int32 ids."""
    page_size = check_static_int(page_size, name, 1)
    if page_size >= INT32_LIMIT:
        raise ValueError(f"{name}: expected at most 2**31 - 1 (int32 slot ids), got {page_size}")
    return page_size


def check_static_int(value, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}: expected a Python int, got {type(value).__name__}")
    if int(value) < minimum:
        raise ValueError(f"{name}: expected an int >= {minimum}, got {value}")
    return int(value)
