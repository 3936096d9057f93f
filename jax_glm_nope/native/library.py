"""Which native library this process uses, found before any build is attempted.

In this order:

1. ``JAX_GLM_NOPE_FFI_LIBRARY``: that file, trusted as it is (an empty value counts as
   unset; a name that is no file is an error). Loading it checks only that it is a
   whole shared library for this machine (:func:`load`);
2. the prebuilt library of the companion wheel ``jax-glm-nope-cu13`` (the package
   ``jax_glm_nope_cu13``, pulled by the ``cuda13`` extra), when it serves;
3. a library in the build cache (``jax-glm-nope build-ffi``, or an earlier first use),
   whatever arch list it was built for, when it serves and was built by this recipe;
4. none: the caller builds one (:func:`.build.build`, the default arch list) where nvcc is.

A library *serves* this process when it was compiled from exactly these ``ffi/``
sources (the hash of the files the build compiles), against an XLA FFI API of this
jaxlib's major version and a minor version no newer than its own (XLA keeps older
minor versions working), holds code that runs on this GPU (its arch-generic KV-row
unit, compiled for the arch list plus PTX, :func:`covers` the GPU's architecture; the
list and the PTX are read from ``build.json``), and, on an SM120/SM121 GPU, holds
FlashInfer's units for that GPU's architecture. Our Hopper unit is always compiled for
``sm_90a``. Nothing here compiles or needs nvcc.
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import importlib.util
import json
import os
import pathlib
import re

from . import build, elf
from .toolchain import BuildError, ffi_api_version

PREBUILT_PACKAGE = "jax_glm_nope_cu13"
PREBUILT_DISTRIBUTION = "jax-glm-nope-cu13"
FLASHINFER_ARCHS = ("sm_120a", "sm_121a")  # the GPUs that need FlashInfer's units compiled in


@dataclasses.dataclass(frozen=True)
class Found:
    """A library that serves this process and where it came from: ``"environment"``
    (``JAX_GLM_NOPE_FFI_LIBRARY``), ``"prebuilt"`` (the companion wheel) or ``"cache"``."""

    path: pathlib.Path
    origin: str


def arch_of(device) -> str | None:
    """The compile target of a :class:`jax_glm_nope.device.Device`: ``sm_90a``,
    ``sm_120a``, ``sm_121a``, ``sm_XY`` for other NVIDIA GPUs, None off CUDA."""
    if device is None or not device.is_cuda or device.compute_capability is None:
        return None
    major, minor = device.compute_capability
    arch = f"sm_{major}{minor}"
    return f"{arch}a" if (major, minor) in ((9, 0), (12, 0), (12, 1)) else arch


def capability_of(arch: str) -> tuple[int, int]:
    """``(major, minor)`` of a compile target: ``sm_90a`` -> (9, 0), ``compute_80`` -> (8, 0)."""
    match = re.fullmatch(r"(?:sm|compute)_(\d+)(\d)[a-z]?", arch)
    if match is None:
        raise ValueError(f"arch: expected a name like 'sm_90a' or 'compute_80', got {arch!r}")
    return int(match.group(1)), int(match.group(2))


# The oldest GPU the default build's KV-row unit runs on: its oldest PTX.
GENERIC_MIN_CAPABILITY = min(capability_of(ptx) for ptx in build.GENERIC_PTX)
# What a build.json without a "ptx" entry carried (written by older recipes).
OLDER_RECIPES_PTX = ("compute_90",)


def covers(record: dict, arch: str) -> bool:
    """Whether the arch-generic unit of the library described by ``record`` has code for
    ``arch``: machine code for it (``sm_XY`` runs on GPUs of major X and minor >= Y,
    ``sm_XYa`` on XY alone) or PTX no newer than it (the driver compiles that)."""
    device = capability_of(arch)
    for built in record["archs"]:
        major, minor = capability_of(built)
        if built == arch or (built[-1].isdigit() and major == device[0] and minor <= device[1]):
            return True
    return any(capability_of(ptx) <= device for ptx in record.get("ptx", OLDER_RECIPES_PTX))


def local_arch() -> str | None:
    """The compile target of the device this process runs on (None on a CPU host)."""
    from .. import device

    return arch_of(device.local())


def why_not(record: dict, arch: str | None, *, same_recipe: bool) -> str | None:
    """None when the library described by ``record`` (its ``build.json``) serves a process
    on ``arch``; else why not."""
    try:
        if record["sources"] != build.source_hash():
            return f"it was built from other sources (jax_glm_nope {record.get('jax_glm_nope', '?')})"
        if same_recipe and record["recipe"] != build.recipe_hash():
            return "it was built by another recipe (compiler flags)"
        major, minor = record["ffi_api"]
        running = ffi_api_version()
        if major != running[0] or minor > running[1]:
            return (
                f"it was compiled against XLA FFI API {major}.{minor} and this jaxlib speaks "
                f"{running[0]}.{running[1]}"
            )
        if arch in FLASHINFER_ARCHS and not (record["flashinfer"] and arch in record["archs"]):
            return f"it holds no FlashInfer code for {arch} (built for {', '.join(record['archs'])})"
        if arch is not None and not covers(record, arch):
            ptx = record.get("ptx", OLDER_RECIPES_PTX)
            return f"it holds no code for {arch} (built for {', '.join(record['archs'] + list(ptx))})"
    except (KeyError, TypeError, ValueError) as err:
        return f"its build.json is unreadable ({type(err).__name__}: {err})"
    return None


@functools.cache
def prebuilt_dir() -> pathlib.Path | None:
    """The installed companion package's folder (found without importing it), or None."""
    try:
        spec = importlib.util.find_spec(PREBUILT_PACKAGE)
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or []) if spec else []
    return pathlib.Path(locations[0]) if locations else None


