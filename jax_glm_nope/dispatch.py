"""Which implementation serves a call: one table per operation, read top to bottom.

``implementation=None`` takes the first entry marked ``auto`` whose device predicate
and shape predicate both accept the call. An implementation named explicitly that
cannot serve the call raises a ``ValueError`` naming the device and the reason;
nothing falls back silently.

====================  ======================================  =====
sparse_mla            runs on                                 auto
====================  ======================================  =====
``flashinfer``        SM120/SM121 (FlashInfer 0.7.4 headers)  yes
``cuda``              Hopper, compute capability 9.0          from T >= 8 (measured faster than Pallas)
``pallas``            NVIDIA GPUs, compute capability >= 8.9  yes
``reference``         everywhere (plain jnp)                  yes
====================  ======================================  =====

``write_kv``: ``cuda`` (our KV-row kernel, any NVIDIA GPU; automatic only when the
native library is already built, so a plain write never starts a compile), then
``xla`` (a scatter, everywhere).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
from collections.abc import Callable
from typing import Literal

import jax

from . import device as device_mod
from . import unresolved
from .implementations import Shapes


@dataclasses.dataclass(frozen=True)
class Entry:
    name: str
    module: str  # where the implementation lives
    attribute: str | None = None  # a namespace inside the module, for write_kv's two
    auto: bool = True  # whether implementation=None may take it
    auto_if: Callable[[Shapes], bool] | None = None  # ... and for which shapes

    def automatic(self, shapes: Shapes | None) -> bool:
        return self.auto and (self.auto_if is None or shapes is None or self.auto_if(shapes))

    def load(self):
        module = importlib.import_module(self.module)
        return getattr(module, self.attribute) if self.attribute else module


# On the H200 (docs/h200_results.md: runs 3, 4, 11, 15, 18, 26 and 27 of the benchmark,
# same harness) our sm_90a kernels beat the Pallas kernel at every measured shape with
# T >= 32 (decode b=32 and 128 and prefill T=4096: 2.0-4.7x at 8-32 heads, 1.9-2.6x at
# 64-128, run 26), at T = 8 they are faster or level at every head count and K (0.98-1.73x,
# run 27), at T = 4 faster at both measured head counts (16 and 64 heads with holes:
# 1.17x, 1.35x; T = 5..7 lies between two measured wins); at T = 2 mixed (0.83x at 16
# heads, 1.05x at 64) and at T = 1 mixed (0.75-1.19x), so T < 4 stays with Pallas.
CUDA_MIN_TOKENS = 4


def _cuda_is_faster(shapes: Shapes) -> bool:
    return shapes.num_tokens >= CUDA_MIN_TOKENS


SPARSE_MLA = (
    Entry("flashinfer", "jax_glm_nope.implementations.flashinfer"),
    Entry("cuda", "jax_glm_nope.implementations.cuda", auto_if=_cuda_is_faster),
    Entry("pallas", "jax_glm_nope.implementations.pallas"),
    Entry("reference", "jax_glm_nope.implementations.reference"),
)
WRITE_KV = (
    Entry("cuda", "jax_glm_nope.implementations.writes", "cuda"),
    Entry("xla", "jax_glm_nope.implementations.writes", "xla"),
)
TABLES = {"sparse_mla": SPARSE_MLA, "write_kv": WRITE_KV}
# The names of the tables as types, for the public signatures (tests/test_typing.py
# checks that each lists exactly its table's names, in order).
SparseMlaImplementation = Literal["flashinfer", "cuda", "pallas", "reference"]
WriteKvImplementation = Literal["cuda", "xla"]
# An automatic write never compiles the native library; an explicit one may.
AUTO_OPTIONS = {"write_kv": {"allow_build": False}, "sparse_mla": {}}


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


def unsupported(operation: str, name: str, device, shapes: Shapes | None, **options) -> str | None:
    """``None`` when implementation ``name`` can serve the call, else why not."""
    impl = _entry(operation, name).load()
    reason = impl.device_unsupported(device, **options)
    if reason is None and shapes is not None:
        reason = impl.shapes_unsupported(shapes, **options)
    return reason


def choose(operation: str, requested: str | None, shapes: Shapes | None, options: dict, device=None):
    """``(name, implementation)`` serving the call, or raise naming the device and why."""
    device = device or device_mod.current()
    if requested is None:
        if options:
            raise TypeError(
                f"{operation}(): options {sorted(options)} belong to one implementation: name it "
                "with implementation=..."
            )
        for entry in TABLES[operation]:
            if (
                entry.automatic(shapes)
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
            and unsupported(operation, entry.name, device, shapes, **AUTO_OPTIONS[operation]) is None
        ]
        raise ValueError(
            f"implementation={requested!r} cannot serve this call on {device.describe()}: {reason}. "
            f"Implementations that serve it here: {', '.join(serving)}"
        )
    return requested, impl


def run(operation: str, requested: str | None, impl, args: tuple, **kwargs):
    """Call ``impl``'s operation on ``args``. An automatic choice is lowered per platform:
    inside :func:`jax_glm_nope.lowering_for`, the chosen implementation for the GPU and the
    table's last entry (plain jnp, runs everywhere) for the CPU, so one exported artifact
    serves ``platforms=("cpu", "cuda")``; on a host without a GPU and no device record, the
    CPU's choice for the CPU and a lowering error for any other platform
    (:mod:`jax_glm_nope.unresolved`: a GPU artifact never carries the reference silently)."""
    call = functools.partial(getattr(impl, operation), **kwargs)
    everywhere = TABLES[operation][-1].load()
    if requested is None and device_mod.lowering_target() is not None and impl is not everywhere:
        shared = {k: v for k, v in kwargs.items() if k not in impl.OPTIONS}
        fallback = functools.partial(getattr(everywhere, operation), **shared)
        return jax.lax.platform_dependent(*args, cpu=fallback, default=call)
    if requested is None and device_mod.lowering_target() is None and device_mod.local().platform == "cpu":
        return unresolved.cpu_only(operation, call, args)
    return call(*args)
