"""The KV cache on the model author's side: allocate pools, shard them, map pages to slots.

A model with ``L`` sparse-MLA layers keeps one pool per layer, ``[num_pages, page_size,
row_bytes]`` uint8 (528-byte COMPACT rows by default), or one stacked ``[L, num_pages,
page_size, row_bytes]`` array for a ``lax.scan`` over layers. A token's slot is
``page * page_size + offset`` in its layer's pool; every layer uses the same slots.

**Donation across layers.** Pass the pools to the jitted step with ``donate_argnums``
and return the updated ones: each ``write_kv`` then updates its pool in place, and
the step allocates no second copy of the cache::

    pools = jgn.allocate_pools(num_layers, num_pages, page_size)

    @functools.partial(jax.jit, donate_argnums=0)
    def step(pools, ...):
        new_pools = []
        for layer, pool in enumerate(pools):
            pool = jgn.write_kv(pool, c_kv[layer], slots)
            out, lse = jgn.sparse_mla(q[layer], pool, indices, 1 / 16, topk_lens)
            new_pools.append(pool)
        return new_pools, ...

**Stacked pool under** ``lax.scan``. Carry the stacked pool (donated) through the scan,
view it as one 2-D pool of ``L * num_pages * page_size`` slots (a free reshape) and
shift each layer's slots with :func:`stacked_slots`; ``write_kv`` and ``sparse_mla``
then read and write the carried buffer in place::

    pool = jgn.allocate_pools(num_layers, num_pages, page_size, stacked=True)
    slots_per_layer = num_pages * page_size

    def layer(pool, inputs):
        c_kv, q, layer_id = inputs
        flat = pool.reshape(-1, pool.shape[-1])
        flat = jgn.write_kv(flat, c_kv, jgn.stacked_slots(slots, layer_id, slots_per_layer))
        out, lse = jgn.sparse_mla(q, flat, jgn.stacked_slots(indices, layer_id, slots_per_layer),
                                  1 / 16, topk_lens)
        return flat.reshape(pool.shape), out

    pool, outs = jax.lax.scan(layer, pool, (c_kv, q, jnp.arange(num_layers, dtype=jnp.int32)))

Scanning over the pool as ``xs`` instead (``lax.scan(f, init, pool)`` returning each
layer's pool as ``ys``) makes XLA keep a second copy of the whole cache, and slicing
``pool[layer]`` out of the carry and writing it back copies one layer's pool per step.
The slots of the flattened pool must stay below 2**31 (int32 ids).

**Sharding.** MLA caches one latent for all heads, so every tensor-parallel rank holds
the same rows; pages are split over a data-parallel axis, each data shard owning its
requests' pages (:func:`pool_partition_spec`). A sharded pool is read and written
inside ``jax.shard_map`` (its default checks included), where each device sees its own
pages and the slots, block tables and ``stacked_slots`` arithmetic are local to them;
the stacked loop above then runs unchanged on each device's ``[L, num_pages / data,
page_size, row_bytes]`` block, with no collective (``examples/sharded_scan.py``). Under
a plain ``jit`` the reshape of a stacked pool merges the layer axis with the sharded
page axis and the slots are global, so XLA gathers the cache across devices or raises
a ``ShardingTypeError``.
"""

from __future__ import annotations

import numbers
from typing import Literal, overload

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import PartitionSpec
from jax.typing import ArrayLike

from . import validate
from .layout import COMPACT, RowFormat

INT32_LIMIT = validate.INT32_LIMIT


def _check_geometry(num_pages, page_size, fmt, num_layers=1) -> tuple[int, int, RowFormat, int]:
    num_layers = validate.check_static_int(num_layers, "num_layers", 1)
    num_pages = validate.check_static_int(num_pages, "num_pages", 1)
    page_size = validate.check_static_int(page_size, "page_size", 1)
    fmt = validate.check_format(fmt)
    if num_pages * page_size >= INT32_LIMIT:
        raise ValueError(
            f"num_pages * page_size: at most 2**31 - 1 slots per pool (int32 slot ids), got "
            f"{num_pages} x {page_size} = {num_pages * page_size}"
        )
    return num_pages, page_size, fmt, num_layers


def pool_shape(num_pages: int, page_size: int, fmt: RowFormat | int = COMPACT) -> tuple[int, int, int]:
    """``(num_pages, page_size, fmt.bytes_per_token)``: one layer's pool."""
    num_pages, page_size, fmt, _ = _check_geometry(num_pages, page_size, fmt)
    return num_pages, page_size, fmt.bytes_per_token


