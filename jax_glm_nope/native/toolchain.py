"""Where the native library's tools and inputs are: the ``ffi/`` sources, nvcc, jax's
FFI headers and their API version, and FlashInfer 0.7.4's headers (vendored under
``ffi/third_party/flashinfer``, checked by hash). Nothing here compiles.

Environment variables:

- ``JAX_GLM_NOPE_FFI_SOURCES``: the ``ffi/`` folder to build from;
- ``JAX_GLM_NOPE_NVCC``: the nvcc to use, which must then be an executable file (else
  ``$CUDA_HOME/bin/nvcc``, ``PATH``, the ``nvidia-cuda-nvcc`` wheel's,
  ``/usr/local/cuda/bin/nvcc``);
- ``JAX_GLM_NOPE_FLASHINFER_DATA``: another folder holding FlashInfer 0.7.4's
  ``include/`` and ``cccl/`` (else the vendored copy, ``ffi/third_party/flashinfer``).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import pathlib
import re
import shutil
import subprocess

FLASHINFER_VERSION = "0.7.4"
FLASHINFER_REQUIREMENT = f"flashinfer-python=={FLASHINFER_VERSION}"
# Where the vendored copy lives, relative to ffi/: FlashInfer's data/ layout
# (include/ and the CCCL it bundles, cccl/libcudacxx/include), the files the SM120
# units include and nothing else.
VENDORED_FLASHINFER = "third_party/flashinfer"
# sha256 over the FlashInfer and CCCL headers the SM120 adapters include (the names the
# vendored copy's SHA256SUMS lists: flashinfer_header_files), as shipped in
# flashinfer-python 0.7.4's data/ folder.
FLASHINFER_HEADER_SHA256 = "f6a29284749e9b6e1b200737aecab69f788cfb7e789c4b0b2b10fdbfd25c849f"
DEFAULT_NVCC = "/usr/local/cuda/bin/nvcc"
_FFI_API_DEFINE = re.compile(r"^#define XLA_FFI_API_(MAJOR|MINOR) (\d+)", re.M)


class BuildError(RuntimeError):
    """The native library cannot be built or loaded here; the message says how to fix it."""


def ffi_source_dir() -> pathlib.Path:
    """The C++/CUDA sources: ``JAX_GLM_NOPE_FFI_SOURCES``, else the checkout's ``ffi/``
    (source tree, editable install), else the copy a wheel ships as ``jax_glm_nope/_ffi``."""
    override = os.environ.get("JAX_GLM_NOPE_FFI_SOURCES")
    if override:
        return pathlib.Path(override)
    package = pathlib.Path(__file__).resolve().parents[1]
    checkout = package.parent / "ffi"
    return checkout if checkout.is_dir() else package / "_ffi"


@functools.cache
def _ffi_api_of(header: str) -> tuple[int, int]:
    found = dict(_FFI_API_DEFINE.findall(pathlib.Path(header).read_text()))
    return int(found["MAJOR"]), int(found["MINOR"])


def ffi_api_version() -> tuple[int, int]:
    """``(major, minor)`` of the XLA FFI C API this jaxlib speaks (``XLA_FFI_API_MAJOR`` /
    ``_MINOR`` in its ``xla/ffi/api/c_api.h``). A library compiled against ``(M, m)``
    runs under every jaxlib of major ``M`` and minor ``>= m`` (XLA keeps old minor
    versions working for at least 12 months), so this, not jax's release number, is
    what the library's binary interface depends on."""
    import jax

    header = pathlib.Path(jax.ffi.include_dir()) / "xla" / "ffi" / "api" / "c_api.h"
    try:
        return _ffi_api_of(str(header))
    except (OSError, KeyError) as err:
        raise BuildError(f"cannot read the XLA FFI API version from {header}: {err}") from err


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
    named = os.environ.get("JAX_GLM_NOPE_NVCC")
    if named:
        # Never another nvcc than the one named: a user who pins one must not get PATH's.
        if os.path.isfile(named) and os.access(named, os.X_OK):
            return named
        raise BuildError(
            f"JAX_GLM_NOPE_NVCC names {named}, which is not an executable file: point it at nvcc, "
            "or unset it to search CUDA_HOME and PATH"
        )
    candidates: list[str | None] = []
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
    """FlashInfer's headers: ``JAX_GLM_NOPE_FLASHINFER_DATA``, else the vendored copy
    (``ffi/third_party/flashinfer``: ``include/`` + ``cccl/``)."""
    override = os.environ.get("JAX_GLM_NOPE_FLASHINFER_DATA")
    path = pathlib.Path(override) if override else ffi_source_dir() / VENDORED_FLASHINFER
    for sub in ("include/flashinfer/attention/sparse_mla_sm120", "cccl/libcudacxx/include"):
        if not (path / sub).is_dir():
            where = (
                "JAX_GLM_NOPE_FLASHINFER_DATA names a folder without them"
                if override
                else "the sources' vendored copy is incomplete (restore ffi/third_party/flashinfer)"
            )
            raise BuildError(
                f"FlashInfer {FLASHINFER_VERSION}'s headers not found: {path / sub} is missing; {where}"
            )
    return path


