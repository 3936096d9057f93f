"""What the native-build tests share: a fake nvcc (a script that writes empty objects
and ptxas-style output, so a build runs anywhere in milliseconds), a machine with no
nvcc at all, and what a shared library needs from the system (``readelf``)."""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys

import pytest

from jax_glm_nope.native import build, library, toolchain

LOGGER = "jax_glm_nope.native"

FAKE_NVCC = """\
#!{python}
import json, os, sys, time
args = sys.argv[1:]
with open({log!r}, "a") as f:
    f.write(json.dumps(args) + "\\n")
if args == ["--version"]:
    print("nvcc: NVIDIA (R) Cuda compiler driver\\nCuda compilation tools, release 99.9, V99.9.1")
    sys.exit(0)
out = args[args.index("-o") + 1]
if "-shared" in args:
    open(out, "wb").write(b"fake library")
    sys.exit(0)
time.sleep(float(os.environ.get("FAKE_NVCC_SLEEP", "0")))
source = args[args.index("-c") + 1]
spill = os.environ.get("FAKE_NVCC_SPILL")
switched_off = "-DJAX_GLM_NOPE_WITH_FLASHINFER=0" in args  # no kernel then, as with the real one
for i, arg in enumerate(args):
    if arg == "-gencode" and "code=sm_" in args[i + 1] and not switched_off:
        arch = args[i + 1].split("code=")[1]
        kernel = "_Z" + os.path.basename(source).replace(".", "_")
        stores = 16 if spill and source.endswith(spill) else 0
        sys.stderr.write(
            "ptxas info    : 0 bytes gmem\\n"
            f"ptxas info    : Compiling entry function '{{kernel}}' for '{{arch}}'\\n"
            f"ptxas info    : Function properties for {{kernel}}\\n"
            f"    0 bytes stack frame, {{stores}} bytes spill stores, {{stores}} bytes spill loads\\n"
            "ptxas info    : Used 40 registers, used 1 barriers, 1024 bytes smem, 400 bytes cmem[0]\\n"
        )
open(out, "wb").write(b"fake object")
"""


class FakeNvcc:
    def __init__(self, path: pathlib.Path, log: pathlib.Path):
        self.path, self.log = path, log

    def calls(self) -> list[list[str]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def compiles(self) -> dict[str, list[str]]:
        """Unit source (relative to ffi/) -> its compile command."""
        sources = build.ffi_source_dir()
        found = {}
        for args in self.calls():
            if "-c" in args:
                found[pathlib.Path(args[args.index("-c") + 1]).relative_to(sources).as_posix()] = args
        return found

    def links(self) -> int:
        return sum("-shared" in args for args in self.calls())


@pytest.fixture
def fake_nvcc(tmp_path, monkeypatch) -> FakeNvcc:
    """JAX_GLM_NOPE_NVCC points at a fake nvcc; the cache is a fresh folder; no library
    is named and no companion wheel is installed."""
    tool = tmp_path / "fake_cuda" / "bin" / "nvcc"
    tool.parent.mkdir(parents=True)
    log = tmp_path / "nvcc_calls.jsonl"
    tool.write_text(FAKE_NVCC.format(python=sys.executable, log=str(log)))
    tool.chmod(0o755)
    monkeypatch.setenv("JAX_GLM_NOPE_NVCC", str(tool))
    monkeypatch.setenv("JAX_GLM_NOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("JAX_GLM_NOPE_FFI_LIBRARY", raising=False)
    monkeypatch.delenv("JAX_GLM_NOPE_FFI_ARCHS", raising=False)
    monkeypatch.setattr(library, "prebuilt_dir", lambda: None)
    return FakeNvcc(tool, log)


@pytest.fixture
def no_nvcc(tmp_path, monkeypatch):
    """No nvcc anywhere: no env var, no CUDA_HOME, nothing on PATH, no wheel, no default;
    an empty cache, no library named, no companion wheel."""
    monkeypatch.delenv("JAX_GLM_NOPE_NVCC", raising=False)
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.delenv("JAX_GLM_NOPE_FFI_LIBRARY", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty_path"))
    monkeypatch.setenv("JAX_GLM_NOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(toolchain, "DEFAULT_NVCC", str(tmp_path / "no_cuda" / "bin" / "nvcc"))
    monkeypatch.setattr(toolchain, "_wheel_nvcc", lambda: [])
    monkeypatch.setattr(library, "prebuilt_dir", lambda: None)


# auditwheel's manylinux_2_28 policy (x86_64): the newest symbol version of each system
# library family it allows. scripts/build_wheel.sh refuses a wheel that needs more.
MANYLINUX_2_28 = {"GLIBC": (2, 28), "GLIBCXX": (3, 4, 24), "CXXABI": (1, 3, 11), "GCC": (7, 0, 0)}


def readelf(*args: str) -> str:
    return subprocess.run(["readelf", *args], capture_output=True, text=True, check=True).stdout


def version_needs(path: pathlib.Path) -> dict[str, set[str]]:
    """The library's version needs (``readelf -V``): needed file -> version names."""
    listing = readelf("-V", "-W", str(path))
    needs: dict[str, set[str]] = {}
    current: set[str] | None = None
    for line in listing.split(".gnu.version_r", 1)[-1].splitlines():
        if file := re.search(r"File: (\S+)", line):
            current = needs.setdefault(file.group(1), set())
        elif (name := re.search(r"Name: (\S+)", line)) and current is not None:
            current.add(name.group(1))
    return needs


def needed_libraries(path: pathlib.Path) -> list[str]:
    """The library's ``DT_NEEDED`` entries, in order."""
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", readelf("-d", "-W", str(path)))


def versions_of(needs: dict[str, set[str]], family: str) -> set[tuple[int, ...]]:
    """The numbered versions of one family (``GLIBC``, ``GLIBCXX``) among ``needs``."""
    pattern = re.compile(rf"{family}_(\d+(?:\.\d+)*)")
    return {
        tuple(map(int, match.group(1).split(".")))
        for names in needs.values()
        for name in names
        if (match := pattern.fullmatch(name))
    }


def newer_than_manylinux_2_28(needs: dict[str, set[str]]) -> list[str]:
    """The version names among ``needs`` that manylinux_2_28's policy does not allow."""
    return sorted(
        f"{family}_{'.'.join(map(str, version))}"
        for family, newest in MANYLINUX_2_28.items()
        for version in versions_of(needs, family)
        if version > newest
    )
