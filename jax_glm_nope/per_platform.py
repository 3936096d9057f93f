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

The primitive has shapes, a batching rule and a JVP rule (the branch chosen for the
record is differentiated: the kernels raise their "not differentiable" error; the
reference differentiates). Inside ``shard_map`` its results vary over the union of
its operands' mesh axes, as every custom call of the package does.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import jax
from jax.extend import core as jex_core
from jax.interpreters import ad, batching, mlir

from .implementations.batching import with_varying_axes

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
def _abstract_eval(*avals, branches, refusal, differentiate):
    del avals, refusal, differentiate
    return list(branches[0].jaxpr.out_avals)


@_per_platform_p.def_impl
def _impl(*args, **params):
    # Eagerly: compiled for this host's platform like any jitted call.
    return jax.jit(lambda *xs: _per_platform_p.bind(*xs, **params))(*args)


def _branch_for(branches, platform: str):
    return next((b for b in branches if b.platform == platform), None)


def _lowering(platform: str | None):
    def rule(ctx, *args, branches, refusal, differentiate):
        del differentiate
        names = (platform,) if platform else tuple(ctx.platforms or ctx.module_context.platforms)
        branch = _branch_for(branches, names[0]) if len(names) == 1 else None
        if branch is None:
            raise ValueError(refusal.replace("{platform}", ", ".join(names)))
        return branch.lower(ctx, *args)

    return rule


mlir.register_lowering(_per_platform_p, _lowering(None))
for _platform in PLATFORMS:
    mlir.register_lowering(_per_platform_p, _lowering(_platform), platform=_platform)


def _batch(args, dims, *, branches, refusal, differentiate):
    axes = tuple(dims)
    specs = _specs(args)
    batched = tuple(
        Branch(
            b.platform, _trace(jax.vmap(jex_core.jaxpr_as_fun(b.jaxpr), in_axes=axes), specs)[0], b.context
        )
        for b in branches
    )
    outs = _per_platform_p.bind(*args, branches=batched, refusal=refusal, differentiate=differentiate)
    return outs, [0] * len(outs)


batching.primitive_batchers[_per_platform_p] = _batch


def _jvp(primals, tangents, *, branches, refusal, differentiate):
    outs = _per_platform_p.bind(*primals, branches=branches, refusal=refusal, differentiate=differentiate)
    branch = _branch_for(branches, differentiate) or branches[0]
    tangents = [ad.instantiate_zeros(t) for t in tangents]
    _, tangents_out = jax.jvp(jex_core.jaxpr_as_fun(branch.jaxpr), tuple(primals), tuple(tangents))
    return outs, list(tangents_out)


ad.primitive_jvps[_per_platform_p] = _jvp


def call(
    args: tuple,
    branches: dict[str, Callable],
    refusal: str,
    *,
    differentiate: str,
    contexts: dict[str, Callable] | None = None,
):
    """``branches[p](*args)`` when lowered for platform ``p``; for a platform without a
    branch, lowering raises ``ValueError(refusal)`` with ``{platform}`` replaced by its
    name. Differentiation goes through ``branches[differentiate]``; ``contexts[p]`` (a
    context-manager factory) is entered while platform ``p``'s branch is lowered."""
    contexts = contexts or {}

    def bound(*xs):
        specs = _specs(xs)
        traced = {p: _trace(fn, specs) for p, fn in branches.items()}
        (first_jaxpr, tree), *rest = traced.values()
        for jaxpr, other in rest:
            assert other == tree and jaxpr.out_avals == first_jaxpr.out_avals, "branches differ in type"
        built = tuple(Branch(p, jaxpr, contexts.get(p)) for p, (jaxpr, _) in traced.items())
        outs = _per_platform_p.bind(*xs, branches=built, refusal=refusal, differentiate=differentiate)
        return jax.tree.unflatten(tree, outs)

    return with_varying_axes(bound)(*args)
