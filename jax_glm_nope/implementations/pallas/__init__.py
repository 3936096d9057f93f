"""The ``pallas`` implementation: a Pallas (Triton lowering) kernel for NVIDIA GPUs of
compute capability 8.9 or newer; ``interpret=True`` runs the same kernel in the Pallas
interpreter on any platform. Design: docs/pallas.md; times: docs/h200_results.md.

The kernel lowers to jax's Triton custom call, which carries Triton IR: XLA compiles it
for the GPU that runs it, so an artifact exported on a machine without that GPU
(:func:`jax_glm_nope.lowering_for`) holds the same kernel (:func:`lowering_context`).
"""

from __future__ import annotations

import contextlib
import dataclasses
from typing import TYPE_CHECKING

import jax

from ...validate import check_bool
from .schedule import Schedule, choose_schedule, split_results

# The jax releases this package is tested with (pyproject.toml pins the same range).
SUPPORTED_JAX = ">=0.10.2,<0.12"

try:  # the Triton lowering the kernel is written for; a jax without it loses only this implementation
    from jax.experimental.pallas import triton as _triton  # noqa: F401
except ImportError as err:
    TRITON_MISSING: str | None = (
        f"the installed jax {jax.__version__} has no Pallas Triton lowering "
        f"(jax.experimental.pallas.triton: {err}); jax_glm_nope supports jax{SUPPORTED_JAX}"
    )
else:
    TRITON_MISSING = None

if TYPE_CHECKING or TRITON_MISSING is None:  # mypy reads the kernel's signatures
    from . import offsets
    from .ops import merge_splits, sparse_mla

    LARGE_POOLS_UNSUPPORTED = offsets.UNSUPPORTED
else:
    LARGE_POOLS_UNSUPPORTED = TRITON_MISSING

    def sparse_mla(*args, **kwargs):  # dispatch never gets here: device_unsupported refuses first
        raise RuntimeError(TRITON_MISSING)

    merge_splits = sparse_mla

OPTIONS = ("interpret", "schedule")
# jax's Triton custom call (``jax._src.pallas.triton.pallas_call_registration``), and the
# FFI name jax is moving it to: neither is among jax's custom calls with a compatibility
# guarantee, so exporting the kernel needs both in the disabled checks.
CUSTOM_CALL_TARGETS = ("__gpu$xla.gpu.triton", "triton_kernel_call_ffi")
MIN_COMPUTE_CAPABILITY = (8, 9)  # Triton converts float8_e4m3fn natively from SM89 (Ada, Hopper) on


def check_schedule(schedule) -> Schedule | None:
    """``schedule``: None or a :class:`Schedule` of positive ints and bools (a ``TypeError``
    or ``ValueError`` naming the field otherwise)."""
    if schedule is None:
        return None
    if not isinstance(schedule, Schedule):
        raise TypeError(
            "schedule: expected None or a jax_glm_nope.implementations.pallas.Schedule, got "
            f"{type(schedule).__name__} {schedule!r}"
        )
    for field in dataclasses.fields(schedule):
        value = getattr(schedule, field.name)
        if field.type == "bool":
            check_bool(value, f"schedule.{field.name}")
        elif field.type == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(
                    f"schedule.{field.name}: expected an int, got {type(value).__name__} {value!r}"
                )
            if value < 1:
                raise ValueError(f"schedule.{field.name}: expected a positive int, got {value}")
    return schedule


def device_unsupported(
    device, *, interpret: bool = False, schedule: Schedule | None = None, **_
) -> str | None:
    interpret = check_bool(interpret, "interpret")
    check_schedule(schedule)
    if TRITON_MISSING is not None:
        return TRITON_MISSING  # the interpreter runs the same kernel code, which needs the module
    if interpret:
        return None  # the interpreter runs anywhere
    if not device.is_cuda:
        return (
            "the Pallas kernel is lowered through Triton and needs an NVIDIA GPU; pass "
            "interpret=True to run it in the Pallas interpreter"
        )
    if device.compute_capability is not None and device.compute_capability < MIN_COMPUTE_CAPABILITY:
        return "the Pallas kernel needs compute capability 8.9 or newer (fp8 e4m3 in Triton)"
    return None