def flashinfer_available() -> bool:
    """Whether FlashInfer's headers are here (they may still fail the hash check)."""
    try:
        find_flashinfer_data()
    except BuildError:
        return False
    return True


def flashinfer_header_names() -> tuple[str, ...]:
    """The FlashInfer and CCCL headers the SM120 units include (names relative to the
    data folder), as listed in the vendored copy's ``SHA256SUMS``."""
    listing = ffi_source_dir() / VENDORED_FLASHINFER / "SHA256SUMS"
    try:
        lines = listing.read_text().splitlines()
    except OSError as err:
        raise BuildError(f"the list of FlashInfer headers is missing ({listing}): {err}") from err
    return tuple(line.split(None, 1)[1].strip() for line in lines if line.strip())


def flashinfer_header_files(data: pathlib.Path) -> tuple[tuple[str, pathlib.Path], ...]:
    """(name relative to ``data``, path) of every header the adapters include."""
    return tuple((name, data / name) for name in flashinfer_header_names())


@functools.cache
def _digest(files: tuple[tuple[str, str, int, int], ...]) -> str:
    digest = hashlib.sha256()
    for name, path, _, _ in files:
        digest.update(name.encode() + b"\0" + pathlib.Path(path).read_bytes())
    return digest.hexdigest()


def files_digest(named) -> str:
    """sha256 over each file's name, a NUL and its bytes. The bytes are read again only
    when a file's size or modification time changes: availability checks run on every
    eager call, and hashing FlashInfer's headers takes ~5 ms. A missing file raises
    :class:`BuildError`."""
    try:
        stats = [(name, path, path.stat()) for name, path in named]
    except FileNotFoundError as err:
        raise BuildError(f"a header the build needs is missing: {err.filename}") from err
    return _digest(tuple((name, str(path), st.st_mtime_ns, st.st_size) for name, path, st in stats))


def check_flashinfer_headers(data: pathlib.Path) -> str:
    """Raise unless ``data`` holds the FlashInfer headers the adapters were written against."""
    found = files_digest(flashinfer_header_files(data))
    if found != FLASHINFER_HEADER_SHA256:
        raise BuildError(
            f"the SM120 adapters were written against FlashInfer {FLASHINFER_VERSION}'s GLM53_NOPE "
            f"headers, and the headers in {data} differ (sha256 {found[:16]}..., expected "
            f"{FLASHINFER_HEADER_SHA256[:16]}...): restore the vendored copy "
            f"(ffi/{VENDORED_FLASHINFER}), or point JAX_GLM_NOPE_FLASHINFER_DATA at the data/ "
            f"folder of {FLASHINFER_REQUIREMENT}"
        )
    return found
