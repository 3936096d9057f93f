"""The ``pallas`` implementation: a Pallas (Triton lowering) kernel for NVIDIA GPUs of
compute capability 8.9 or newer; ``interpret=True`` runs the same kernel in the Pallas
interpreter on any platform. Design and measurements: docs/pallas.md.
"""

from __future__ import annotations

import jax

from ...validate import check_bool
from .schedule import Schedule, choose_schedule

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

if TRITON_MISSING is None:
    from .ops import merge_splits, sparse_mla
else:

    def sparse_mla(*args, **kwargs):  # dispatch never gets here: device_unsupported refuses first
        raise RuntimeError(TRITON_MISSING)

    merge_splits = sparse_mla

OPTIONS = ("interpret", "schedule")
MIN_COMPUTE_CAPABILITY = (8, 9)  # Triton converts float8_e4m3fn natively from SM89 (Ada, Hopper) on
# Pallas-Triton computes element offsets in int32 unless an array exceeds 2^32 bytes, and
# Triton sign-extends them: pools between 2 and 4 GiB would address wrong rows.
INT32_OFFSET_POOLS = (2**31, 2**32)


def device_unsupported(device, *, interpret: bool = False, **_) -> str | None:
    interpret = check_bool(interpret, "interpret")
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


def shapes_unsupported(shapes, *, interpret: bool = False, **_) -> str | None:
    if not interpret and INT32_OFFSET_POOLS[0] < shapes.pool_bytes <= INT32_OFFSET_POOLS[1]:
        return (
            f"the Pallas kernel cannot address pools of 2-4 GiB (int32 offsets); this pool is "
            f"{shapes.pool_bytes / 2**30:.2f} GiB"
        )
    return None


__all__ = [
    "OPTIONS",
    "SUPPORTED_JAX",
    "TRITON_MISSING",
    "Schedule",
    "choose_schedule",
    "device_unsupported",
    "merge_splits",
    "shapes_unsupported",
    "sparse_mla",
]
