"""The Pallas implementation's call: pad the candidates to the schedule, run the kernel,
merge the splits (``merge.py``).

Arguments arrive validated and normalised: nothing here re-validates.
"""

from __future__ import annotations

import functools

import jax.numpy as jnp

from ... import per_platform
from ..batching import kernel_call
from . import offsets
from .kernel import attend_splits
from .merge import merge_splits
from .schedule import Schedule, choose_schedule


def _attend(
    q, pool, indices, topk_lens, *, sm_scale: float, interpret: bool, schedule: Schedule | None, sm_count: int
):
    num_tokens, num_heads, _ = q.shape
    num_candidates = indices.shape[1]
    sched = schedule or choose_schedule(num_tokens, num_heads, num_candidates, sm_count)
    padded_candidates = sched.padded_candidates(num_candidates)
    if padded_candidates != num_candidates:
        indices = jnp.pad(indices, ((0, 0), (0, padded_candidates - num_candidates)), constant_values=-1)
    splits = functools.partial(attend_splits, sm_scale=sm_scale, sched=sched, interpret=interpret)
    if not interpret and offsets.needs_int64_offsets(pool.shape, pool.dtype.itemsize):
        # A pool of 2-4 GiB: the kernel is lowered (for CUDA, the only platform the Triton
        # lowering serves) with 64-bit offsets, and jax's lowering is left as it was after.
        refusal = "sparse_mla(implementation='pallas') is being lowered for {platform}: it runs on cuda only"
        out, lse = per_platform.call(
            (q, pool, indices, topk_lens), {"cuda": splits}, refusal, contexts={"cuda": offsets.int64_offsets}
        )
    else:
        out, lse = splits(q, pool, indices, topk_lens)
    if sched.num_splits > 1:
        return merge_splits(out, lse, num_heads, interpret=interpret)
    return out[0, :, :num_heads], lse[0, :, :num_heads]


@functools.lru_cache(maxsize=64)  # keyed by sm_scale: bounded
def _kernel_call(sm_scale: float, interpret: bool, schedule: Schedule | None, sm_count: int):
    attend = functools.partial(
        _attend, sm_scale=sm_scale, interpret=interpret, schedule=schedule, sm_count=sm_count
    )
    return kernel_call("pallas", attend)


def sparse_mla(
    q,
    pool,
    indices,
    topk_lens,
    sm_scale: float,
    *,
    device,
    interpret: bool = False,
    schedule: Schedule | None = None,
):
    """Normalised arguments -> ``(out [T, H, 512] bf16, lse [T, H] f32)`` on ``device``
    (the decision's: its SM count sizes the schedule).

    ``schedule`` overrides :func:`choose_schedule` (benchmarks and tuning only).
    """
    sm_count = device.split_sm_count
    return _kernel_call(float(sm_scale), bool(interpret), schedule, sm_count)(q, pool, indices, topk_lens)
