"""What the kernel implementations share around their call: a batch of calls folded
into one call over more tokens (``jax.vmap``), a clear error for ``jax.grad``, and the
varying-mesh-axes type of ``shard_map`` carried through (:mod:`jax_glm_nope.mesh_axes`)."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from ..candidates import valid_slots
from ..mesh_axes import with_varying_axes


def fold_batch(axis_size, in_batched, q, pool, indices, topk_lens, *, call):
    """vmap rule: a batch of calls is one call over ``batch * T`` tokens.

    A batched pool is stacked into one pool of ``batch * num_slots`` rows, and each
    batch element's valid slots are shifted into its own range (holes stay holes).
    """
    q_b, pool_b, idx_b, lens_b = in_batched
    q = q if q_b else jnp.broadcast_to(q, (axis_size, *q.shape))
    indices = indices if idx_b else jnp.broadcast_to(indices, (axis_size, *indices.shape))
    topk_lens = topk_lens if lens_b else jnp.broadcast_to(topk_lens, (axis_size, *topk_lens.shape))
    if pool_b:
        num_slots = pool.shape[1]
        if axis_size * num_slots >= 2**31:
            raise ValueError(
                f"pool: a vmapped batch of {axis_size} pools of {num_slots} slots exceeds int32 slot "
                "ids when stacked; use lax.map or fewer slots per pool"
            )
        offset = (jnp.arange(axis_size, dtype=jnp.int32) * num_slots)[:, None, None]
        indices = jnp.where(valid_slots(indices, num_slots), indices + offset, -1)
        pool = pool.reshape(axis_size * num_slots, pool.shape[-1])
    num_tokens = q.shape[1]
    out, lse = call(
        q.reshape(axis_size * num_tokens, *q.shape[2:]),
        pool,
        indices.reshape(axis_size * num_tokens, -1),
        topk_lens.reshape(-1),
    )
    out = out.reshape(axis_size, num_tokens, *out.shape[1:])
    lse = lse.reshape(axis_size, num_tokens, *lse.shape[1:])
    return (out, lse), (True, True)


def kernel_call(name: str, attend):
    """``attend(q, pool, indices, topk_lens)`` as one batchable, non-differentiable op.

    Under ``jax.vmap`` the batch folds into the token axis (:func:`fold_batch`);
    ``jax.grad``/``jax.jvp`` raise a ``TypeError`` naming the implementation.
    """

    attend = with_varying_axes(attend)

    @jax.custom_batching.custom_vmap
    def call(q, pool, indices, topk_lens):
        return attend(q, pool, indices, topk_lens)

    call.def_vmap(functools.partial(fold_batch, call=call))

    @jax.custom_jvp
    def op(q, pool, indices, topk_lens):
        return call(q, pool, indices, topk_lens)

    @op.defjvp
    def _no_derivative(primals, tangents):
        raise TypeError(
            f"sparse_mla(implementation={name!r}) is not differentiable: its kernel has no "
            "backward pass. Differentiate through implementation='reference' (plain jnp), or "
            "stop gradients at the attention call (jax.lax.stop_gradient)."
        )

    return op
