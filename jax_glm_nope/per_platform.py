"""One call lowered per platform: a branch for each platform an artifact may run on.

Under :func:`jax_glm_nope.lowering_for`, the automatic choice is made for the record's
device, and one exported artifact may serve several platforms (``platforms=("cpu",
"cuda")``). Each platform gets its own branch: the record's kernel for the record's
platform, the plain-jnp implementation for the CPU, and a lowering error for any other
(a GPU artifact never carries the reference silently).

``lax.platform_dependent`` is not enough for that: in a multi-platform module jax lowers
each branch it keeps for every platform of the module, and a Pallas kernel has no CPU
lowering. So this primitive's lowering rules are registered per platform: jax emits one
``case`` whose branch for platform ``p`` is lowered for ``p`` alone, from a jaxpr traced
when the call was (what is lowered is what was chosen, whatever the context at lowering
time).

The primitive has shapes, a batching rule, a JVP rule and a transpose rule, all of which
keep the per-platform form: the derivative of the call is again one branch per platform
(each platform's branch differentiated: the kernels raise their "not differentiable"
error when it is traced, the reference differentiates), and a platform without a branch
still refuses at lowering. So ``jax.grad``, ``jax.jvp``, ``jax.linearize`` or ``jax.vjp``
of the call lower for a platform exactly what the plain call does, never one platform's
derivative inside another's artifact. Inside ``shard_map`` its results vary over the
union of its operands' mesh axes, as every custom call of the package does.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import jax
import numpy as np
from jax.extend import core as jex_core
from jax.interpreters import ad, batching, mlir

from . import mesh_axes

# The platforms a lowering rule is registered for (jax's lowering names); any other
# platform reaches the default rule, which refuses.
PLATFORMS = ("cpu", "cuda", "rocm", "tpu")

_per_platform_p = jex_core.Primitive("jax_glm_nope_per_platform")
_per_platform_p.multiple_results = True


class Branch:
    """A platform's branch: a closed jaxpr and the context its lowering runs in."""

    __slots__ = ("context", "jaxpr", "platform")

    def __init__(self, platform: str, jaxpr, context: Callable | None = None):
        self.platform, self.jaxpr, self.context = platform, jaxpr, context

    def lower(self, ctx, *args):
        # The jaxpr was traced on plain shapes; inside shard_map the operands' types also
        # carry mesh axes, which the lowered code does not depend on.
        ctx = ctx.replace(avals_in=list(self.jaxpr.in_avals))
        with self.context() if self.context is not None else contextlib.nullcontext():
            return mlir.lower_fun(jex_core.jaxpr_as_fun(self.jaxpr), multiple_results=True)(ctx, *args)


def _trace(call: Callable, specs) -> tuple:
    jaxpr, shapes = jax.make_jaxpr(call, return_shape=True)(*specs)
    return jaxpr, jax.tree.structure(shapes)


def _specs(args):
    return [jax.ShapeDtypeStruct(jax.numpy.shape(a), jax.numpy.result_type(a)) for a in args]


@_per_platform_p.def_abstract_eval
def _abstract_eval(*avals, branches, refusal):
    del refusal
    outs = list(branches[0].jaxpr.out_avals)
    # Inside shard_map the results vary over the operands' mesh axes (call() gives every
    # operand their union), so that a derivative's cotangents are never summed over them.
    axes = frozenset().union(*map(mesh_axes.of_aval, avals))
    if not axes:
        return outs
    like = next(a for a in avals if mesh_axes.of_aval(a) == axes)  # every operand, after call()
    mesh = like.sharding.mesh
    return [
        out.update(
            sharding=jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(*[None] * out.ndim)),
            **mesh_axes.type_keywords(like),
        )
        for out in outs
    ]


@_per_platform_p.def_impl
def _impl(*args, **params):
    # Eagerly: compiled for this host's platform like any jitted call.
    return jax.jit(lambda *xs: _per_platform_p.bind(*xs, **params))(*args)


def _branch_for(branches, platform: str):
    return next((b for b in branches if b.platform == platform), None)


def _lowering(platform: str | None):
    def rule(ctx, *args, branches, refusal):
        names = (platform,) if platform else tuple(ctx.platforms or ctx.module_context.platforms)
        branch = _branch_for(branches, names[0]) if len(names) == 1 else None
        if branch is None:
            raise ValueError(refusal.replace("{platform}", ", ".join(names)))
        return branch.lower(ctx, *args)

    return rule


mlir.register_lowering(_per_platform_p, _lowering(None))
for _platform in PLATFORMS:
    mlir.register_lowering(_per_platform_p, _lowering(_platform), platform=_platform)


def _bind(args, functions: dict[str, Callable], contexts: dict, refusal: str) -> list:
    """``functions[p](*args)`` (a flat list of arrays) per platform ``p``, as one primitive
    (the branches are traced on plain shapes: mesh axes are the abstract evaluation's)."""
    specs = _specs(args)
    built = tuple(Branch(p, _trace(fn, specs)[0], contexts.get(p)) for p, fn in functions.items())
    assert all(b.jaxpr.out_avals == built[0].jaxpr.out_avals for b in built), "branches differ in type"
    return _per_platform_p.bind(*args, branches=built, refusal=refusal)