def forget() -> None:
    """Look for the companion package again (after installing or removing it in-process)."""
    prebuilt_dir.cache_clear()


def _read(manifest: pathlib.Path) -> dict | None:
    try:
        return json.loads(manifest.read_text())
    except (OSError, ValueError):
        return None


def prebuilt(arch: str | None) -> tuple[pathlib.Path | None, str | None]:
    """``(the companion wheel's library, None)`` when it serves; ``(None, why not)`` when
    it is installed and does not; ``(None, None)`` when it is not installed."""
    folder = prebuilt_dir()
    if folder is None:
        return None, None
    path = folder / build.LIBRARY_NAME
    record = _read(folder / build.MANIFEST_NAME)
    if not path.is_file() or record is None:
        return None, f"the {PREBUILT_DISTRIBUTION} install in {folder} lacks its library or build.json"
    reason = why_not(record, arch, same_recipe=False)
    if reason:
        return None, (
            f"the prebuilt library of {PREBUILT_DISTRIBUTION} {record.get('jax_glm_nope', '?')} does "
            f"not serve: {reason}; install the {PREBUILT_DISTRIBUTION} wheel of this jax_glm_nope"
        )
    return path, None


def cached(arch: str | None) -> pathlib.Path | None:
    """A library in the build cache that serves ``arch`` and was built by this recipe,
    whatever its arch list; the newest of several."""
    root = build.cache_dir()
    try:
        manifests = list(root.glob(f"*/{build.MANIFEST_NAME}"))
    except OSError:
        return None
    serving = []
    for manifest in manifests:
        path = manifest.parent / build.LIBRARY_NAME
        record = _read(manifest)
        if record is not None and path.is_file() and why_not(record, arch, same_recipe=True) is None:
            serving.append((path.stat().st_mtime_ns, str(path)))
    return pathlib.Path(max(serving)[1]) if serving else None


def find(arch: str | None) -> Found | None:
    """The library a process on ``arch`` uses, without building; None when a build is
    needed. Raises :class:`BuildError` when ``JAX_GLM_NOPE_FFI_LIBRARY`` names no file."""
    named = os.environ.get("JAX_GLM_NOPE_FFI_LIBRARY")
    if named:
        if os.path.isdir(named):
            raise BuildError(
                f"JAX_GLM_NOPE_FFI_LIBRARY names {named}, which is a directory, not a library file"
            )
        if not os.path.isfile(named):
            raise BuildError(f"JAX_GLM_NOPE_FFI_LIBRARY names {named}, which does not exist")
        return Found(pathlib.Path(named), "environment")
    path, _ = prebuilt(arch)
    if path is not None:
        return Found(path, "prebuilt")
    path = cached(arch)
    return None if path is None else Found(path, "cache")


def named_by(path: str | os.PathLike) -> str:
    """Who chose ``path``, to begin an error about it: the variable that names it, the
    companion wheel, or the build cache."""
    variable = os.environ.get("JAX_GLM_NOPE_FFI_LIBRARY")
    if variable and os.path.abspath(variable) == os.path.abspath(path):
        return f"JAX_GLM_NOPE_FFI_LIBRARY names {path}"
    folder = prebuilt_dir()
    if folder is not None and pathlib.Path(path).parent == folder:
        return f"the prebuilt library of {PREBUILT_DISTRIBUTION} ({path})"
    return f"the native library {path}"


def load(path: str, named: str) -> ctypes.CDLL:
    """``dlopen`` a library once its ELF headers show a whole shared library for this
    machine (:mod:`.elf`: a truncated file would end the process with SIGBUS). ``named``
    begins the error (:func:`named_by`, or the argument that gave the path)."""
    found = elf.problem(path)
    if found is not None:
        raise BuildError(f"{named}, which {found}")
    try:
        return ctypes.cdll.LoadLibrary(path)
    except OSError as err:
        raise BuildError(f"{named}, which the dynamic loader refuses: {err}") from None


def passed_over(arch: str | None) -> str:
    """Why an installed companion wheel was not used (``""`` when none is installed), to
    append to a message about building."""
    _, reason = prebuilt(arch)
    return f" ({reason})" if reason else ""
