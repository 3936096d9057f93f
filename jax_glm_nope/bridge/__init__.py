"""The XLA FFI bridge: JAX custom calls into FlashInfer's SM120 GLM53_NOPE kernels,
plus arch-generic KV-row targets (docs/ffi.md).

Importing this package builds nothing and never fails. The library is built on
first use (cached; see :mod:`jax_glm_nope.bridge.build`) or ahead of time with
``jax-glm-nope build-ffi``.

Availability policy:

- an explicit request (``backend="flashinfer"``, ``write_kv(..., backend="ffi")``)
  builds the library on first use when nvcc (and, for attention, FlashInfer's
  headers) are present, and otherwise raises an error that names the fix;
- an implicit choice (``backend="auto"``) takes the FFI path for attention on an
  SM120/SM121 GPU when the library is built or can be built, and for ``write_kv``
  only when the library is already built (``allow_build=False``), so that a plain
  ``write_kv`` on Hopper never starts a compile.
"""

from __future__ import annotations

import os

from .attention import plan, sparse_mla_flashinfer
from .build import BuildError
from .kv import dequantize_ffi, write_kv_ffi
from .targets import scratch_shapes

GLM_COMPUTE_CAPABILITIES = ("12.0", "12.1")


def cuda_compute_capability() -> str | None:
    """``"12.0"``-style capability of the first CUDA device, or None without one."""
    import jax

    try:
        devices = jax.devices("cuda")
    except RuntimeError:
        return None
    return getattr(devices[0], "compute_capability", None) if devices else None


def library_available() -> str | None:
    """Path of an already-built bridge library for this environment, or None. Never builds."""
    from . import build

    try:
        path = build.library_path(build_if_missing=False)
    except BuildError:
        return None
    return None if path is None else str(path)


def library_unavailable_reason(*, allow_build: bool = True, need_glm: bool = False) -> str | None:
    """None when the library is built, or (``allow_build``) can be built here; else why not.

    ``need_glm``: the GLM targets are wanted, so FlashInfer 0.7.4's headers must be
    installed (a library named by ``JAX_GLM_NOPE_FFI_LIBRARY`` is trusted as it is).
    """
    from . import build

    prebuilt = os.environ.get("JAX_GLM_NOPE_FFI_LIBRARY")
    if prebuilt:
        return (
            None
            if os.path.isfile(prebuilt)
            else f"JAX_GLM_NOPE_FFI_LIBRARY names {prebuilt}, which does not exist"
        )
    try:
        if need_glm:
            build.check_flashinfer_headers(build.find_flashinfer_data())
        if library_available() is not None:
            return None
        if not allow_build:
            return "the FFI bridge library is not built yet: run `jax-glm-nope build-ffi`"
        build.find_nvcc()
    except BuildError as err:
        return str(err)
    return None


def unavailable_reason(platform: str, *, allow_build: bool = True) -> str | None:
    """None when ``backend="flashinfer"`` can run on ``platform``; else a sentence saying why."""
    if platform != "cuda":
        return (
            f"FlashInfer's GLM53_NOPE kernels run on SM120/SM121 CUDA GPUs only, not on platform {platform!r}"
        )
    capability = cuda_compute_capability()
    if capability not in GLM_COMPUTE_CAPABILITIES:
        return (
            "FlashInfer's GLM53_NOPE kernels need an SM120 or SM121 GPU (compute capability "
            f"12.0 or 12.1, sm_120a/sm_121a); this GPU has compute capability {capability}"
        )
    return library_unavailable_reason(allow_build=allow_build, need_glm=True)


def write_kv_unavailable_reason(platform: str, *, allow_build: bool = False) -> str | None:
    """None when ``write_kv`` can use the CUDA FFI kernel on ``platform``; else why not.

    ``allow_build=False`` (for ``backend="auto"``) requires an already-built library;
    pass ``allow_build=True`` for an explicit ``backend="ffi"``, which builds on first use.
    """
    if platform != "cuda":
        return f"the FFI write kernel runs on CUDA GPUs only, not on platform {platform!r}"
    return library_unavailable_reason(allow_build=allow_build)


__all__ = [
    "BuildError",
    "cuda_compute_capability",
    "dequantize_ffi",
    "library_available",
    "library_unavailable_reason",
    "plan",
    "scratch_shapes",
    "sparse_mla_flashinfer",
    "unavailable_reason",
    "write_kv_ffi",
    "write_kv_unavailable_reason",
]
