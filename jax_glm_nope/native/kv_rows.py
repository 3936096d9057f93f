"""KV-row writes and reads through our arch-generic CUDA targets.

``dequantize`` is the GPU's own reading of a row, through the same row-layout header
(``ffi/common/row_layout.h``) the attention kernels read rows with; the GPU tests hold it
bit for bit against :func:`jax_glm_nope.dequantize`. It is not dispatched: the public
``dequantize`` stays plain jnp on every platform, which XLA fuses into whatever consumes
the values (a custom call would end the fusion) and which needs no native library.
"""

from __future__ import annotations

from .. import device
from . import targets


def write_kv(pool2d, latent, slots):
    """Quantize ``latent [T, 512]`` into ``pool2d [num_slots, 528 | 656]`` at ``slots``
    (each slot named at most once: the public API keeps the last writer of each).

    Bit-identical to :func:`jax_glm_nope.quantize`; negative and out-of-range slots are
    dropped. In place when the caller jits with the pool donated (the target aliases
    operand 0 to its result). The caller has loaded the library where it runs.
    """
    return targets.write_kv_call(pool2d, latent, slots)


def dequantize(rows):
    """``rows [N, 528 | 656]`` uint8 -> ``[N, 512]`` float32 values, on this process's GPU."""
    targets.load_library_for(device.local())
    return targets.dequantize_call(rows)
