"""The ``pallas`` backend: a Pallas (Triton lowering) kernel for NVIDIA GPUs.

``sparse_mla_pallas(q, pool, indices, topk_lens, sm_scale, *, interpret=False)`` over
normalised arguments (docs/architecture.md); ``interpret=True`` runs the same kernel
in the Pallas interpreter on any platform. Design and measurements: docs/pallas.md.
"""

from __future__ import annotations

import warnings

from .ops import merge_splits, sparse_mla_pallas
from .schedule import Schedule, choose_schedule

# Newer JAX releases deprecate Pallas' Triton lowering in favour of Mosaic GPU, but on
# Hopper it is the only Pallas route with run-time row gathers (docs/pallas.md).
warnings.filterwarnings("ignore", message=r".*[Tt]riton.*", category=DeprecationWarning)

__all__ = ["Schedule", "choose_schedule", "merge_splits", "sparse_mla_pallas", "unavailable_reason"]


def unavailable_reason(platform: str) -> str | None:
    """``None`` on CUDA GPUs; else why the kernel cannot run (use ``interpret=True``)."""
    if platform in ("cuda", "gpu"):
        return None
    return (
        f"the Pallas kernel is lowered through Triton and needs an NVIDIA GPU (platform 'cuda'), "
        f"not {platform!r}; pass interpret=True to run it in the Pallas interpreter"
    )
