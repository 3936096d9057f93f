"""The dispatch tables: one per operation, read top to bottom, and the switch in the
environment that forces or disables an entry.

Each :class:`Entry` names an implementation module; the module answers whether it can
run on a device and serve a call's shapes (:mod:`jax_glm_nope.implementations`). Which
entry serves a call is decided once, by :mod:`.decision`.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from typing import Literal

from jax.export import DisabledSafetyCheck

from .. import environment
from ..implementations import Shapes


@dataclasses.dataclass(frozen=True)
class Entry:
    name: str
    module: str  # where the implementation lives
    attribute: str | None = None  # a namespace inside the module, for write_kv's two
    auto_if: Callable[[Shapes], bool] | None = None  # the shapes implementation=None takes it for
    auto_when: str | None = None  # auto_if in words, for the reasons of a decision
    # Serves every call but is no kernel: a GPU artifact carries it only when it is named.
    fallback: bool = False

    def automatic(self, shapes: Shapes | None) -> bool:
        return self.auto_if is None or shapes is None or self.auto_if(shapes)

    def load(self):
        module = importlib.import_module(self.module)
        return getattr(module, self.attribute) if self.attribute else module


# cuda from here, Pallas below (docs/h200_results.md: T=8 cuda; at T=4 cuda was 1.17-1.35x
# faster than Pallas at 16 and 64 heads on the H200, at T=2 0.83-1.05x)
CUDA_MIN_TOKENS = 4
# ... and at one token up to this many heads, where the whole call (kernels and merge or
# combine) was measured faster than Pallas's; from 32 heads Pallas's was faster
# (docs/h100_results.md, the one-token rows).
CUDA_ONE_TOKEN_MAX_HEADS = 16


def _cuda_is_faster(shapes: Shapes) -> bool:
    if shapes.num_tokens == 1:
        return shapes.num_heads <= CUDA_ONE_TOKEN_MAX_HEADS
    return shapes.num_tokens >= CUDA_MIN_TOKENS


SPARSE_MLA = (
    Entry("flashinfer", "jax_glm_nope.implementations.flashinfer"),
    Entry(
        "cuda",
        "jax_glm_nope.implementations.cuda",
        auto_if=_cuda_is_faster,
        auto_when=(
            f"from CUDA_MIN_TOKENS = {CUDA_MIN_TOKENS} tokens, and at one token up to "
            f"CUDA_ONE_TOKEN_MAX_HEADS = {CUDA_ONE_TOKEN_MAX_HEADS} heads (measured faster than Pallas there)"
        ),
    ),
    Entry("pallas", "jax_glm_nope.implementations.pallas"),
    Entry("reference", "jax_glm_nope.implementations.reference", fallback=True),
)
WRITE_KV = (
    Entry("cuda", "jax_glm_nope.implementations.writes", "CudaWrite"),
    Entry("xla", "jax_glm_nope.implementations.writes", "XlaWrite"),  # XLA's scatter: the write off NVIDIA
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


def names(operation: str) -> tuple[str, ...]:
    return tuple(entry.name for entry in TABLES[operation])


def entry(operation: str, name: str) -> Entry:
    for candidate in TABLES[operation]:
        if candidate.name == name:
            return candidate
    raise ValueError(f"implementation: expected None or one of {list(names(operation))}, got {name!r}")


def unsupported(operation: str, name: str, device, shapes: Shapes | None, **options) -> str | None:
    """``None`` when implementation ``name`` can serve the call, else why not."""
    impl = entry(operation, name).load()
    reason = impl.device_unsupported(device, **options)
    if reason is None and shapes is not None:
        reason = impl.shapes_unsupported(shapes, **options)
    return reason


def switch(operation: str) -> environment.Switch:
    """What the environment says about ``operation`` now: the one read of its variable
    that a call makes."""
    return environment.switch(operation, names(operation))


def export_disabled_checks() -> list[DisabledSafetyCheck]:
    """The ``jax.export.DisabledSafetyCheck`` list that exporting this package's calls
    needs: every custom call an implementation of the tables lowers to (this package's XLA
    FFI targets, the Pallas kernel's Triton call), none of which is among jax's custom
    calls with a compatibility guarantee."""
    targets = sorted(
        {
            target
            for table in TABLES.values()
            for row in table
            for target in getattr(row.load(), "CUSTOM_CALL_TARGETS", ())
        }
    )
    return [DisabledSafetyCheck.custom_call(target) for target in targets]
