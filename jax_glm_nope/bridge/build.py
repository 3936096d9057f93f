"""Build the XLA FFI bridge library with nvcc, cached on disk.

The library holds two kinds of translation units (``ffi/``):

- GLM units (``glm_decode.cu``, ``glm_prefill.cu``): FlashInfer 0.7.4's GLM53_NOPE
  kernels, compiled for ``sm_120a`` / ``sm_121a`` only (they do not assemble for
  other architectures);
- generic units (``kv_rows.cu``): the KV-row write and dequantize kernels, compiled
  for every architecture of the list plus PTX.

A build is keyed by the hash of the ``ffi/`` sources and of this recipe, the
architecture list, the jax version, the FlashInfer header hash and the nvcc version, and lands in
``$JAX_GLM_NOPE_CACHE_DIR`` (default ``~/.cache/jax_glm_nope``). Nothing here runs
at import time. Environment variables:

- ``JAX_GLM_NOPE_FFI_LIBRARY``: use this prebuilt library and never build;
- ``JAX_GLM_NOPE_CACHE_DIR``: where builds are cached;
- ``JAX_GLM_NOPE_NVCC``: the nvcc to use (else ``$CUDA_HOME/bin/nvcc``, ``PATH``,
  ``/usr/local/cuda/bin/nvcc``);
- ``JAX_GLM_NOPE_FLASHINFER_DATA``: a folder holding FlashInfer's ``include/`` and
  ``cccl/`` (else the installed ``flashinfer-python`` package's ``data/``);
- ``JAX_GLM_NOPE_FFI_ARCHS``: the default architecture list, comma separated.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import functools
import hashlib
import importlib.metadata
import importlib.util
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

from .. import layout

FLASHINFER_VERSION = "0.7.4"
FLASHINFER_REQUIREMENT = f"flashinfer-python=={FLASHINFER_VERSION}"
# sha256 over the FlashInfer headers the GLM units include (see _flashinfer_header_files),
# as shipped in flashinfer-python 0.7.4.
FLASHINFER_HEADER_SHA256 = "ad08ac2fb59f089e11e433430ceeb72c04360c8fc4762d40465d9c5698948679"

GLM_ARCHS = ("sm_120a", "sm_121a")
DEFAULT_ARCHS = ("sm_90a", "sm_120a", "sm_121a")
PTX_ARCH = "compute_90"  # generic units also carry PTX, JIT-compiled on newer GPUs
GLM_SOURCES = ("glm_decode.cu", "glm_prefill.cu")
GENERIC_SOURCES = ("kv_rows.cu",)
LIBRARY_NAME = "libjax_glm_nope_ffi.so"
DEFAULT_NVCC = "/usr/local/cuda/bin/nvcc"

_INSTALL_FFI = f"pip install 'jax-glm-nope[ffi]' (which pins {FLASHINFER_REQUIREMENT})"


class BuildError(RuntimeError):
    """The bridge library cannot be built here; the message says how to fix it."""


def ffi_source_dir() -> pathlib.Path:
    """The C++/CUDA sources: ``JAX_GLM_NOPE_FFI_SOURCES``, else the checkout's ``ffi/``
    (source tree, editable install), else the copy a wheel ships as ``jax_glm_nope/_ffi``."""
    override = os.environ.get("JAX_GLM_NOPE_FFI_SOURCES")
    if override:
        return pathlib.Path(override)
    package = pathlib.Path(__file__).resolve().parents[1]
    checkout = package.parent / "ffi"
    return checkout if checkout.is_dir() else package / "_ffi"


def cache_dir() -> pathlib.Path:
    override = os.environ.get("JAX_GLM_NOPE_CACHE_DIR")
    if override:
        return pathlib.Path(override)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "jax_glm_nope"


def default_archs() -> tuple[str, ...]:
    override = os.environ.get("JAX_GLM_NOPE_FFI_ARCHS")
    if override:
        return tuple(a.strip() for a in override.split(",") if a.strip())
    return DEFAULT_ARCHS


def find_nvcc() -> str:
    """The nvcc to use, or raise :class:`BuildError` naming the fix."""
    candidates = [os.environ.get("JAX_GLM_NOPE_NVCC")]
    cuda_home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if cuda_home:
        candidates.append(os.path.join(cuda_home, "bin", "nvcc"))
    candidates += [shutil.which("nvcc"), DEFAULT_NVCC]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise BuildError(
        "the FFI bridge needs nvcc (CUDA 12.8 or newer, for sm_120a) and none was found: install "
        "the CUDA toolkit, or point JAX_GLM_NOPE_NVCC (or CUDA_HOME) at it"
    )


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
                f"the FFI bridge compiles against FlashInfer {FLASHINFER_VERSION}'s headers and "
                f"flashinfer-python is not installed: {_INSTALL_FFI}, or set "
                "JAX_GLM_NOPE_FLASHINFER_DATA to a folder holding its include/ and cccl/"
            )
        path = pathlib.Path(locations[0]) / "data"
    for sub in ("include/flashinfer/attention/sparse_mla_sm120", "cccl/libcudacxx/include"):
        if not (path / sub).is_dir():
            raise BuildError(
                f"FlashInfer headers not found: {path / sub} is missing ({_INSTALL_FFI}, or set "
                "JAX_GLM_NOPE_FLASHINFER_DATA to a folder holding its include/ and cccl/)"
            )
    return path


@functools.cache
def _flashinfer_header_files(data: pathlib.Path) -> tuple[tuple[str, pathlib.Path], ...]:
    """(name relative to ``data``, path) of every header the GLM units include; listed once."""
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


def _files_digest(named) -> str:
    """sha256 over each file's name, a NUL and its bytes. The bytes are read again only
    when a file's size or modification time changes: availability checks run on every
    eager call of an ``"auto"`` backend, and hashing FlashInfer's headers takes ~5 ms."""
    stats = ((name, path, path.stat()) for name, path in named)
    return _digest(tuple((name, str(path), st.st_mtime_ns, st.st_size) for name, path, st in stats))