def _derived(branches, derive: Callable, args, refusal: str) -> list:
    """One primitive whose branch for each platform is ``derive`` of that platform's branch."""
    functions = {b.platform: derive(jex_core.jaxpr_as_fun(b.jaxpr)) for b in branches}
    return _bind(args, functions, {b.platform: b.context for b in branches}, refusal)


def _batch(args, dims, *, branches, refusal):
    axes = tuple(dims)
    specs = _specs(args)
    batched = tuple(
        Branch(
            b.platform, _trace(jax.vmap(jex_core.jaxpr_as_fun(b.jaxpr), in_axes=axes), specs)[0], b.context
        )
        for b in branches
    )
    outs = _per_platform_p.bind(*args, branches=batched, refusal=refusal)
    return outs, [0] * len(outs)


batching.primitive_batchers[_per_platform_p] = _batch


def _has_tangent(dtype) -> bool:
    return jax.numpy.issubdtype(dtype, jax.numpy.inexact)


def _zero_tangent(aval):
    """The zero tangent of a value shaped like ``aval`` (float0 for integers)."""
    if _has_tangent(aval.dtype):
        return jax.numpy.zeros(aval.shape, aval.dtype)
    return np.zeros(aval.shape, jax.dtypes.float0)


def _jvp(primals, tangents, *, branches, refusal):
    outs = _per_platform_p.bind(*primals, branches=branches, refusal=refusal)
    out_avals = branches[0].jaxpr.out_avals
    given = [type(t) is not ad.Zero and _has_tangent(jax.typeof(t).dtype) for t in tangents]
    differentiable = [_has_tangent(aval.dtype) for aval in out_avals]
    zeros = [ad.Zero(aval.to_tangent_aval()) for aval in out_avals]
    if not any(differentiable) or not any(given):
        return outs, zeros
    in_avals = [jax.typeof(p) for p in primals]

    def tangent_of(fn):
        def tangent(*xs):
            values, supplied = xs[: len(primals)], iter(xs[len(primals) :])
            full = [next(supplied) if g else _zero_tangent(a) for g, a in zip(given, in_avals, strict=True)]
            _, out_tangents = jax.jvp(fn, tuple(values), tuple(full))
            return [t for t, d in zip(out_tangents, differentiable, strict=True) if d]

        return tangent

    supplied = [t for t, g in zip(tangents, given, strict=True) if g]
    computed = iter(_derived(branches, tangent_of, [*primals, *supplied], refusal))
    return outs, [next(computed) if d else z for d, z in zip(differentiable, zeros, strict=True)]


ad.primitive_jvps[_per_platform_p] = _jvp


def _transpose(cotangents, *args, branches, refusal):
    # Only a tangent primitive of _jvp is transposed: linear in its undefined operands.
    linear = [ad.is_undefined_primal(a) for a in args]
    known = [a for a, is_linear in zip(args, linear, strict=True) if not is_linear]
    linear_avals = [a.aval for a, is_linear in zip(args, linear, strict=True) if is_linear]
    out_avals = branches[0].jaxpr.out_avals
    given = [type(c) is not ad.Zero for c in cotangents]
    if not any(given):
        return [ad.Zero(a.aval) if is_linear else None for a, is_linear in zip(args, linear, strict=True)]

    def transpose_of(fn):
        def transposed(*xs):
            values, supplied = xs[: len(known)], iter(xs[len(known) :])

            def linear_part(*inputs):
                inputs, others = iter(inputs), iter(values)
                return fn(*[next(inputs) if is_linear else next(others) for is_linear in linear])

            _, pullback = jax.vjp(linear_part, *(_zero_tangent(a) for a in linear_avals))
            full = [next(supplied) if g else _zero_tangent(a) for g, a in zip(given, out_avals, strict=True)]
            return list(pullback(full))

        return transposed

    supplied = [c for c, g in zip(cotangents, given, strict=True) if g]
    computed = iter(_derived(branches, transpose_of, [*known, *supplied], refusal))
    return [next(computed) if is_linear else None for is_linear in linear]


ad.primitive_transposes[_per_platform_p] = _transpose


def call(
    args: tuple, branches: dict[str, Callable], refusal: str, *, contexts: dict[str, Callable] | None = None
):
    """``branches[p](*args)`` when lowered for platform ``p``; for a platform without a
    branch, lowering raises ``ValueError(refusal)`` with ``{platform}`` replaced by its
    name, also for every derivative of the call. ``contexts[p]`` (a context-manager
    factory) is entered while platform ``p``'s branch (or its derivative) is lowered."""
    contexts = contexts or {}
    trees = {}

    def flat(fn):
        def flattened(*xs):
            leaves, trees[fn] = jax.tree.flatten(fn(*xs))
            return leaves

        return flattened

    functions = {p: flat(fn) for p, fn in branches.items()}
    outs = mesh_axes.with_varying_axes(lambda *xs: _bind(xs, functions, contexts, refusal))(*args)
    (tree, *others) = trees.values()
    assert all(other == tree for other in others), "branches differ in type"
    return jax.tree.unflatten(tree, outs)
