"""Build the native library with nvcc: one table of units, cached on disk.

Each :class:`Unit` is one translation unit of ``ffi/`` with the architectures it is
compiled for and what it needs. A unit whose needs are missing (FlashInfer's headers)
or whose architectures are not in the list is compiled once with its feature macro
set to 0, so its targets exist and answer ``Unimplemented`` with a message saying how
the library was built.

The link exports the handlers and queries alone (:func:`version_script`) and keeps what
the library needs from the system within manylinux_2_28: :mod:`.glibc_stubs` binds the
static CUDA runtime's glibc calls to their pre-2.34 versions, and a host-only unit
(``ffi/ours/host/libstdcxx_compat.cc``) carries the two libstdc++ entry points newer
than GCC 7's that GCC's headers make the units call.

A build is keyed by the files it compiles (each unit's source and the ``ffi/`` headers
it includes, transitively: :func:`source_files`), this recipe (this module and
:mod:`.glibc_stubs`), the architecture list, the XLA FFI API version of jax's headers
(what the binary interface depends on, not jax's release number), the nvcc version and
the FlashInfer header hash; nothing else under ``ffi/`` and nothing outside it (the lab
in ``research/``) changes the key. A build lands in ``$JAX_GLM_NOPE_CACHE_DIR`` (default
``~/.cache/jax_glm_nope``) under a file lock, so several processes build once, with
``build.json`` beside it (the manifest: what it was built from and for, read by
:mod:`.library` to decide whether a library serves this process). Each unit's object
and its ``ptxas`` output are kept too (``objects/`` in the cache root, keyed by the
unit's own compile command and the keyed inputs above), so a build for another
architecture list, or with FlashInfer where one was without, compiles only the units
whose command differs (``force`` compiles every unit again). ``ptxas -v`` runs on
every unit; the resource report (registers, shared memory, spills per kernel) is written
beside the library as ``ptxas.json``, and our own units must not spill. Progress is
logged (``logging.getLogger("jax_glm_nope.native")``). Nothing here runs at import time.

Environment variables (besides :mod:`.toolchain`'s):

- ``JAX_GLM_NOPE_CACHE_DIR``: where builds are cached;
- ``JAX_GLM_NOPE_FFI_ARCHS``: the default architecture list, comma separated.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import dataclasses
import fcntl
import functools
import hashlib
import json
import logging
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

from .. import layout
from ..version import __version__
from . import glibc_stubs
from .toolchain import (
    BuildError,
    check_flashinfer_headers,
    ffi_api_version,
    ffi_source_dir,
    files_digest,
    find_flashinfer_data,
    find_nvcc,
    flashinfer_available,
    nvcc_version,
)

log = logging.getLogger("jax_glm_nope.native")

DEFAULT_ARCHS = ("sm_90a", "sm_120a", "sm_121a")
# Arch-generic units also carry PTX, JIT-compiled by the driver for GPUs the list has no
# code for: compute_80 serves Ampere and Ada (compute capability 8.x; their e4m3
# conversion is cuda_fp8.h's software path, bit-identical), compute_90 every newer GPU
# (the hardware conversion, which needs 8.9). The driver takes the newest PTX a GPU can run.
GENERIC_PTX = ("compute_80", "compute_90")
LIBRARY_NAME = "libjax_glm_nope_ffi.so"
MANIFEST_NAME = "build.json"
# What the library exports: the XLA FFI handlers (``JaxGlmNope*``) and the extern "C"
# queries Python reads through ctypes (``jax_glm_nope_*``); every other symbol (our C++,
# the xla::ffi and std:: template instances, the static CUDA runtime) stays local, so it
# can neither bind to nor shadow another library's copy in the process (jaxlib carries
# its own xla::ffi). A linker version script, not -fvisibility=hidden: one list for every
# unit, FlashInfer's headers included, whatever visibility they declare.
EXPORTED = ("JaxGlmNope*", "jax_glm_nope_*")
# In the cache root: how long the last build there took, for the next build's progress
# line (the time depends on the cores and their load, so a measured one beats a constant).
LAST_BUILD_NAME = "last_build.json"
# In the cache root: each unit's object and ptxas output, by the unit's key (:func:`unit_key`).
OBJECTS_NAME = "objects"
_QUOTED_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)


@dataclasses.dataclass(frozen=True)
class Unit:
    """One translation unit: ``source`` (relative to ``ffi/``), the architectures it is
    compiled for (``None``: every architecture of the list, plus :data:`GENERIC_PTX`), the macro that
    switches its code on, and what it needs beside nvcc."""

    source: str
    archs: tuple[str, ...] | None
    macro: str | None = None
    needs_flashinfer: bool = False
    ours: bool = True  # our code: ptxas must report no spills
    always: bool = False  # compiled for its archs even when the list leaves them out
    host: bool = False  # host code alone: nvcc hands it to the host compiler, no -gencode


UNITS = (
    Unit("ours/generic/kv_rows.cu", None),
    # Needs nothing but nvcc, so it always builds: the library then serves Hopper
    # whatever the list says.
    Unit("ours/sm90/sparse_mla.cu", ("sm_90a",), always=True),
    Unit(
        "flashinfer/sm120/decode.cu",
        ("sm_120a", "sm_121a"),
        macro="JAX_GLM_NOPE_WITH_FLASHINFER",
        needs_flashinfer=True,
        ours=False,
    ),
    Unit(
        "flashinfer/sm120/prefill.cu",
        ("sm_120a", "sm_121a"),
        macro="JAX_GLM_NOPE_WITH_FLASHINFER",
        needs_flashinfer=True,
        ours=False,
    ),
    # Local copies of the libstdc++ entry points newer than manylinux_2_28's, which GCC's
    # headers make the units above call (docs/ffi.md, "Which glibc the companion wheel needs").
    Unit("ours/host/libstdcxx_compat.cc", (), host=True),
)


def cache_dir() -> pathlib.Path:
    override = os.environ.get("JAX_GLM_NOPE_CACHE_DIR")
    if override:
        return pathlib.Path(override)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "jax_glm_nope"


def default_archs() -> tuple[str, ...]:
    override = os.environ.get("JAX_GLM_NOPE_FFI_ARCHS")
    if override is not None:
        return validate_archs(tuple(a.strip() for a in override.split(",") if a.strip()))
    return DEFAULT_ARCHS


def validate_archs(archs: tuple[str, ...]) -> tuple[str, ...]:
    for arch in archs:
        if not re.fullmatch(r"sm_\d+a?", arch):
            raise ValueError(f"archs: expected names like 'sm_90a' or 'sm_120a', got {arch!r}")
    if not archs:
        raise ValueError("archs: expected at least one architecture, got none")
    return tuple(dict.fromkeys(archs))


@functools.cache
def _quoted_includes(path: str, mtime_ns: int, size: int) -> tuple[str, ...]:
    """The ``#include "..."`` names of a file, read again only when it changes: the library
    lookup runs on every eager call."""
    del mtime_ns, size  # the cache key
    return tuple(_QUOTED_INCLUDE.findall(pathlib.Path(path).read_text(errors="replace")))


def source_files(sources: pathlib.Path) -> list[pathlib.Path]:
    """The files the build compiles (sorted): every unit's source and each header it
    includes with ``#include "..."``, transitively, resolved like nvcc's ``-I ffi``
    (the including file's folder first, then ``sources``). Includes found in neither
    (jax's FFI headers, FlashInfer's) are keyed by the XLA FFI API version and the FlashInfer
    header hash instead."""
    seen: set[pathlib.Path] = set()
    pending = [sources / unit.source for unit in UNITS]
    while pending:
        path = pending.pop()
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        stat = path.stat()
        for name in _quoted_includes(str(path), stat.st_mtime_ns, stat.st_size):
            for candidate in (path.parent / name, sources / name):
                if candidate.is_file():
                    pending.append(pathlib.Path(os.path.normpath(candidate)))
                    break
    return sorted(seen)


def source_hash(sources: pathlib.Path | None = None) -> str:
    """sha256 over the files the build compiles (:func:`source_files`), names and bytes."""
    sources = ffi_source_dir() if sources is None else sources
    return files_digest([(p.relative_to(sources).as_posix(), p) for p in source_files(sources)])


def recipe_hash() -> str:
    """sha256 of this module (the compiler flags) and of :mod:`.glibc_stubs` (the link's)."""
    digest = hashlib.sha256()
    for module in (__file__, glibc_stubs.__file__):
        digest.update(pathlib.Path(module).read_bytes())
    return digest.hexdigest()


def check_layout_header(sources: pathlib.Path) -> None:
    """ffi/common/row_layout.h restates jax_glm_nope/layout.py; refuse to build if they drift."""
    text = (sources / "common" / "row_layout.h").read_text()
    expected = {
        "kHeadDim": layout.HEAD_DIM,
        "kTile": layout.TILE,
        "kNumTiles": layout.NUM_TILES,
        "kCodesOffset": layout.COMPACT.codes_offset,
        "kScalesOffset": layout.COMPACT.scales_offset,
        "kReservedOffset": layout.COMPACT.reserved_offset,
        "kCompactRowBytes": layout.COMPACT.bytes_per_token,
        "kPaddedRowBytes": layout.PADDED.bytes_per_token,
        "kFp8Max": layout.FP8_MAX,
    }
    for name, value in expected.items():
        match = re.search(rf"constexpr \w+ {name} = ([0-9.]+)f?;", text)
        if match is None or float(match.group(1)) != float(value):
            raise BuildError(
                f"ffi/common/row_layout.h: {name} disagrees with jax_glm_nope/layout.py ({value})"
            )


def with_flashinfer(archs: tuple[str, ...], flashinfer: bool | None) -> bool:
    """FlashInfer's units are compiled when the list names sm_120a/sm_121a and, unless
    ``flashinfer`` says otherwise, when its headers are installed."""
    if not any(a in ("sm_120a", "sm_121a") for a in archs):
        if flashinfer:
            raise ValueError(
                f"archs: FlashInfer's SM120 kernels need sm_120a or sm_121a in the list, got {archs}"
            )
        return False
    return flashinfer_available() if flashinfer is None else flashinfer


def manifest(archs: tuple[str, ...], flashinfer: bool) -> dict:
    """What a build is made from and for (hashes only; compiles nothing): written beside
    the library as ``build.json``; its hash (less the informational fields) is the key."""
    import jax

    major, minor = ffi_api_version()
    return {
        "sources": source_hash(),
        "recipe": recipe_hash(),
        "archs": list(archs),
        "ptx": list(GENERIC_PTX),  # the arch-generic unit's PTX (what the library serves beyond archs)
        "ffi_api": [major, minor],
        "nvcc": nvcc_version(find_nvcc()),
        "flashinfer_headers": check_flashinfer_headers(find_flashinfer_data()) if flashinfer else None,
        "flashinfer": flashinfer,  # FlashInfer's SM120 units compiled in (keyed by the header hash)
        # Informational, not keyed: the package and jax release it was built with.
        "jax_glm_nope": __version__,
        "jax": jax.__version__,
    }


KEYED = ("sources", "recipe", "archs", "ffi_api", "nvcc", "flashinfer_headers")


def build_key(archs: tuple[str, ...], flashinfer: bool) -> str:
    """The cache key of a build (hashes only; compiles nothing)."""
    return key_of(manifest(archs, flashinfer))


def key_of(record: dict) -> str:
    keyed = json.dumps({name: record[name] for name in KEYED}, sort_keys=True)
    return hashlib.sha256(keyed.encode()).hexdigest()[:20]


def _gencode(arch: str, ptx: bool = False) -> list[str]:
    compute = arch.replace("sm_", "compute_")
    return ["-gencode", f"arch={compute},code={compute if ptx else arch}"]


def unit_archs(unit: Unit, archs: tuple[str, ...], flashinfer: bool) -> tuple[tuple[str, ...], bool]:
    """``(architectures to compile for, whether the unit's code is switched on)``."""
    if unit.host:
        return (), True
    if unit.archs is None:
        return archs, True
    if unit.always:
        return unit.archs, True
    wanted = tuple(a for a in unit.archs if a in archs)
    if unit.needs_flashinfer and not flashinfer:
        wanted = ()
    return (wanted, True) if wanted else ((archs[0],), False)


def _compile_command(nvcc, unit: Unit, archs, sources, obj, flashinfer_data, enabled: bool):
    import jax

    command = [
        nvcc,
        "-std=c++17",
        "-O3",
        "-lineinfo",
        "--expt-relaxed-constexpr",
        "-Xptxas",
        "-v",
        "-Xcompiler",
        "-fPIC",
        "-isystem",
        jax.ffi.include_dir(),
        "-I",
        str(sources),
    ]
    if unit.macro:
        command.append(f"-D{unit.macro}={int(enabled)}")
    if unit.needs_flashinfer and enabled:
        command += [
            # FlashInfer's bundled CCCL first: CUDA 13.0's own lacks cuda::fast_mod_div.
            "-I",
            str(flashinfer_data / "cccl" / "libcudacxx" / "include"),
            "-I",
            str(flashinfer_data / "include"),
        ]
    for arch in archs:
        command += _gencode(arch)
    if unit.archs is None:
        for ptx in GENERIC_PTX:
            command += _gencode(ptx.replace("compute_", "sm_"), ptx=True)
    return command + ["-c", str(sources / unit.source), "-o", str(obj)]


def unit_key(command: list[str], described: dict, paths: dict[str, pathlib.Path | None]) -> str:
    """The key of one unit's object: its compile command (less nvcc's path and the output,
    the folders in ``paths`` named by their role) and the build's keyed inputs that reach
    a unit: sources, recipe, XLA FFI API, nvcc version, and FlashInfer's header hash when
    the command reads FlashInfer's headers (``paths["FLASHINFER"]``)."""
    named_paths = [(str(path), role) for role, path in paths.items() if path is not None]
    named_paths.sort(key=lambda pair: -len(pair[0]))
    args = command[1 : command.index("-o")]

    def named(arg: str) -> str:
        for path, role in named_paths:  # longest first where one folder holds another
            arg = arg.replace(path, role)
        return arg

    record = {name: described[name] for name in ("sources", "recipe", "ffi_api", "nvcc")}
    record["command"] = [named(arg) for arg in args]
    if any("FLASHINFER" in arg for arg in record["command"]):
        record["flashinfer_headers"] = described["flashinfer_headers"]
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()[:20]


def _compile(command: list[str], obj: pathlib.Path, kept: pathlib.Path, force: bool) -> str:
    """Compile one unit into ``obj`` and return ptxas's output, or copy the object a build
    here already compiled with the same key (``kept``, without its suffix)."""
    kept_obj, kept_log = kept.with_suffix(".o"), kept.with_suffix(".ptxas")
    if not force and kept_obj.is_file() and kept_log.is_file():
        shutil.copyfile(kept_obj, obj)
        return kept_log.read_text()
    stderr = _run(command)
    try:  # the log first: an object present means its log is too; each appears whole
        kept.parent.mkdir(parents=True, exist_ok=True)
        staged = kept.with_name(f"{kept.name}.{os.getpid()}.tmp")
        staged.write_text(stderr)
        os.replace(staged, kept_log)
        shutil.copyfile(obj, staged)
        os.replace(staged, kept_obj)
    except OSError:  # keeping objects saves a later build time; failing to loses nothing
        pass
    return stderr


_PTXAS_FUNCTION = re.compile(r"Compiling entry function '(\S+)' for '(\w+)'")
_PTXAS_SPILLS = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")
_PTXAS_USAGE = re.compile(r"Used (\d+) registers.*?(?:(\d+) bytes smem)?")
# ptxas's advisory that it serialized a kernel's warpgroup MMAs (each waits for the last),
# e.g. for want of registers: it names the function, before or after its entry line.
_PTXAS_WGMMA_SERIALIZED = re.compile(r"\((C75\d\d)\) Potential Performance Loss: wgmma\S* .*function '(\S+)'")


def parse_ptxas(stderr: str) -> list[dict]:
    """``ptxas -v`` output -> one record per (kernel, arch): registers, static shared
    memory, spill bytes, and the code of a wgmma-serialization advisory (or None)."""
    serialized = {m.group(2): m.group(1) for m in _PTXAS_WGMMA_SERIALIZED.finditer(stderr)}
    records, current = [], None
    for line in stderr.splitlines():
        if m := _PTXAS_FUNCTION.search(line):
            current = {
                "kernel": m.group(1),
                "arch": m.group(2),
                "spill_stores": 0,
                "spill_loads": 0,
                "wgmma_serialized": serialized.get(m.group(1)),
            }
            records.append(current)
        elif current is not None and (m := _PTXAS_SPILLS.search(line)):
            current["spill_stores"], current["spill_loads"] = int(m.group(1)), int(m.group(2))
        elif current is not None and "Used" in line and (m := _PTXAS_USAGE.search(line)):
            current["registers"] = int(m.group(1))
            smem = re.search(r"(\d+) bytes smem", line)
            current["smem_bytes"] = int(smem.group(1)) if smem else 0
    return records


def version_script() -> str:
    """The linker version script that exports :data:`EXPORTED` and nothing else."""
    return "{\n  global: " + " ".join(f"{name};" for name in EXPORTED) + "\n  local: *;\n};\n"


def _run(command: list[str]) -> str:
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise BuildError(f"nvcc failed ({' '.join(command)}):\n{result.stderr[-6000:]}")
    return result.stderr


@contextlib.contextmanager
def _file_lock(path: pathlib.Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def last_build_seconds(cache: pathlib.Path | None = None) -> float | None:
    """Seconds the last build in ``cache`` (default :func:`cache_dir`) took, or None when
    none recorded one (or the record is unreadable)."""
    path = (cache_dir() if cache is None else pathlib.Path(cache)) / LAST_BUILD_NAME
    try:
        seconds = json.loads(path.read_text())["seconds"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return float(seconds) if isinstance(seconds, (int, float)) and seconds >= 0 else None


def expected_duration(cache: pathlib.Path | None = None) -> str:
    """What a progress line says about the build's length: the last measured time here,
    else a range that holds only on idle cores."""
    seconds = last_build_seconds(cache)
    if seconds is None:
        return "no earlier build recorded here; 1-2 minutes on two idle cores, longer under load"
    return f"the last build here took {seconds:.0f} s"


def _record_build_seconds(seconds: float, archs: tuple[str, ...], flashinfer: bool) -> None:
    record = {"seconds": round(seconds, 1), "archs": list(archs), "flashinfer": flashinfer}
    try:
        (cache_dir() / LAST_BUILD_NAME).write_text(json.dumps(record))
    except OSError:  # informational only: a read-only cache root loses nothing else
        pass


def build(
    archs: tuple[str, ...] | None = None,
    *,
    flashinfer: bool | None = None,
    force: bool = False,
) -> pathlib.Path:
    """Build (or find in the cache) the native library for ``archs``; return its path.

    ``flashinfer``: compile FlashInfer's SM120 adapters (True: required, raising when
    the headers are missing; None: when installed; False: never, their targets then
    answer Unimplemented saying so).
    """
    archs = validate_archs(tuple(archs)) if archs else default_archs()
    nvcc = find_nvcc()
    sources = ffi_source_dir()
    if not (sources / "common" / "row_layout.h").is_file():
        raise BuildError(
            f"the native sources are not at {sources}: run from a checkout of jax_glm_nope (an "
            "editable install), or set JAX_GLM_NOPE_FFI_SOURCES to its ffi/ folder"
        )
    check_layout_header(sources)
    flashinfer = with_flashinfer(archs, flashinfer)
    flashinfer_data = find_flashinfer_data() if flashinfer else None
    described = manifest(archs, flashinfer)
    target = cache_dir() / key_of(described) / LIBRARY_NAME
    with _file_lock(target.parent.with_suffix(".lock")):
        if target.is_file() and not force:
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        log.warning(
            "jax_glm_nope: building the native library for %s%s (%s; cached in %s)",
            ", ".join(archs),
            " with FlashInfer's SM120 kernels" if flashinfer else "",
            expected_duration(),
            target.parent,
        )
        with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
            build_dir = pathlib.Path(tmp)
            jobs = []
            paths = {"BUILD": build_dir, "FFI": sources, "FLASHINFER": flashinfer_data}
            for unit in UNITS:
                unit_targets, enabled = unit_archs(unit, archs, flashinfer)
                obj = build_dir / (unit.source.replace("/", "__") + ".o")
                command = _compile_command(nvcc, unit, unit_targets, sources, obj, flashinfer_data, enabled)
                kept = cache_dir() / OBJECTS_NAME / unit_key(command, described, paths)
                jobs.append((unit, obj, command, kept))
            with concurrent.futures.ThreadPoolExecutor(max(1, min(len(jobs), os.cpu_count() or 1))) as pool:
                outputs = list(pool.map(lambda job: _compile(job[2], job[1], job[3], force), jobs))
            report = []
            for (unit, *_), stderr in zip(jobs, outputs, strict=True):
                for record in parse_ptxas(stderr):
                    report.append({"unit": unit.source, "ours": unit.ours, **record})
            spilled = [r for r in report if r["ours"] and r["spill_stores"]]
            if spilled:
                raise BuildError(f"ptxas reports register spills in our kernels: {spilled}")
            staged = build_dir / LIBRARY_NAME
            exports = build_dir / "exports.map"
            exports.write_text(version_script())
            link = [nvcc, "-shared", "-Xlinker", f"--version-script={exports}", "-o", str(staged)]
            link += glibc_stubs.write_stubs(build_dir / "glibc_stubs")
            _run(link + [str(obj) for _, obj, *_ in jobs])
            (target.parent / "ptxas.json").write_text(json.dumps(report, indent=1))
            (target.parent / MANIFEST_NAME).write_text(json.dumps(described, indent=1))
            os.replace(staged, target)  # atomic: a reader sees all or nothing
        elapsed = time.monotonic() - started
        _record_build_seconds(elapsed, archs, flashinfer)
        log.warning("jax_glm_nope: native library built in %.1f s: %s", elapsed, target)
    return target


def cached_library(archs: tuple[str, ...] | None = None) -> pathlib.Path | None:
    """The already-built library for this environment, or None. Never compiles."""
    try:
        archs = validate_archs(tuple(archs)) if archs else default_archs()
        target = cache_dir() / build_key(archs, with_flashinfer(archs, None)) / LIBRARY_NAME
    except (BuildError, ValueError):
        return None
    return target if target.is_file() else None


def ptxas_report(library: pathlib.Path) -> list[dict]:
    """The ``ptxas -v`` records saved beside a built library."""
    return json.loads((pathlib.Path(library).parent / "ptxas.json").read_text())


def read_manifest(library: pathlib.Path) -> dict:
    """The ``build.json`` saved beside a built library."""
    return json.loads((pathlib.Path(library).parent / MANIFEST_NAME).read_text())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="jax-glm-nope build-ffi",
        description="Build the native library (our CUDA kernels, FlashInfer's SM120 adapters) ahead of time.",
    )
    parser.add_argument(
        "--archs",
        default=",".join(DEFAULT_ARCHS),
        help="comma-separated target list (FlashInfer's kernels build for sm_120a/sm_121a only)",
    )
    parser.add_argument("--force", action="store_true", help="rebuild even when cached")
    choice = parser.add_mutually_exclusive_group()
    choice.add_argument(
        "--without-flashinfer",
        "--generic-only",
        dest="flashinfer",
        action="store_const",
        const=False,
        help="leave FlashInfer's SM120 adapters out (their targets then answer Unimplemented)",
    )
    choice.add_argument(
        "--with-flashinfer",
        dest="flashinfer",
        action="store_const",
        const=True,
        help="require FlashInfer's SM120 adapters (an error when their headers are missing or differ)",
    )
    parser.add_argument("--print-path", action="store_true", help="print only the library path")
    args = parser.parse_args(argv)
    if not args.print_path:
        logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        archs = validate_archs(tuple(a.strip() for a in args.archs.split(",") if a.strip()))
        path = build(archs, flashinfer=args.flashinfer, force=args.force)
    except (BuildError, ValueError) as err:
        print(f"jax-glm-nope build-ffi: {err}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
