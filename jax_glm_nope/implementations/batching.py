"""What the kernel implementations share around their call: a batch of calls folded
into one call over more tokens (``jax.vmap``), a clear error for ``jax.grad``, and the
varying-mesh-axes type of ``shard_map`` carried through custom calls."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from ..candidates import valid_slots


def varying_axes(x) -> frozenset:
    """The mesh axes ``x`` varies over inside ``shard_map`` (empty outside, or when the
    check is off)."""
    aval = jax.typeof(x)
    axes = getattr(aval, "vma", None)  # spelled ``vma`` by some jax releases
    if axes is None:
        mat = getattr(aval, "manual_axis_type", None)
        axes = getattr(mat, "varying", None)
    return frozenset(axes or ())


def vary_over(tree, axes: frozenset):
    """Every leaf of ``tree`` marked varying over ``axes`` (``jax.lax.pcast``, a no-op cast)."""

    def cast(x):
        missing = tuple(sorted(axes - varying_axes(x), key=str))
        return jax.lax.pcast(x, missing, to="varying") if missing else x

    return jax.tree.map(cast, tree) if axes else tree


def with_varying_axes(call):
    """``call`` as a custom call's wrapper inside ``shard_map`` (``check_vma=True``): its
    operands get the union of their varying mesh axes (XLA FFI calls require equal ones)
    and so do its results (an FFI call's results otherwise vary over none: a token split
    over devices would come back typed as replicated). Outside ``shard_map`` it is
    ``call``."""

    @functools.wraps(call)
    def wrapped(*args):
        axes = frozenset().union(*map(varying_axes, jax.tree.leaves(args)))
        return vary_over(call(*vary_over(args, axes)), axes)

    return wrapped


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
