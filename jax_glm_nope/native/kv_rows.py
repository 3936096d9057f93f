"""KV-row writes and reads through our arch-generic CUDA targets."""

from __future__ import annotations

import jax.numpy as jnp

from ..candidates import valid_slots
from . import targets


def last_writer_only(slots, num_slots: int):
    """Slots with every out-of-range entry and every earlier duplicate set to -1.

    The CUDA kernel writes rows from parallel blocks, so two rows naming one slot
    could interleave their bytes; keeping only the last occurrence makes the stored
    row one whole row (the one a sequential loop would leave).
    """
    num_tokens = slots.shape[0]
    valid = valid_slots(slots, num_slots)
    keyed = jnp.where(valid, slots, num_slots)  # invalid entries group together, dropped anyway
    order = jnp.argsort(keyed, stable=True)
    ordered = keyed[order]
    last_of_run = jnp.concatenate([ordered[1:] != ordered[:-1], jnp.ones((1,), bool)])
    keep = jnp.zeros((num_tokens,), bool).at[order].set(last_of_run)
    return jnp.where(valid & keep, slots, -1).astype(jnp.int32)


def write_kv(pool2d, latent, slots):
    """Quantize ``latent [T, 512]`` into ``pool2d [num_slots, 528 | 656]`` at ``slots``.

    Bit-identical to :func:`jax_glm_nope.quantize`; negative and out-of-range slots are
    dropped; when several rows name one slot the last one is stored. In place when the
    caller jits with the pool donated (the target aliases operand 0 to its result).
    """
    targets.load_library()
    if latent.shape[0] == 0:
        return pool2d
    return targets.write_kv_call(pool2d, latent, last_writer_only(slots, pool2d.shape[0]))


def dequantize(rows):
    """``rows [N, 528 | 656]`` uint8 -> ``[N, 512]`` float32 values, on the GPU."""
    targets.load_library()
    return targets.dequantize_call(rows)