# The Triton lowering of jax >= 0.11 reads the GPU it lowers for from the device kind of
# the abstract mesh when this host has none, and knows kinds by name; the kind only
# decides which fp8 conversions Triton may emit (native from 8.9). One known kind per
# compute capability; others lower as an H200 (what jax 0.10 assumes without a GPU).
TRITON_DEVICE_KINDS = {
    (8, 9): "NVIDIA L40",
    (9, 0): "NVIDIA H200",
    (10, 0): "NVIDIA B200",
    (10, 3): "NVIDIA B300",
    (11, 0): "NVIDIA Thor",
    (12, 0): "NVIDIA RTX PRO 6000",
    (12, 1): "NVIDIA GB10",
}


@contextlib.contextmanager
def lowering_context(device):
    """The context the kernel is lowered in for ``device`` (a record of
    :func:`jax_glm_nope.lowering_for`): the abstract mesh in force with ``device`` as its
    abstract device, so the Triton lowering needs no GPU on this host."""
    kind = TRITON_DEVICE_KINDS.get(device.compute_capability, TRITON_DEVICE_KINDS[(9, 0)])
    abstract_device = jax.sharding.AbstractDevice(
        device_kind=kind, num_cores=device.sm_count, platform="cuda"
    )
    mesh = jax.sharding.get_abstract_mesh().update(abstract_device=abstract_device)
    with jax.sharding.use_abstract_mesh(mesh), _host_kind_known_as(kind):
        yield


@contextlib.contextmanager
def _host_kind_known_as(kind: str):
    """While lowering on a host without a GPU: the Triton lowering of jax >= 0.11 (its
    ``gpu_info.get_gpu_info``) also looks the host's own device kind up in a registry of
    kinds; exporting from ``JAX_PLATFORMS=cpu`` under jax 0.11.2 the abstract mesh above
    did not reach it ("No supported GPU devices found"), so the host's kind stands for
    ``kind`` there too, and only while the kernel is lowered. jax 0.10 has no such
    registry (its lowering takes compute capability 9.0 without a GPU)."""
    try:
        from jax._src.pallas.triton import gpu_info  # type: ignore[attr-defined]  # jax >= 0.11
    except ImportError:
        yield
        return
    host_kind = jax.local_devices()[0].device_kind
    version = gpu_info.gpu_version_from_device_kind(kind)
    registry = getattr(gpu_info, "registry", None)
    if (
        version is None
        or registry is None
        or host_kind in registry
        or gpu_info.gpu_version_from_device_kind(host_kind) is not None  # a GPU host
    ):
        yield
        return
    registry[host_kind] = lambda: gpu_info.get_gpu_info_from_version(version)
    try:
        yield
    finally:
        registry.pop(host_kind, None)


def scratch(shapes, device, *, schedule: Schedule | None = None, **_) -> tuple:
    """The kernel's per-split results where they are not the call's ``out`` and ``lse``
    (more than one split, or heads padded to the block): the schedule ``sparse_mla``
    takes on ``device``, and the shapes the kernel is given (:func:`.schedule.split_results`)."""
    num_tokens, num_heads = shapes.num_tokens, shapes.num_heads
    sched = schedule or choose_schedule(num_tokens, num_heads, shapes.num_candidates, device.split_sm_count)
    (out_shape, out_dtype), (lse_shape, lse_dtype) = split_results(num_tokens, num_heads, sched)
    if sched.num_splits == 1 and out_shape[2] == num_heads:
        return ()  # one split of exactly H heads: the kernel writes out and lse themselves
    return jax.ShapeDtypeStruct(out_shape, out_dtype), jax.ShapeDtypeStruct(lse_shape, lse_dtype)


def shapes_unsupported(shapes, *, interpret: bool = False, **_) -> str | None:
    # Pools of 2-4 GiB get 64-bit offsets from offsets.py; should this jax's lowering not
    # allow that, its int32 offsets would read rows past 2 GiB at wrong addresses.
    if not interpret and LARGE_POOLS_UNSUPPORTED is not None and 2**31 < shapes.pool_bytes <= 2**32:
        return (
            f"the Pallas kernel cannot address pools of 2-4 GiB with this jax "
            f"({LARGE_POOLS_UNSUPPORTED}); this pool is {shapes.pool_bytes / 2**30:.2f} GiB"
        )
    return None


__all__ = [
    "CUSTOM_CALL_TARGETS",
    "OPTIONS",
    "SUPPORTED_JAX",
    "TRITON_MISSING",
    "Schedule",
    "check_schedule",
    "choose_schedule",
    "device_unsupported",
    "lowering_context",
    "merge_splits",
    "scratch",
    "shapes_unsupported",
    "sparse_mla",
]