def pool_bytes(num_layers: int, num_pages: int, page_size: int, fmt: RowFormat | int = COMPACT) -> int:
    """Bytes of ``num_layers`` pools of ``num_pages`` pages of ``page_size`` rows (exact int)."""
    num_pages, page_size, fmt, num_layers = _check_geometry(num_pages, page_size, fmt, num_layers)
    return num_layers * num_pages * page_size * fmt.bytes_per_token


@overload
def allocate_pools(
    num_layers: int,
    num_pages: int,
    page_size: int,
    fmt: RowFormat | int = ...,
    *,
    stacked: Literal[False] = ...,
    sharding: jax.sharding.Sharding | None = ...,
) -> list[jax.Array]: ...


@overload
def allocate_pools(
    num_layers: int,
    num_pages: int,
    page_size: int,
    fmt: RowFormat | int = ...,
    *,
    stacked: Literal[True],
    sharding: jax.sharding.Sharding | None = ...,
) -> jax.Array: ...


@overload
def allocate_pools(
    num_layers: int,
    num_pages: int,
    page_size: int,
    fmt: RowFormat | int = ...,
    *,
    stacked: bool,
    sharding: jax.sharding.Sharding | None = ...,
) -> list[jax.Array] | jax.Array: ...


def allocate_pools(
    num_layers: int,
    num_pages: int,
    page_size: int,
    fmt: RowFormat | int = COMPACT,
    *,
    stacked: bool = False,
    sharding: jax.sharding.Sharding | None = None,
) -> list[jax.Array] | jax.Array:
    """Zeroed uint8 KV pools: a list of ``num_layers`` arrays ``[num_pages, page_size,
    row_bytes]``, or with ``stacked=True`` one ``[num_layers, num_pages, page_size,
    row_bytes]`` array (for ``lax.scan``, see the module docstring).

    ``fmt``: ``COMPACT`` (528-byte rows, the default) or ``PADDED`` (656), or their row
    bytes. ``sharding``: where to place each pool, e.g. ``NamedSharding(mesh,
    pool_partition_spec("data"))`` (with ``stacked=True``, a sharding of the 4-D array:
    ``pool_partition_spec("data", stacked=True)``); ``None`` puts them on the default
    device. A zero row is a valid row (codes and scales 0), so a slot never written reads
    as zeros, not NaN.
    """
    num_pages, page_size, fmt, num_layers = _check_geometry(num_pages, page_size, fmt, num_layers)
    stacked = validate.check_bool(stacked, "stacked")
    if sharding is not None and not isinstance(sharding, jax.sharding.Sharding):
        raise TypeError(
            f"sharding: expected None or a jax.sharding.Sharding (e.g. NamedSharding), "
            f"got {type(sharding).__name__}"
        )
    shape = (num_pages, page_size, fmt.bytes_per_token)
    if stacked:
        return jnp.zeros((num_layers, *shape), jnp.uint8, device=sharding)
    return [jnp.zeros(shape, jnp.uint8, device=sharding) for _ in range(num_layers)]


def pool_partition_spec(
    data_axis: str | tuple[str, ...] | None = None, *, stacked: bool = False
) -> PartitionSpec:
    """The ``PartitionSpec`` of a pool: pages split over ``data_axis``, the rest replicated.

    ``P(data_axis, None, None)`` for ``[num_pages, page_size, row_bytes]`` (``P(None,
    data_axis, None, None)`` with ``stacked=True``). Every mesh axis not named, the
    tensor-parallel (``"model"``) axis above all, replicates the pool: MLA caches one
    latent per token for all heads, so every tensor-parallel rank needs every row of its
    data shard (capacity does not grow with tensor parallelism). Inside ``shard_map``
    each data shard sees its own ``num_pages / data`` pages, and its block tables and
    slots are local to them. ``data_axis=None`` replicates the whole pool.
    """
    stacked = validate.check_bool(stacked, "stacked")
    if data_axis is not None and not (
        isinstance(data_axis, str)
        or (isinstance(data_axis, tuple) and all(isinstance(a, str) for a in data_axis))
    ):
        raise TypeError(f"data_axis: expected None, a mesh axis name or a tuple of names, got {data_axis!r}")
    spec = (data_axis, None, None)
    return PartitionSpec(None, *spec) if stacked else PartitionSpec(*spec)


def _check_block_tables(block_tables, token_req, num_tokens: int, page_size) -> int:
    validate.check_table(block_tables, "block_tables", "[R, max_blocks]")
    validate.check_dtype(token_req, "token_req", (jnp.int32,))
    validate.check_length(token_req, "token_req", num_tokens, "T of positions")
    return validate.check_page_size(page_size)