def flashinfer_header_hash(data: pathlib.Path) -> str:
    return _files_digest(_flashinfer_header_files(data))


def check_flashinfer_headers(data: pathlib.Path) -> str:
    """Raise unless ``data`` holds the FlashInfer headers the bridge was written against."""
    found = flashinfer_header_hash(data)
    if found != FLASHINFER_HEADER_SHA256:
        try:
            installed = importlib.metadata.version("flashinfer-python")
        except importlib.metadata.PackageNotFoundError:
            installed = "unknown"
        raise BuildError(
            f"the FFI bridge was written against FlashInfer {FLASHINFER_VERSION}'s GLM53_NOPE "
            f"headers, and the headers in {data} differ (installed flashinfer-python: {installed}; "
            f"header sha256 {found[:16]}..., expected {FLASHINFER_HEADER_SHA256[:16]}...): "
            f"pip install {FLASHINFER_REQUIREMENT}"
        )
    return found


def _check_layout_header(sources: pathlib.Path) -> None:
    """ffi/row_layout.h restates jax_glm_nope/layout.py; refuse to build if they drift."""
    text = (sources / "row_layout.h").read_text()
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
            raise BuildError(f"ffi/row_layout.h: {name} disagrees with jax_glm_nope/layout.py ({value})")


def _source_hash(sources: pathlib.Path) -> str:
    files = [path for path in sorted(sources.iterdir()) if path.suffix in (".cu", ".h", ".cuh")]
    return _files_digest([(path.name, path) for path in files])


@functools.cache
def _nvcc_version(nvcc: str) -> str:
    out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, check=False).stdout
    match = re.search(r"release ([0-9.]+)", out)
    return match.group(1) if match else "unknown"


def _validate_archs(archs: tuple[str, ...]) -> tuple[str, ...]:
    for arch in archs:
        if not re.fullmatch(r"sm_\d+a?", arch):
            raise ValueError(f"archs: expected names like 'sm_90a' or 'sm_120a', got {arch!r}")
    if not archs:
        raise ValueError("archs: expected at least one architecture, got none")
    return tuple(dict.fromkeys(archs))


def flashinfer_available() -> bool:
    """Whether FlashInfer's headers are here (they may still fail the hash check)."""
    try:
        find_flashinfer_data()
    except BuildError:
        return False
    return True


def _with_glm(archs: tuple[str, ...], glm: bool | None) -> bool:
    """GLM units are compiled when the list names sm_120a/sm_121a and, unless ``glm`` says
    otherwise, when FlashInfer's headers are installed."""
    if not any(a in GLM_ARCHS for a in archs):
        if glm:
            raise ValueError(f"archs: the GLM kernels need sm_120a or sm_121a in the list, got {archs}")
        return False
    return flashinfer_available() if glm is None else glm


def build_key(archs: tuple[str, ...], glm: bool) -> str:
    """The cache key of a build (hashes only; compiles nothing)."""
    import jax

    nvcc = find_nvcc()
    recipe = hashlib.sha256(pathlib.Path(__file__).read_bytes()).hexdigest()  # flags live here
    parts = [_source_hash(ffi_source_dir()), recipe, ",".join(archs), jax.__version__, _nvcc_version(nvcc)]
    parts.append(check_flashinfer_headers(find_flashinfer_data()) if glm else "generic-only")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:20]


def _gencode(arch: str, ptx: bool = False) -> list[str]:
    compute = arch.replace("sm_", "compute_")
    return ["-gencode", f"arch={compute},code={compute if ptx else arch}"]


