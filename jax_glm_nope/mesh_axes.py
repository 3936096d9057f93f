"""The varying-mesh-axes type of ``shard_map``, carried through custom calls.

Inside ``shard_map`` (``check_vma=True``) every value is typed with the mesh axes it
varies over. A custom call (XLA FFI, a Pallas kernel, the per-platform primitive)
requires its operands to agree, and its results would otherwise vary over none: a token
split over devices would come back typed as replicated. One home for reading and
setting that type, whichever way this jax spells it (``vma``, or
``manual_axis_type.varying``).
"""

from __future__ import annotations

import functools

import jax


def of_aval(aval) -> frozenset:
    """The mesh axes a value of ``aval`` varies over (empty outside ``shard_map``)."""
    axes = getattr(aval, "vma", None)  # spelled ``vma`` by some jax releases
    if axes is None:
        axes = getattr(getattr(aval, "manual_axis_type", None), "varying", None)
    return frozenset(axes or ())


def varying_axes(x) -> frozenset:
    """The mesh axes ``x`` varies over inside ``shard_map`` (empty outside, or when the
    check is off)."""
    return of_aval(jax.typeof(x))


def type_keywords(aval) -> dict:
    """The ``jax.ShapeDtypeStruct`` / ``aval.update`` keywords that give a result
    ``aval``'s mesh-axes type."""
    if hasattr(aval, "vma"):
        return {"vma": aval.vma}
    axis_type = getattr(aval, "manual_axis_type", None)
    return {} if axis_type is None else {"manual_axis_type": axis_type}


def vary_over(tree, axes: frozenset):
    """Every leaf of ``tree`` marked varying over ``axes`` (``jax.lax.pcast``, a no-op cast)."""

    def cast(x):
        missing = tuple(sorted(axes - varying_axes(x), key=str))
        return jax.lax.pcast(x, missing, to="varying") if missing else x

    return jax.tree.map(cast, tree) if axes else tree


def same_varying_axes(*arrays) -> tuple:
    """``arrays``, each marked varying over the union of their mesh axes."""
    return vary_over(arrays, frozenset().union(*map(varying_axes, arrays)))


def with_varying_axes(call):
    """``call`` as a custom call's wrapper inside ``shard_map``: its operands get the
    union of their varying mesh axes and so do its results. Outside ``shard_map`` it is
    ``call``."""

    @functools.wraps(call)
    def wrapped(*args):
        axes = frozenset().union(*map(varying_axes, jax.tree.leaves(args)))
        return vary_over(call(*vary_over(args, axes)), axes)

    return wrapped
