"""The ``pallas`` backend: a Pallas (Triton lowering) kernel for NVIDIA GPUs.

``sparse_mla_pallas(q, pool, indices, topk_lens, sm_scale, *, interpret=False)`` over
normalised arguments (docs/architecture.md); ``interpret=True`` runs the same kernel
in the Pallas interpreter on any platform. Design and measurements: docs/pallas.md.
"""

from __future__ import annotations

import warnings

import jax

from .ops import merge_splits, pool_unsupported_reason, sparse_mla_pallas
from .schedule import Schedule, choose_schedule

# Newer JAX releases deprecate Pallas' Triton lowering in favour of Mosaic GPU, but on
# Hopper it is the only Pallas route with run-time row gathers (docs/pallas.md).
warnings.filterwarnings("ignore", message=r".*[Tt]riton.*", category=DeprecationWarning)

__all__ = [
    "Schedule",
    "choose_schedule",
    "merge_splits",
    "pool_unsupported_reason",
    "sparse_mla_pallas",
    "unavailable_reason",
]


MIN_COMPUTE_CAPABILITY = (8, 9)  # Triton converts float8_e4m3fn natively from SM89 (Ada, Hopper) on


def unavailable_reason(platform: str) -> str | None:
    """``None`` on CUDA GPUs of SM89 or newer; else why the kernel cannot run."""
    if platform not in ("cuda", "gpu"):
        return (
            f"the Pallas kernel is lowered through Triton and needs an NVIDIA GPU (platform 'cuda'), "
            f"not {platform!r}; pass interpret=True to run it in the Pallas interpreter"
        )
    try:
        devices = jax.devices(platform)
    except RuntimeError as err:
        return f"no {platform!r} device: {err}"
    for device in devices:
        capability = getattr(device, "compute_capability", None)
        if capability is None:
            continue
        try:
            major, minor = (int(part) for part in str(capability).split(".")[:2])
        except ValueError:
            continue  # an unfamiliar format: let Triton be the judge
        if (major, minor) < MIN_COMPUTE_CAPABILITY:
            return f"the Pallas kernel needs compute capability 8.9 or newer (fp8 e4m3), got {capability}"
    return None
