"""The ``flashinfer`` implementation: FlashInfer 0.7.4's GLM53_NOPE kernels (SM120/SM121)
through the native library.

:func:`plan` maps a call's shape onto the kernels' contract and :func:`sparse_mla` runs
that plan:

- holes: FlashInfer skips negative indices but would read an index ``>= num_slots``,
  so every inactive candidate (out of range, or at ``j >= topk_lens[t]``) becomes -1;
- decode (T <= 64): split-K over 64-candidate windows, any K and any H <= 128, scratch
  from :func:`~jax_glm_nope.native.targets.flashinfer_scratch_shapes`;
- prefill (T > 64): K padded with -1 to a multiple of 64 (2051 -> 2112), H padded with
  zero queries to the next of 8, 16, 32, 64, 128 and sliced back;
- a token with no active candidate gets ``out = 0`` and ``lse = -inf`` whatever the
  kernel wrote, and LSE is natural-log (the handlers scale FlashInfer's base-2 LSE).

Not verified numerically on an SM120 card (none was available): see docs/ffi.md.
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp

from .. import device as device_mod
from .. import native
from ..candidates import active_candidates, lengths
from ..native import targets
from .batching import kernel_call

OPTIONS = ()
CUSTOM_CALL_TARGETS = (targets.FLASHINFER_DECODE, targets.FLASHINFER_PREFILL)
COMPUTE_CAPABILITIES = ((12, 0), (12, 1))


def device_unsupported(device, **_) -> str | None:
    if not device.is_cuda or device.compute_capability not in COMPUTE_CAPABILITIES:
        return (
            "FlashInfer's GLM53_NOPE kernels run on SM120/SM121 GPUs only (compute capability 12.0 or 12.1)"
        )
    return native.unavailable_reason(need_flashinfer=True) if device_mod.is_local(device) else None


def shapes_unsupported(shapes, **_) -> str | None:
    return None  # decode takes any K and H; prefill pads both


@dataclasses.dataclass(frozen=True)
class Plan:
    target: str  # the FFI target launched
    heads: int  # heads the kernel sees (prefill pads)
    candidates: int  # candidates the kernel sees (prefill pads to a multiple of 64)
    scratch: tuple  # decode's (mid_out, mid_lse) shapes; () for prefill


def plan(num_tokens: int, num_heads: int, num_candidates: int) -> Plan:
    """What :func:`sparse_mla` launches for a shape."""
    if num_tokens <= targets.FLASHINFER_MAX_DECODE_TOKENS:
        scratch = targets.flashinfer_scratch_shapes(num_tokens, num_heads, num_candidates)
        return Plan(targets.FLASHINFER_DECODE, num_heads, num_candidates, scratch)
    window = targets.FLASHINFER_WINDOW
    heads = next(h for h in targets.FLASHINFER_PREFILL_HEADS if h >= num_heads)
    return Plan(targets.FLASHINFER_PREFILL, heads, -(-num_candidates // window) * window, ())


def scratch(shapes, device, **_) -> tuple:
    """Decode's ``(mid_out bf16, mid_lse f32)`` result buffers, as :func:`plan` sizes them;
    prefill takes none."""
    launch = plan(shapes.num_tokens, shapes.num_heads, shapes.num_candidates)
    return tuple(
        jax.ShapeDtypeStruct(shape, dtype)
        for shape, dtype in zip(launch.scratch, (jnp.bfloat16, jnp.float32), strict=False)
    )


def _attend(q, pool, indices, topk_lens, *, sm_scale: float, device):
    targets.load_library_for(device)  # at trace time: builds on first use, registers the targets
    num_tokens, num_heads, _ = q.shape
    num_candidates = indices.shape[1]
    # FlashInfer's kernels read a [T] length each, unclamped.
    topk_lens = jnp.clip(lengths(topk_lens, num_tokens, num_candidates), 0, num_candidates)
    active = active_candidates(indices, topk_lens, pool.shape[0])
    indices = jnp.where(active, indices, -1)
    launch = plan(num_tokens, num_heads, num_candidates)
    if launch.target == targets.FLASHINFER_DECODE:
        out, lse = targets.flashinfer_decode_call(q, pool, indices, topk_lens, sm_scale)
    else:
        indices = jnp.pad(indices, ((0, 0), (0, launch.candidates - num_candidates)), constant_values=-1)
        q = jnp.pad(q, ((0, 0), (0, launch.heads - num_heads), (0, 0)))
        out, lse = targets.flashinfer_prefill_call(q, pool, indices, topk_lens, sm_scale)
        out, lse = out[:, :num_heads], lse[:, :num_heads]
    any_active = jnp.any(active, axis=1)
    out = jnp.where(any_active[:, None, None], out, jnp.zeros((), jnp.bfloat16))
    lse = jnp.where(any_active[:, None], lse, -jnp.inf)
    return out, lse


@functools.lru_cache(maxsize=64)  # keyed by sm_scale: bounded
def _kernel_call(sm_scale: float, device):
    return kernel_call("flashinfer", functools.partial(_attend, sm_scale=sm_scale, device=device))


def sparse_mla(q, pool, indices, topk_lens, sm_scale: float, *, device):
    """Normalised arguments -> ``(out [T, H, 512] bf16, lse [T, H] f32)`` on ``device``."""
    return _kernel_call(float(sm_scale), device)(q, pool, indices, topk_lens)
