"""The native library: our CUDA kernels and FlashInfer's SM120 adapters behind XLA FFI.

- :mod:`.toolchain`: where nvcc, jax's FFI headers and FlashInfer's headers are;
- :mod:`.build`: the table of units, the cached and locked nvcc build, ``ptxas -v``;
- :mod:`.targets`: load, register, and one ``ffi_call`` wrapper per target;
- :mod:`.kv_rows`: the KV-row operations on top of our arch-generic targets.

Importing this package builds nothing. The library is built on first use (cached) or
ahead of time with ``jax-glm-nope build-ffi``. Which implementation may use it on
which device is decided in :mod:`jax_glm_nope.dispatch`, not here.
"""

from __future__ import annotations

import os

from . import build, targets
from .toolchain import BuildError, check_flashinfer_headers, find_flashinfer_data, find_nvcc


def unavailable_reason(*, allow_build: bool = True, need_flashinfer: bool = False) -> str | None:
    """None when the library is built, or (``allow_build``) can be built here; else why not.

    ``need_flashinfer``: FlashInfer's SM120 adapters are wanted, so FlashInfer 0.7.4's
    headers must be installed (a library named by ``JAX_GLM_NOPE_FFI_LIBRARY`` is trusted
    as it is).
    """
    prebuilt = os.environ.get("JAX_GLM_NOPE_FFI_LIBRARY")
    if prebuilt:
        return (
            None
            if os.path.isfile(prebuilt)
            else f"JAX_GLM_NOPE_FFI_LIBRARY names {prebuilt}, which does not exist"
        )
    try:
        if need_flashinfer:
            check_flashinfer_headers(find_flashinfer_data())
        if build.cached_library() is not None:
            return None
        if not allow_build:
            return "the native library is not built yet: run `jax-glm-nope build-ffi`"
        find_nvcc()
    except BuildError as err:
        return str(err)
    return None


load_library = targets.load_library

__all__ = ["BuildError", "build", "load_library", "targets", "unavailable_reason"]
