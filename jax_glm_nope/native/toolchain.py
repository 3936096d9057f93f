"""Where the native library's tools and headers are: nvcc, jax's FFI headers, and
FlashInfer 0.7.4's headers (checked by hash). Nothing here compiles.

Environment variables:

- ``JAX_GLM_NOPE_NVCC``: the nvcc to use (else ``$CUDA_HOME/bin/nvcc``, ``PATH``, the
  ``nvidia-cuda-nvcc`` wheel's, ``/usr/local/cuda/bin/nvcc``);
- ``JAX_GLM_NOPE_FLASHINFER_DATA``: a folder holding FlashInfer's ``include/`` and
  ``cccl/`` (else the installed ``flashinfer-python`` package's ``data/``).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import importlib.util
import os
import pathlib
import re
import shutil
import subprocess

FLASHINFER_VERSION = "0.7.4"
FLASHINFER_REQUIREMENT = f"flashinfer-python=={FLASHINFER_VERSION}"
# sha256 over the FlashInfer headers the SM120 adapters include (flashinfer_header_files),
# as shipped in flashinfer-python 0.7.4.
FLASHINFER_HEADER_SHA256 = "ad08ac2fb59f089e11e433430ceeb72c04360c8fc4762d40465d9c5698948679"
DEFAULT_NVCC = "/usr/local/cuda/bin/nvcc"
# --no-deps: only FlashInfer's headers are used, and flashinfer-python depends on torch.
INSTALL_FLASHINFER = f"pip install --no-deps {FLASHINFER_REQUIREMENT}"


class BuildError(RuntimeError):
    """The native library cannot be built or loaded here; the message says how to fix it."""


def _wheel_nvcc() -> list[str]:
    """nvcc from the ``nvidia-cuda-nvcc`` wheels (``nvidia/cuda_nvcc/bin`` for CUDA 12,
    ``nvidia/cu13/bin`` for CUDA 13), found without importing them."""
    spec = importlib.util.find_spec("nvidia")
    found = []
    for root in (spec.submodule_search_locations or []) if spec else []:
        found += sorted(str(p) for p in pathlib.Path(root).glob("*/bin/nvcc"))
    return found


def find_nvcc() -> str:
    """The nvcc to use, or raise :class:`BuildError` naming the fix."""
    candidates = [os.environ.get("JAX_GLM_NOPE_NVCC")]
    cuda_home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if cuda_home:
        candidates.append(os.path.join(cuda_home, "bin", "nvcc"))
    candidates += [shutil.which("nvcc"), *_wheel_nvcc(), DEFAULT_NVCC]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise BuildError(
        "the native library needs nvcc (CUDA 12.8 or newer) and none was found: install the CUDA "
        "toolkit or `pip install nvidia-cuda-nvcc`, or point JAX_GLM_NOPE_NVCC (or CUDA_HOME) at it"
    )


@functools.cache
def nvcc_version(nvcc: str) -> str:
    out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, check=False).stdout
    match = re.search(r"release ([0-9.]+)", out)
    return match.group(1) if match else "unknown"


def find_flashinfer_data() -> pathlib.Path:
    """FlashInfer's ``data/`` folder (``include/`` + ``cccl/``), without importing flashinfer."""
    override = os.environ.get("JAX_GLM_NOPE_FLASHINFER_DATA")
    if override:
        path = pathlib.Path(override)
    else:
        spec = importlib.util.find_spec("flashinfer")
        locations = list(spec.submodule_search_locations or []) if spec else []
        if not locations:
            raise BuildError(
                f"FlashInfer's SM120 adapters compile against FlashInfer {FLASHINFER_VERSION}'s "
                f"headers and flashinfer-python is not installed: {INSTALL_FLASHINFER}, or set "
                "JAX_GLM_NOPE_FLASHINFER_DATA to a folder holding its include/ and cccl/"
            )
        path = pathlib.Path(locations[0]) / "data"
    for sub in ("include/flashinfer/attention/sparse_mla_sm120", "cccl/libcudacxx/include"):
        if not (path / sub).is_dir():
            raise BuildError(
                f"FlashInfer headers not found: {path / sub} is missing ({INSTALL_FLASHINFER}, or "
                "set JAX_GLM_NOPE_FLASHINFER_DATA to a folder holding its include/ and cccl/)"
            )
    return path


def flashinfer_available() -> bool:
    """Whether FlashInfer's headers are here (they may still fail the hash check)."""
    try:
        find_flashinfer_data()
    except BuildError:
        return False
    return True


@functools.cache
def flashinfer_header_files(data: pathlib.Path) -> tuple[tuple[str, pathlib.Path], ...]:
    """(name relative to ``data``, path) of every header the adapters include; listed once."""
    include = data / "include" / "flashinfer"
    files = sorted((include / "attention" / "sparse_mla_sm120").rglob("*"))
    files += [include / "fastdiv.cuh", include / "math.cuh"]
    files.append(data / "cccl" / "libcudacxx" / "include" / "cuda" / "std" / "__cccl" / "version.h")
    return tuple((f.relative_to(data).as_posix(), f) for f in files if f.is_file())


@functools.cache
def _digest(files: tuple[tuple[str, str, int, int], ...]) -> str:
    digest = hashlib.sha256()
    for name, path, _, _ in files:
        digest.update(name.encode() + b"\0" + pathlib.Path(path).read_bytes())
    return digest.hexdigest()


def files_digest(named) -> str:
    """sha256 over each file's name, a NUL and its bytes. The bytes are read again only
    when a file's size or modification time changes: availability checks run on every
    eager call, and hashing FlashInfer's headers takes ~5 ms."""
    stats = ((name, path, path.stat()) for name, path in named)
    return _digest(tuple((name, str(path), st.st_mtime_ns, st.st_size) for name, path, st in stats))


def check_flashinfer_headers(data: pathlib.Path) -> str:
    """Raise unless ``data`` holds the FlashInfer headers the adapters were written against."""
    found = files_digest(flashinfer_header_files(data))
    if found != FLASHINFER_HEADER_SHA256:
        try:
            installed = importlib.metadata.version("flashinfer-python")
        except importlib.metadata.PackageNotFoundError:
            installed = "unknown"
        raise BuildError(
            f"the SM120 adapters were written against FlashInfer {FLASHINFER_VERSION}'s GLM53_NOPE "
            f"headers, and the headers in {data} differ (installed flashinfer-python: {installed}; "
            f"header sha256 {found[:16]}..., expected {FLASHINFER_HEADER_SHA256[:16]}...): "
            f"{INSTALL_FLASHINFER}"
        )
    return found