def paged_slots(block_tables, positions, token_req, page_size: int) -> jax.Array:
    """The vLLM rule on any ``[T, ...]`` positions, unchecked (the callers validate); every
    invalid entry gives -1."""
    block_tables = jnp.asarray(block_tables)
    positions = jnp.asarray(positions)
    num_requests, max_blocks = block_tables.shape
    requests = jnp.asarray(token_req).reshape((-1,) + (1,) * (positions.ndim - 1))
    block = positions // page_size
    valid = (positions >= 0) & (block < max_blocks) & (requests >= 0) & (requests < num_requests)
    page = block_tables[jnp.where(valid, requests, 0), jnp.where(valid, block, 0)]
    offset = positions % page_size
    # page * page_size + offset <= 2**31 - 1, computed without leaving int32
    valid = valid & (page >= 0) & (page <= (jnp.int32(INT32_LIMIT - 1) - offset) // page_size)
    return jnp.where(valid, page * page_size + offset, -1).astype(jnp.int32)


def block_tables_to_slots(
    block_tables: ArrayLike, positions: ArrayLike, token_req: ArrayLike, page_size: int
) -> jax.Array:
    """Slots ``[T]`` int32 for the tokens at ``positions [T]`` of requests ``token_req [T]``.

    The vLLM / Pallas paged-attention convention: ``block_tables [R, max_blocks]`` int32
    lists each request's pages in order, so position ``pos`` of request ``r`` lives at
    ``slot = block_tables[r, pos // page_size] * page_size + pos % page_size``. A
    negative position, a block past ``max_blocks``, a request outside ``[0, R)``, a
    negative (unallocated) table entry or a slot past the int32 range gives -1, which
    ``write_kv`` drops and ``sparse_mla`` treats as a hole. Use it for the slots of
    ``write_kv``.
    """
    validate.check_dtype(positions, "positions", (jnp.int32,))
    validate.check_rank(positions, "positions", (1,), "[T]")
    num_tokens = int(np.shape(positions)[0])
    page_size = _check_block_tables(block_tables, token_req, num_tokens, page_size)
    return paged_slots(block_tables, positions, token_req, page_size)


def block_tables_to_candidate_slots(
    block_tables: ArrayLike, positions: ArrayLike, token_req: ArrayLike, page_size: int
) -> jax.Array:
    """Candidate positions ``[T, C]`` -> slots ``[T, C]`` int32, by the rule of
    :func:`block_tables_to_slots`; row ``t`` reads request ``token_req[t]``'s table.

    For the indexer's request-local top-k positions (-1 for a missing candidate, kept
    as -1); the result goes to ``pad_candidates`` and then ``sparse_mla``.
    """
    validate.check_dtype(positions, "positions", (jnp.int32,))
    validate.check_rank(positions, "positions", (2,), "[T, C]")
    num_tokens = int(np.shape(positions)[0])
    page_size = _check_block_tables(block_tables, token_req, num_tokens, page_size)
    return paged_slots(block_tables, positions, token_req, page_size)


def stacked_slots(slots: ArrayLike, layer: ArrayLike, slots_per_layer: int) -> jax.Array:
    """Layer-local ``slots`` (any shape, int32) -> slots of a flattened stacked pool.

    ``slot + layer * slots_per_layer`` for ``0 <= slot < slots_per_layer``, -1 for every
    other entry (so a hole never lands in the next layer's rows). ``layer`` may be
    traced (the index of a ``lax.scan``); ``slots_per_layer`` is ``num_pages *
    page_size`` and ``num_layers * slots_per_layer`` must stay below 2**31.
    """
    validate.check_dtype(slots, "slots", (jnp.int32,))
    slots_per_layer = validate.check_static_int(slots_per_layer, "slots_per_layer", 1)
    if slots_per_layer >= INT32_LIMIT:
        raise ValueError(f"slots_per_layer: at most 2**31 - 1 (int32 slot ids), got {slots_per_layer}")
    if isinstance(layer, (bool, np.bool_)):
        raise TypeError(f"layer: expected an int or an int32 scalar array, got {type(layer).__name__}")
    if isinstance(layer, numbers.Integral):
        if not 0 <= int(layer) < INT32_LIMIT // slots_per_layer:
            raise ValueError(
                f"layer: expected 0 <= layer < {INT32_LIMIT // slots_per_layer} (int32 slots of the "
                f"stacked pool), got {layer!r}"
            )
    else:
        validate.check_dtype(layer, "layer", (jnp.int32,))
        validate.check_rank(layer, "layer", (0,), "a scalar")
    slots = jnp.asarray(slots)
    offset = jnp.asarray(layer, jnp.int32) * jnp.int32(slots_per_layer)
    return jnp.where((slots >= 0) & (slots < slots_per_layer), slots + offset, -1)
