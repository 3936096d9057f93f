"""The ``cuda`` implementation: this project's own Hopper (sm_90a) sparse-MLA kernels
through the native library (1-128 heads; above 32, the heads-major kernel, one CTA per group of 64 heads).
Design and measurements: docs/cuda_sm90.md.

``implementation=None`` takes it on Hopper at every head count from
``dispatch.CUDA_MIN_TOKENS`` tokens, where it was measured faster than the Pallas kernel
or level with it (the measurements are beside that constant).

Option ``batch_invariant`` (default False): split the candidates by a rule of (H, K)
only, so a token's bits do not depend on the other tokens of the call (decode, verify
and prefill of one token agree bit for bit); it costs 20-30% at large T. The default
sizes the split to fill the GPU once for this T, from the device record's SM count.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from .. import device as device_mod
from .. import native
from ..native import targets
from ..validate import check_bool
from .batching import kernel_call

OPTIONS = ("batch_invariant",)
CUSTOM_CALL_TARGETS = (targets.SM90_SPARSE_MLA,)
COMPUTE_CAPABILITY = (9, 0)
MAX_HEADS = targets.SM90_MAX_HEADS  # 33-128 heads: the heads-major kernel over groups of 64 heads
# The kernels keep scores in log2 units (base-2 softmax), so the largest score they
# represent is the float32 maximum times ln 2 nats (2.36e38); past it a score counts as
# the largest, and the head's lse is +inf (docs/semantics.md).
SCORE_LIMIT = 3.4028234663852886e38 * 0.6931471805599453


def device_unsupported(device, *, batch_invariant: bool = False, **_) -> str | None:
    check_bool(batch_invariant, "batch_invariant")
    if not device.is_cuda or device.compute_capability != COMPUTE_CAPABILITY:
        return "this project's CUDA kernels are built for Hopper (sm_90a, compute capability 9.0)"
    return native.unavailable_reason() if device_mod.is_local(device) else None


def shapes_unsupported(shapes, **_) -> str | None:
    if shapes.num_heads > MAX_HEADS:
        return f"the sm_90a kernel serves 1-{MAX_HEADS} heads, got H={shapes.num_heads}"
    return None


def splits(num_tokens: int, num_heads: int, num_candidates: int, batch_invariant: bool, device) -> int:
    """How many splits of the candidates a call on ``device`` launches."""
    if batch_invariant:
        return targets.sm90_num_splits(num_heads, num_candidates)
    sm_count = device.split_sm_count
    return targets.sm90_batch_num_splits(num_tokens, num_heads, num_candidates, sm_count)


def scratch(shapes, device, *, batch_invariant: bool = False, **_) -> tuple:
    """The split partials a call on ``device`` gives the kernel as result buffers (none
    when it runs one split): what :func:`_attend` sizes, from the same rules."""
    count = splits(shapes.num_tokens, shapes.num_heads, shapes.num_candidates, batch_invariant, device)
    part_out, part_lse = targets.sm90_scratch_shapes(shapes.num_tokens, shapes.num_heads, count)
    return jax.ShapeDtypeStruct(part_out, jnp.float32), jax.ShapeDtypeStruct(part_lse, jnp.float32)


def _attend(q, pool, indices, topk_lens, *, sm_scale: float, batch_invariant: bool, device):
    targets.load_library_for(device)
    num_tokens, num_heads, _ = q.shape
    count = splits(num_tokens, num_heads, indices.shape[1], batch_invariant, device)
    return targets.sm90_sparse_mla_call(q, pool, indices, topk_lens, sm_scale, count)


@functools.lru_cache(maxsize=64)  # keyed by sm_scale: bounded
def _kernel_call(sm_scale: float, batch_invariant: bool, device):
    attend = functools.partial(_attend, sm_scale=sm_scale, batch_invariant=batch_invariant, device=device)
    return kernel_call("cuda", attend)


def sparse_mla(q, pool, indices, topk_lens, sm_scale: float, *, device, batch_invariant: bool = False):
    """Normalised arguments -> ``(out [T, H, 512] bf16, lse [T, H] f32)`` on ``device``
    (the decision's: its SM count sizes the split)."""
    return _kernel_call(float(sm_scale), bool(batch_invariant), device)(q, pool, indices, topk_lens)
