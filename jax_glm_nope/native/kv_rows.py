"""KV-row writes and reads through our arch-generic CUDA targets."""

from __future__ import annotations

from ..candidates import last_writer_only
from . import targets


def write_kv(pool2d, latent, slots):
    """Quantize ``latent [T, 512]`` into ``pool2d [num_slots, 528 | 656]`` at ``slots``.

    Bit-identical to :func:`jax_glm_nope.quantize`; negative and out-of-range slots are
    dropped; when several rows name one slot the last one is stored. In place when the
    caller jits with the pool donated (the target aliases operand 0 to its result).
    """
    targets.load_library_here()
    return targets.write_kv_call(pool2d, latent, last_writer_only(slots, pool2d.shape[0]))


def dequantize(rows):
    """``rows [N, 528 | 656]`` uint8 -> ``[N, 512]`` float32 values, on the GPU."""
    targets.load_library_here()
    return targets.dequantize_call(rows)
