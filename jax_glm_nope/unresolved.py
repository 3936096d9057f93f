"""The automatic choice on a host without a GPU, for platforms other than its own.

On a CPU host, ``implementation=None`` runs the CPU's implementation (the plain-jnp
reference, the XLA scatter). If the same call is lowered for a GPU platform (``jax.export``
with ``platforms=("cuda",)``, ``("cpu", "cuda")``, ``.trace(...).lower(lowering_platforms=
...)``), there is no GPU whose kernel the dispatch table could pick, and embedding the
reference in a GPU artifact would be a silent slow path. So the call is lowered per
platform (``lax.platform_dependent``): the CPU's implementation for the CPU, and for any
other platform a primitive whose lowering raises, asking for a device record
(:func:`jax_glm_nope.lowering_for`) or an explicit ``implementation=``. The primitive
never runs: it has shapes (abstract evaluation) and a batching rule, so that ``jit``,
``vmap`` and differentiation (through the CPU implementation's JVP) of the automatic call
behave on the CPU as before.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import jax
from jax.extend import core as jex_core
from jax.interpreters import batching, mlir

from .implementations.batching import with_varying_axes

_unresolved_p = jex_core.Primitive("jax_glm_nope_unresolved_implementation")
_unresolved_p.multiple_results = True


def _out_avals(call: Callable, args) -> tuple[tuple, jax.tree_util.PyTreeDef]:
    """The avals and tree of ``call``'s outputs for arguments shaped like ``args``."""
    outs = jax.eval_shape(call, *(jax.ShapeDtypeStruct(a.shape, a.dtype) for a in args))
    leaves, tree = jax.tree.flatten(outs)
    return tuple(jax.core.ShapedArray(x.shape, x.dtype) for x in leaves), tree


@_unresolved_p.def_abstract_eval
def _abstract_eval(*avals, operation: str, call: Callable, out_avals: tuple):
    del avals, operation, call
    return list(out_avals)


def _batch(args, dims, *, operation: str, call: Callable, out_avals: tuple):
    del out_avals
    vcall = jax.vmap(call, in_axes=tuple(dims))  # jax's not_mapped is None, vmap's unbatched axis
    vout, _ = _out_avals(vcall, [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in args])
    outs = _unresolved_p.bind(*args, operation=operation, call=vcall, out_avals=vout)
    return outs, [0] * len(outs)


batching.primitive_batchers[_unresolved_p] = _batch


def _refuse(ctx, *args, operation: str, call: Callable, out_avals: tuple):
    del args, call, out_avals
    platforms = ", ".join(ctx.module_context.platforms)
    raise ValueError(
        f"{operation}(implementation=None) is being lowered for {platforms} on a host without a "
        "GPU, so there is no device whose kernel to choose (the reference is not embedded in a GPU "
        "artifact). Lower inside jax_glm_nope.lowering_for(jax_glm_nope.Device(...)) naming the "
        "target GPU, e.g. Device('cuda', 'NVIDIA H200', (9, 0), 132), or pass implementation= "
        "explicitly."
    )


mlir.register_lowering(_unresolved_p, _refuse)  # every platform; the CPU's is pruned


def _unresolved(operation: str, call: Callable, *args):
    out_avals, tree = _out_avals(call, args)  # once: the abstract evaluation returns these
    outs = _unresolved_p.bind(*args, operation=operation, call=call, out_avals=out_avals)
    return jax.tree.unflatten(tree, outs)


def cpu_only(operation: str, call: Callable, args: tuple):
    """``call(*args)`` for the CPU platform; lowering for any other platform raises."""

    @jax.custom_jvp
    def choose(*xs):
        return jax.lax.platform_dependent(
            *xs, cpu=call, default=with_varying_axes(functools.partial(_unresolved, operation, call))
        )

    @choose.defjvp
    def _jvp(primals, tangents):
        return jax.jvp(call, primals, tangents)

    return choose(*args)
