"""Which implementation serves a call: one table per operation, read top to bottom.

``implementation=None`` takes the first entry marked ``auto`` whose device predicate
and shape predicate both accept the call. An implementation named explicitly that
cannot serve the call raises a ``ValueError`` naming the device and the reason;
nothing falls back silently.

====================  ======================================  ==========================
sparse_mla            runs on                                 auto
====================  ======================================  ==========================
``flashinfer``        SM120/SM121 (FlashInfer 0.7.4 headers)  yes
``cuda``              Hopper, compute capability 9.0          from ``CUDA_MIN_TOKENS``
                                                              tokens (measured faster
                                                              than Pallas there)
``pallas``            NVIDIA GPUs, compute capability >= 8.9  yes
``reference``         everywhere (plain jnp)                  yes
====================  ======================================  ==========================

``write_kv``: ``cuda`` (our KV-row kernel, any NVIDIA GPU; automatic only when the
native library is already built, so a plain write never starts a compile), then
``xla`` (a scatter, everywhere).

:func:`call` is the public API's one entry: it chooses, then runs the choice, lowered
per platform where the choice was made for another device (:func:`run`).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
from collections.abc import Callable
from typing import Literal

import jax
import jax.numpy as jnp
from jax.export import DisabledSafetyCheck

from . import device as device_mod
from . import environment, per_platform, unresolved
from .implementations import Shapes, batching
from .layout import HEAD_DIM


@dataclasses.dataclass(frozen=True)
class Entry:
    name: str
    module: str  # where the implementation lives
    attribute: str | None = None  # a namespace inside the module, for write_kv's two
    auto_if: Callable[[Shapes], bool] | None = None  # the shapes implementation=None takes it for
    auto_when: str | None = None  # auto_if in words, for jax_glm_nope.sparse_mla_implementation
    # Serves every call but is no kernel: a GPU artifact carries it only when it is named.
    fallback: bool = False

    def automatic(self, shapes: Shapes | None) -> bool:
        return self.auto_if is None or shapes is None or self.auto_if(shapes)

    def load(self):
        module = importlib.import_module(self.module)
        return getattr(module, self.attribute) if self.attribute else module


# cuda from here, Pallas below (docs/h200_results.md: T=1 Pallas, T=8 cuda; at T=4 cuda was
# 1.17-1.35x faster than Pallas at 16 and 64 heads on the H200, at T=2 0.83-1.05x)
CUDA_MIN_TOKENS = 4


def _cuda_is_faster(shapes: Shapes) -> bool:
    return shapes.num_tokens >= CUDA_MIN_TOKENS


SPARSE_MLA = (
    Entry("flashinfer", "jax_glm_nope.implementations.flashinfer"),
    Entry(
        "cuda",
        "jax_glm_nope.implementations.cuda",
        auto_if=_cuda_is_faster,
        auto_when=f"from CUDA_MIN_TOKENS = {CUDA_MIN_TOKENS} tokens (measured faster than Pallas there)",
    ),
    Entry("pallas", "jax_glm_nope.implementations.pallas"),
    Entry("reference", "jax_glm_nope.implementations.reference", fallback=True),
)
WRITE_KV = (
    Entry("cuda", "jax_glm_nope.implementations.writes", "cuda"),
    Entry("xla", "jax_glm_nope.implementations.writes", "xla"),  # XLA's scatter: the write off NVIDIA
)
TABLES = {"sparse_mla": SPARSE_MLA, "write_kv": WRITE_KV}
# The names of the tables as types, for the public signatures (tests/test_typing.py
# checks that each lists exactly its table's names, in order).
SparseMlaImplementation = Literal["flashinfer", "cuda", "pallas", "reference"]
WriteKvImplementation = Literal["cuda", "xla"]
# An automatic write never compiles the native library; an explicit one may.
AUTO_OPTIONS = {"write_kv": {"allow_build": False}, "sparse_mla": {}}
# Properties of a call that implementation=None also takes: it then picks the first
# implementation that honours them (one whose OPTIONS accept them) and serves the call.
PROPERTIES = {"sparse_mla": ("batch_invariant",)}
# Keywords of earlier releases: what each became, and since when.
RENAMED = {
    "backend": (
        "implementation",
        "0.2.0",
        "backend='auto' is implementation=None; write_kv's backend='ffi' is implementation='cuda'",
    )
}
# Keywords users reach for that no implementation has, and why there is no such knob.
NOT_OPTIONS = {
    "sparse_mla": {
        "precision": (
            "there is one numerics, and the fast path is the exact one: every implementation scores "
            "in float32 from queries and FP8 codes converted without loss and meets the same "
            "accuracy bound against float64 (docs/semantics.md); a faster, lower-precision mode "
            "(FP8 matrix products) would break that bound, and a higher one has nothing left to gain"
        )
    },
    "write_kv": {
        "precision": (
            "quantization is exact: correctly rounded float32 arithmetic, the same bytes as numpy "
            "and ml_dtypes on every platform"
        )
    },
}
_CPU = device_mod.Device("cpu", "cpu")


def names(operation: str) -> tuple[str, ...]:
    return tuple(entry.name for entry in TABLES[operation])


def _entry(operation: str, name: str) -> Entry:
    for entry in TABLES[operation]:
        if entry.name == name:
            return entry
    raise ValueError(f"implementation: expected None or one of {list(names(operation))}, got {name!r}")


def _check_options(operation: str, name: str, impl, options: dict) -> None:
    unknown = sorted(set(options) - set(impl.OPTIONS))
    if unknown:
        accepted = ", ".join(impl.OPTIONS) or "none"
        raise TypeError(
            f"{operation}(): option {unknown[0]!r} is not accepted by implementation={name!r} "
            f"(its options: {accepted})"
        )


def _check_renamed(operation: str, options: dict) -> None:
    for old in sorted(set(options) & set(RENAMED)):
        new, release, note = RENAMED[old]
        raise TypeError(f"{operation}(): {old}= was renamed {new}= in {release} ({note})")


def keywords(operation: str) -> tuple[str, ...]:
    """The option keywords of ``operation``: every option of its implementations, in table order."""
    found: dict[str, None] = dict.fromkeys(PROPERTIES.get(operation, ()))
    for entry in TABLES[operation]:
        found.update(dict.fromkeys(entry.load().OPTIONS))
    return tuple(found)


def _check_keywords(operation: str, options: dict) -> None:
    """A keyword no implementation takes is a ``TypeError``; a knob users expect that does
    not exist says why."""
    for key in sorted(options):
        why = NOT_OPTIONS.get(operation, {}).get(key)
        if why is not None:
            raise TypeError(f"{operation}() has no {key}= keyword: {why}")
    known = keywords(operation)
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise TypeError(
            f"{operation}() got an unexpected keyword argument {unknown[0]!r} (its keywords: "
            f"{', '.join(('implementation', *known))})"
        )


def _switch(operation: str) -> environment.Switch:
    """What the environment says about ``operation`` now (read at each trace)."""
    return environment.switch(operation, names(operation))


def effective_request(operation: str, requested: str | None) -> str | None:
    """``requested``, or for ``None`` the implementation the environment forces (if any)."""
    if requested is None:
        return _switch(operation).forced
    return requested


def unsupported(operation: str, name: str, device, shapes: Shapes | None, **options) -> str | None:
    """``None`` when implementation ``name`` can serve the call, else why not."""
    impl = _entry(operation, name).load()
    reason = impl.device_unsupported(device, **options)
    if reason is None and shapes is not None:
        reason = impl.shapes_unsupported(shapes, **options)
    return reason


def choose(operation: str, requested: str | None, shapes: Shapes | None, options: dict, device=None):
    """``(name, implementation)`` serving the call, or raise naming the device and why."""
    _check_renamed(operation, options)
    _check_keywords(operation, options)
    device = device or device_mod.current()
    switch = _switch(operation)
    if requested is None and switch.forced is not None:
        try:
            return choose(operation, switch.forced, shapes, options, device)
        except (TypeError, ValueError) as err:
            forced = f"implementation={switch.forced!r} is forced by {switch.source()}"
            raise type(err)(f"{err} ({forced})") from None
    if isinstance(requested, str) and requested in switch.disabled:
        raise ValueError(
            f"implementation={requested!r} is disabled by {switch.source()} in the environment; name "
            "another implementation, or unset the variable"
        )
    if requested is None:
        own = sorted(set(options) - set(PROPERTIES.get(operation, ())))
        if own:
            raise TypeError(
                f"{operation}(): options {own} belong to one implementation: name it with implementation=..."
            )
        wanted = sorted(key for key, value in options.items() if value)
        if wanted:
            return _choose_with(operation, wanted, shapes, device, switch.disabled)
        for entry in TABLES[operation]:
            if (
                entry.name not in switch.disabled
                and entry.automatic(shapes)
                and unsupported(operation, entry.name, device, shapes, **AUTO_OPTIONS[operation]) is None
            ):
                return entry.name, entry.load()
        raise AssertionError(f"the last {operation} implementation serves every call")
    if not isinstance(requested, str):
        raise TypeError(f"implementation: expected None or a str, got {type(requested).__name__}")
    impl = _entry(operation, requested).load()
    _check_options(operation, requested, impl, options)
    reason = unsupported(operation, requested, device, shapes, **options)
    if reason is not None:
        # The advice of what to use instead comes from this table, not from the kernels.
        serving = [
            entry.name
            for entry in TABLES[operation]
            if entry.name != requested
            and entry.name not in switch.disabled
            and unsupported(operation, entry.name, device, shapes, **AUTO_OPTIONS[operation]) is None
        ]
        raise ValueError(
            f"implementation={requested!r} cannot serve this call on {device.describe()}: {reason}. "
            f"Implementations that serve it here: {', '.join(serving)}"
        )
    return requested, impl


def _choose_with(
    operation: str, wanted: list[str], shapes: Shapes | None, device, disabled: frozenset[str] = frozenset()
):
    """The first implementation that honours every property in ``wanted`` and serves the
    call, whatever the number of tokens (a token-count threshold would hand a token alone
    and the same token in a batch to different implementations), or raise saying which
    implementations honour them and why none serves here."""
    reasons = []
    for entry in TABLES[operation]:
        impl = entry.load()
        if not set(wanted) <= set(impl.OPTIONS):
            continue
        if entry.name in disabled:
            reasons.append(f"{entry.name}: disabled by {environment.variable(operation)}")
            continue
        options = {**AUTO_OPTIONS[operation], **dict.fromkeys(wanted, True)}
        reason = unsupported(operation, entry.name, device, shapes, **options)
        if reason is None:
            return entry.name, impl
        reasons.append(f"{entry.name}: {reason}")
    raise ValueError(
        f"{operation}({', '.join(f'{key}=True' for key in wanted)}) with implementation=None: no "
        f"implementation that honours it serves this call on {device.describe()} "
        f"({'; '.join(reasons) or 'none honours it'})"
    )


def _no_tokens(operation: str, args: tuple):
    """What a call without tokens returns, whichever implementation serves: nothing to launch."""
    if operation == "sparse_mla":
        num_heads = args[0].shape[1]
        return jnp.zeros((0, num_heads, HEAD_DIM), jnp.bfloat16), jnp.zeros((0, num_heads), jnp.float32)
    return args[0]  # write_kv: the pool, unchanged


def call(operation: str, requested: str | None, shapes: Shapes, args: tuple, options: dict, **kwargs):
    """Choose the implementation for ``shapes`` (raising when the one named cannot serve)
    and run ``operation`` on the validated, normalised ``args`` with it.

    An automatic ``sparse_mla`` that a kernel serves is chosen again under ``jax.vmap``:
    the batch becomes one call over ``batch * T`` tokens (:func:`~jax_glm_nope.
    implementations.batching.fold_batch`), and the table answers for those tokens, as it
    does for the same tokens written as one call (64 vmapped decodes of one token each
    are one 64-token call). The plain-jnp fallback serves every T, so it is vmapped as it is.
    """
    name, impl = choose(operation, requested, shapes, options)
    requested = effective_request(operation, requested)  # a forced implementation is lowered as named
    if shapes.num_tokens == 0:
        return _no_tokens(operation, args)
    if requested is None and operation == "sparse_mla" and not _entry(operation, name).fallback:
        return _chosen_for_the_folded_batch(options, kwargs)(*args)
    return _run_chosen(operation, requested, name, impl, shapes, args, options, kwargs)


def _run_chosen(operation, requested, name, impl, shapes, args, options, kwargs):
    if requested is None:  # call properties reach only the implementation that honours them
        options = {key: value for key, value in options.items() if key in impl.OPTIONS}
    return run(operation, requested, name, impl, shapes, args, **kwargs, **options)


def _chosen_for_the_folded_batch(options: dict, kwargs: dict):
    """The automatic ``sparse_mla`` as a function of its normalised arguments, choosing from
    the shapes it is traced with; under ``jax.vmap`` it folds the batch and chooses again."""

    @jax.custom_batching.custom_vmap
    def attend(q, pool, indices, topk_lens):
        num_slots, row_bytes = pool.shape
        shapes = Shapes(q.shape[0], q.shape[1], indices.shape[1], row_bytes, num_slots)
        name, impl = choose("sparse_mla", None, shapes, options)
        args = (q, pool, indices, topk_lens)
        if shapes.num_tokens == 0:
            return _no_tokens("sparse_mla", args)
        return _run_chosen("sparse_mla", None, name, impl, shapes, args, options, kwargs)

    attend.def_vmap(functools.partial(batching.fold_batch, call=attend))
    return attend


def run(operation: str, requested: str | None, name: str, impl, shapes: Shapes, args: tuple, **kwargs):
    """Call ``impl``'s operation on ``args``, lowered per platform where that matters:

    - inside :func:`jax_glm_nope.lowering_for`, the automatic choice is the record's for
      the record's platform, the table's last entry (plain jnp) for the CPU, and a lowering
      error for any other platform, or for the record's own when the table has no kernel
      for it (a GPU artifact never carries the reference silently); a named kernel is
      lowered for the record's platform only;
    - on a host without a GPU and no record, the CPU's choice for the CPU and a lowering
      error for any other platform (:mod:`jax_glm_nope.unresolved`);
    - otherwise (this host's own device) the choice, as it is.
    """
    call_impl = functools.partial(getattr(impl, operation), **kwargs)
    record = device_mod.lowering_target()
    if record is not None:
        return _lowered_for(operation, record, requested, name, impl, shapes, args, kwargs)
    if requested is None and device_mod.local().platform == "cpu":
        return unresolved.cpu_only(operation, call_impl, args)
    return call_impl(*args)


def _lowered_for(operation, record, requested, name, impl, shapes, args, kwargs):
    call_impl = functools.partial(getattr(impl, operation), **kwargs)
    options = {key: value for key, value in kwargs.items() if key in impl.OPTIONS}
    contexts = {}
    if getattr(impl, "lowering_context", None) is not None:
        contexts[record.platform] = functools.partial(impl.lowering_context, record)
    lowered = (
        f"{operation}(implementation={requested!r}) is being lowered for {{platform}} inside lowering_for"
    )
    if requested is not None:
        if unsupported(operation, name, _CPU, None, **options) is None:
            return call_impl(*args)  # it runs everywhere (plain jnp, the Pallas interpreter)
        refusal = (
            f"{lowered}({record.describe()}), but implementation={name!r} runs on "
            f"{record.platform} only; an artifact that also serves other platforms takes "
            "implementation=None"
        )
        switch = _switch(operation)
        if switch.forced == name:
            refusal += f" (with {switch.variable} unset: {switch.source()} forces {name!r})"
        return per_platform.call(args, {record.platform: call_impl}, refusal, contexts=contexts)
    everywhere = TABLES[operation][-1]
    shared = {key: value for key, value in kwargs.items() if key not in impl.OPTIONS}
    branches = {"cpu": functools.partial(getattr(everywhere.load(), operation), **shared)}
    if record.platform == "cpu":
        refusal = f"{lowered}({record.describe()}), a CPU: name the GPU the artifact is for"
    elif _entry(operation, name).fallback:
        disabled, automatic = _switch(operation).disabled, AUTO_OPTIONS[operation]
        reasons = "; ".join(
            f"{entry.name}: disabled by {environment.variable(operation)}"
            if entry.name in disabled
            else f"{entry.name}: {unsupported(operation, entry.name, record, shapes, **automatic)}"
            for entry in TABLES[operation]
            if not entry.fallback and entry.automatic(shapes)
        )
        refusal = (
            f"{lowered}({record.describe()}), and no kernel serves that device ({reasons}): a GPU "
            f"artifact does not carry the plain-jnp {name} silently; pass implementation={name!r} to "
            "embed it"
        )
    else:
        branches[record.platform] = call_impl
        refusal = (
            f"{lowered}({record.describe()}), a {record.platform} device: export for "
            f"platforms=('{record.platform}',) or ('cpu', '{record.platform}')"
        )
    return per_platform.call(args, branches, refusal, contexts=contexts)


def export_disabled_checks() -> list[DisabledSafetyCheck]:
    """The ``jax.export.DisabledSafetyCheck`` list that exporting this package's calls
    needs: every custom call an implementation of the tables lowers to (this package's XLA
    FFI targets, the Pallas kernel's Triton call), none of which is among jax's custom
    calls with a compatibility guarantee."""
    targets = sorted(
        {
            target
            for table in TABLES.values()
            for entry in table
            for target in getattr(entry.load(), "CUSTOM_CALL_TARGETS", ())
        }
    )
    return [DisabledSafetyCheck.custom_call(target) for target in targets]
