"""Running a :class:`~.decision.Decision`: the call as it is, or lowered per platform.

- For a device being lowered for (:func:`jax_glm_nope.lowering_for`), the automatic
  choice is the decision's for the decision's platform, the table's last entry (plain
  jnp) for the CPU, and a lowering error for any other platform, or for the decision's
  own when the table has no kernel for it (a GPU artifact never carries the reference
  silently); a named kernel is lowered for the decision's platform only.
- On a host without a GPU, the automatic choice is the CPU's for the CPU and a lowering
  error for any other platform (:mod:`jax_glm_nope.unresolved`).
- Otherwise (this host's own device) the choice, as it is.

The refusals are written from the decision's own reasons; nothing here asks the table
or the environment again. The call's scalar arguments (``sm_scale``) and the
implementation's options reach the implementation side by side, never merged.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import jax
import jax.numpy as jnp

from .. import per_platform, unresolved
from ..implementations import Shapes, batching
from ..layout import HEAD_DIM
from .decision import CPU, Decision, again, decide


def call(operation: str, requested: str | None, shapes: Shapes, args: tuple, options: dict, **scalars):
    """Decide for ``shapes`` (raising when the implementation named cannot serve) and run
    ``operation`` on the validated, normalised ``args`` with the decision.

    An automatic ``sparse_mla`` that a kernel serves is decided again under ``jax.vmap``:
    the batch becomes one call over ``batch * T`` tokens (:func:`~jax_glm_nope.
    implementations.batching.fold_batch`), and the table answers for those tokens, as it
    does for the same tokens written as one call (64 vmapped decodes of one token each
    are one 64-token call). The plain-jnp fallback serves every T, so it is vmapped as it is.
    """
    decision = decide(operation, requested, shapes, options)
    if shapes.num_tokens == 0:
        return _no_tokens(operation, args)
    if decision.automatic and operation == "sparse_mla" and not decision.fallback:
        return _decided_for_the_folded_batch(decision, scalars)(*args)
    return run(decision, args, scalars)


def _no_tokens(operation: str, args: tuple):
    """What a call without tokens returns, whichever implementation serves: nothing to launch."""
    if operation == "sparse_mla":
        num_heads = args[0].shape[1]
        return jnp.zeros((0, num_heads, HEAD_DIM), jnp.bfloat16), jnp.zeros((0, num_heads), jnp.float32)
    return args[0]  # write_kv: the pool, unchanged


def _decided_for_the_folded_batch(decision: Decision, scalars: dict):
    """The automatic ``sparse_mla`` as a function of its normalised arguments, run with
    ``decision`` at its own shapes; under ``jax.vmap`` it folds the batch and decides again."""

    @jax.custom_batching.custom_vmap
    def attend(q, pool, indices, topk_lens):
        num_slots, row_bytes = pool.shape
        shapes = Shapes(q.shape[0], q.shape[1], indices.shape[1], row_bytes, num_slots)
        args = (q, pool, indices, topk_lens)
        if shapes.num_tokens == 0:
            return _no_tokens("sparse_mla", args)
        return run(again(decision, shapes), args, scalars)

    attend.def_vmap(functools.partial(batching.fold_batch, call=attend))
    return attend


def _bound(module, operation: str, device, scalars: dict, options) -> Callable:
    """``module``'s ``operation`` with the call's scalar arguments, the device it runs on
    and its own options."""
    return functools.partial(getattr(module, operation), **scalars, device=device, **options)


def run(decision: Decision, args: tuple, scalars: dict):
    """Call the decided implementation on ``args``, lowered per platform where that matters."""
    kernel = _bound(decision.module, decision.operation, decision.device, scalars, decision.options)
    if decision.lowering:
        return _lowered_for(decision, args, scalars, kernel)
    if decision.automatic and decision.device.platform == "cpu":
        return unresolved.cpu_only(decision.operation, kernel, args)
    return kernel(*args)


def _prefix(decision: Decision) -> str:
    return (
        f"{decision.operation}(implementation={decision.named!r}) is being lowered for {{platform}} "
        f"inside lowering_for({decision.device.describe()})"
    )


def automatic_refusal(decision: Decision) -> str:
    """What lowering an automatic ``decision`` for a platform without a branch raises
    (``{platform}`` stands for the platform)."""
    record = decision.device
    if record.platform == "cpu":
        return f"{_prefix(decision)}, a CPU: name the GPU the artifact is for"
    if decision.fallback:
        name = decision.implementation
        return (
            f"{_prefix(decision)}, and no kernel serves that device ({decision.no_kernel}): a GPU "
            f"artifact does not carry the plain-jnp {name} silently; pass implementation={name!r} to "
            "embed it"
        )
    return (
        f"{_prefix(decision)}, a {record.platform} device: export for "
        f"platforms=('{record.platform}',) or ('cpu', '{record.platform}')"
    )


def own_platform_refusal(decision: Decision) -> str | None:
    """What lowering ``decision`` for its own device's platform raises, or None when it
    lowers: an automatic choice that fell to the plain-jnp entry on a device being
    lowered for, other than a CPU."""
    if decision.lowering and decision.automatic and decision.fallback and decision.device.platform != "cpu":
        return automatic_refusal(decision).replace("{platform}", decision.device.platform)
    return None


def _lowered_for(decision: Decision, args: tuple, scalars: dict, kernel):
    record = decision.device
    contexts: dict[str, Callable] = {}
    if getattr(decision.module, "lowering_context", None) is not None:
        contexts[record.platform] = functools.partial(decision.module.lowering_context, record)
    if not decision.automatic:
        if decision.portable:
            return kernel(*args)  # it runs everywhere (plain jnp, the Pallas interpreter)
        name = decision.implementation
        refusal = (
            f"{_prefix(decision)}, but implementation={name!r} runs on {record.platform} only; an "
            "artifact that also serves other platforms takes implementation=None"
        )
        if decision.forced_by is not None:
            refusal += f" (with {decision.switch.variable} unset: {decision.forced_by} forces {name!r})"
        return per_platform.call(args, {record.platform: kernel}, refusal, contexts=contexts)
    branches: dict[str, Callable] = {"cpu": _bound(decision.everywhere, decision.operation, CPU, scalars, {})}
    if record.platform != "cpu" and not decision.fallback:
        branches[record.platform] = kernel
    return per_platform.call(args, branches, automatic_refusal(decision), contexts=contexts)
