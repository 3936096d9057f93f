"""The native library: our CUDA kernels and FlashInfer's SM120 adapters behind XLA FFI.

- :mod:`.toolchain`: where the sources, nvcc, jax's FFI headers (and their API version)
  and FlashInfer's vendored headers are;
- :mod:`.build`: the table of units, the cached and locked nvcc build, ``ptxas -v``;
- :mod:`.library`: which library this process uses, found before any build (the
  companion wheel's prebuilt one, a cached build);
- :mod:`.targets`: load, register, and one ``ffi_call`` wrapper per target;
- :mod:`.kv_rows`: the KV-row operations on top of our arch-generic targets.

Importing this package builds nothing. The library comes prebuilt (the ``cuda13``
extra's ``jax-glm-nope-cu13`` wheel, built by ``scripts/build_wheel.sh``), or is built on
first use (cached) or ahead of time with ``jax-glm-nope build-ffi``. Which
implementation may use it on which device is decided in :mod:`jax_glm_nope.dispatch`,
not here.
"""

from __future__ import annotations

from . import build, library, targets
from .toolchain import BuildError, check_flashinfer_headers, find_flashinfer_data, find_nvcc


def unavailable_reason(*, allow_build: bool = True, need_flashinfer: bool = False) -> str | None:
    """None when a library serves this process (:func:`.library.find`) or
    (``allow_build``) can be built here; else why not.

    ``need_flashinfer``: FlashInfer's SM120 adapters are wanted, so a build needs
    FlashInfer 0.7.4's headers (vendored in the sources; a library named by
    ``JAX_GLM_NOPE_FFI_LIBRARY`` is trusted as it is).
    """
    arch = library.local_arch()
    try:
        if library.find(arch) is not None:
            return None
    except BuildError as err:
        return str(err)
    try:
        if need_flashinfer or arch in library.FLASHINFER_ARCHS:
            check_flashinfer_headers(find_flashinfer_data())
        if not allow_build:
            return "the native library is not built yet: run `jax-glm-nope build-ffi`" + library.passed_over(
                arch
            )
        find_nvcc()
    except BuildError as err:
        return f"{err}{library.passed_over(arch)}"
    return None


load_library = targets.load_library

__all__ = ["BuildError", "build", "library", "load_library", "targets", "unavailable_reason"]
