"""The ``cuda`` implementation: this project's own Hopper (sm_90a) sparse-MLA kernel
through the native library. Design and measurements: docs/cuda_sm90.md.

Not yet taken by ``implementation=None`` (see ``dispatch.SPARSE_MLA``): it joins the
automatic choice once the GPU suite passes on the H200.
"""

from __future__ import annotations

import functools

import jax.numpy as jnp

from .. import native
from ..native import targets
from .batching import kernel_call

OPTIONS = ()
COMPUTE_CAPABILITY = (9, 0)
MAX_HEADS = 32  # heads the kernel family written so far serves (1-32)


def device_unsupported(device, **_) -> str | None:
    if not device.is_cuda or device.compute_capability != COMPUTE_CAPABILITY:
        return "this project's CUDA kernels are built for Hopper (sm_90a, compute capability 9.0)"
    return native.unavailable_reason()


def shapes_unsupported(shapes, **_) -> str | None:
    if shapes.num_heads > MAX_HEADS:
        return f"the sm_90a kernel serves 1-{MAX_HEADS} heads so far, got H={shapes.num_heads}"
    return None


def _attend(q, pool, indices, topk_lens, *, sm_scale: float):
    targets.load_library()
    if q.shape[0] == 0:
        return jnp.zeros(q.shape, jnp.bfloat16), jnp.zeros(q.shape[:2], jnp.float32)
    return targets.sm90_sparse_mla_call(q, pool, indices, topk_lens, sm_scale)


@functools.lru_cache(maxsize=64)  # keyed by sm_scale: bounded
def _kernel_call(sm_scale: float):
    return kernel_call("cuda", functools.partial(_attend, sm_scale=sm_scale))


def sparse_mla(q, pool, indices, topk_lens, sm_scale: float):
    """Normalised arguments -> ``(out [T, H, 512] bf16, lse [T, H] f32)``."""
    return _kernel_call(float(sm_scale))(q, pool, indices, topk_lens)