def _compile_commands(nvcc, archs, sources, build_dir, flashinfer, glm):
    import jax

    common = [
        nvcc,
        "-std=c++17",
        "-O3",
        "--expt-relaxed-constexpr",
        "--threads",  # one nvcc process compiles its -gencode targets in parallel
        "0",
        "-Xcompiler",
        "-fPIC",
        "-isystem",
        jax.ffi.include_dir(),
        "-I",
        str(sources),
    ]
    glm_archs = [a for a in archs if a in GLM_ARCHS]
    glm_flags = ["-DJAX_GLM_NOPE_WITH_GLM=0"] + _gencode(archs[0])
    if glm:
        glm_flags = ["-DJAX_GLM_NOPE_WITH_GLM=1"]
        for a in glm_archs:
            glm_flags += _gencode(a)
        glm_flags += [
            # FlashInfer's bundled CCCL first: CUDA 13.0's own lacks cuda::fast_mod_div.
            "-I",
            str(flashinfer / "cccl" / "libcudacxx" / "include"),
            "-I",
            str(flashinfer / "cccl" / "cub"),
            "-I",
            str(flashinfer / "cccl" / "thrust"),
            "-I",
            str(flashinfer / "include"),
        ]
    generic_flags = []
    for a in archs:
        generic_flags += _gencode(a)
    generic_flags += _gencode(PTX_ARCH.replace("compute_", "sm_"), ptx=True)
    commands = []
    for name in GLM_SOURCES + GENERIC_SOURCES:
        flags = glm_flags if name in GLM_SOURCES else generic_flags
        obj = build_dir / (name + ".o")
        commands.append((obj, common + flags + ["-c", str(sources / name), "-o", str(obj)]))
    return commands


def _run(command: list[str]) -> None:
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise BuildError(f"nvcc failed ({' '.join(command)}):\n{result.stderr[-6000:]}")


def build(
    archs: tuple[str, ...] | None = None,
    *,
    glm: bool | None = None,
    force: bool = False,
    verbose: bool = False,
) -> pathlib.Path:
    """Build (or find in the cache) the bridge library for ``archs``; return its path.

    ``glm``: compile FlashInfer's GLM53_NOPE units (True: required, raising when the
    headers are missing; None: when installed; False: generic targets only, the GLM
    targets then answer Unimplemented).
    """
    archs = _validate_archs(tuple(archs) if archs else default_archs())
    nvcc = find_nvcc()
    sources = ffi_source_dir()
    if not (sources / "kv_rows.cu").is_file():
        raise BuildError(
            f"the FFI sources are not at {sources}: run from a checkout of jax_glm_nope (an "
            "editable install), or set JAX_GLM_NOPE_FFI_SOURCES to its ffi/ folder"
        )
    _check_layout_header(sources)
    glm = _with_glm(archs, glm)
    flashinfer = find_flashinfer_data() if glm else None
    target = cache_dir() / build_key(archs, glm) / LIBRARY_NAME
    if target.is_file() and not force:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    if verbose or glm:
        print(
            f"jax_glm_nope: building the FFI bridge for {', '.join(archs)} (cached in "
            f"{target.parent}; FlashInfer's kernels take a few minutes)",
            file=sys.stderr,
        )
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        build_dir = pathlib.Path(tmp)
        commands = _compile_commands(nvcc, archs, sources, build_dir, flashinfer, glm)
        workers = max(1, min(len(commands), os.cpu_count() or 1))
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            for future in [pool.submit(_run, cmd) for _, cmd in commands]:
                future.result()
        staged = build_dir / LIBRARY_NAME
        _run([nvcc, "-shared", "-o", str(staged)] + [str(obj) for obj, _ in commands])
        os.replace(staged, target)  # atomic: a concurrent builder sees all or nothing
    return target


def library_path(*, build_if_missing: bool = True) -> pathlib.Path | None:
    """The library to load: ``JAX_GLM_NOPE_FFI_LIBRARY``, a cached build, or a new build.

    With ``build_if_missing=False`` returns ``None`` instead of compiling, and also
    when nvcc or the FlashInfer headers are missing.
    """
    override = os.environ.get("JAX_GLM_NOPE_FFI_LIBRARY")
    if override:
        if not os.path.isfile(override):
            raise BuildError(f"JAX_GLM_NOPE_FFI_LIBRARY names {override}, which does not exist")
        return pathlib.Path(override)
    if not build_if_missing:
        try:
            archs = _validate_archs(default_archs())
            target = cache_dir() / build_key(archs, _with_glm(archs, None)) / LIBRARY_NAME
        except BuildError:
            return None
        return target if target.is_file() else None
    return build()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="jax-glm-nope build-ffi",
        description="Build the XLA FFI bridge to FlashInfer's GLM53_NOPE kernels ahead of time.",
    )
    parser.add_argument(
        "--archs",
        default=",".join(default_archs()),
        help="comma-separated target list (GLM kernels build for sm_120a/sm_121a only)",
    )
    parser.add_argument("--force", action="store_true", help="rebuild even when cached")
    parser.add_argument(
        "--generic-only",
        action="store_true",
        help="skip FlashInfer's GLM kernels (KV-row targets only; no FlashInfer needed)",
    )
    parser.add_argument("--print-path", action="store_true", help="print only the library path")
    args = parser.parse_args(argv)
    try:
        archs = tuple(a.strip() for a in args.archs.split(",") if a.strip())
        path = build(
            archs, glm=False if args.generic_only else None, force=args.force, verbose=not args.print_path
        )
    except (BuildError, ValueError) as err:
        print(f"jax-glm-nope build-ffi: {err}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
