"""The two implementations of ``write_kv``: ``"cuda"`` (our arch-generic CUDA kernel,
in place through ``input_output_aliases``) and ``"xla"`` (quantize + scatter), one class
each (a namespace of the implementation protocol; the table names the class).

Both receive slots that the public API has already reduced to the last writer of each
slot (:func:`~jax_glm_nope.candidates.last_writer_only`): neither resolves duplicates."""

from __future__ import annotations

import jax.numpy as jnp

from .. import device as device_mod
from .. import layout, native, quant
from ..candidates import valid_slots
from ..mesh_axes import with_varying_axes
from ..native import kv_rows, library, targets


class CudaWrite:
    OPTIONS = ()
    CUSTOM_CALL_TARGETS = (targets.WRITE_KV,)

    @staticmethod
    def device_unsupported(device, *, allow_build: bool = True, **_) -> str | None:
        if not device.is_cuda:
            return "the CUDA KV-row kernel runs on NVIDIA GPUs only"
        oldest = library.GENERIC_MIN_CAPABILITY
        if device.compute_capability is not None and device.compute_capability < oldest:
            # The library carries no code for it (its oldest PTX is for compute_80).
            return f"the CUDA KV-row kernel needs compute capability {oldest[0]}.{oldest[1]} or newer"
        # A library found here must hold code for this GPU (library.covers); one lowered
        # for another machine is that machine's, built by this recipe.
        return native.unavailable_reason(allow_build=allow_build) if device_mod.is_local(device) else None

    @staticmethod
    def shapes_unsupported(shapes, **_) -> str | None:
        return None

    @staticmethod
    def write_kv(pool2d, latent, slots, *, device):
        targets.load_library_for(device)
        return with_varying_axes(kv_rows.write_kv)(pool2d, latent, slots)


class XlaWrite:
    OPTIONS = ()

    @staticmethod
    def device_unsupported(device, **_) -> str | None:
        return None

    @staticmethod
    def shapes_unsupported(shapes, **_) -> str | None:
        return None

    @staticmethod
    def write_kv(pool2d, latent, slots, *, device=None):
        del device  # XLA's scatter: the same code on every device
        num_slots = pool2d.shape[0]
        rows = quant.quantize_rows(latent, layout.row_format(pool2d.shape[1]))
        # jnp wraps negative indices; send every dropped slot past the end instead.
        target = jnp.where(valid_slots(slots, num_slots), slots, num_slots)
        return pool2d.at[target].set(rows, mode="drop")
