"""Where the build's inputs come from: nvcc (search order, wheel layouts, the error
that names the fix), FlashInfer 0.7.4's vendored headers (complete, unmodified, under
their licenses, the hash check and its errors) and the layout header that restates
``layout.py``."""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest
from conftest import NATIVE_TEST_ARCHS as TEST_ARCHS  # noqa: E402
from native_helpers import LOGGER

from jax_glm_nope import native
from jax_glm_nope.native import build, library, targets, toolchain


def test_missing_nvcc_names_the_fix(no_nvcc):
    with pytest.raises(
        build.BuildError, match=r"needs nvcc.*pip install nvidia-cuda-nvcc.*JAX_GLM_NOPE_NVCC"
    ):
        toolchain.find_nvcc()
    with pytest.raises(build.BuildError, match="needs nvcc"):
        build.build(TEST_ARCHS, flashinfer=False)
    reason = native.unavailable_reason()
    assert "needs nvcc" in reason and "JAX_GLM_NOPE_NVCC" in reason
    assert "build-ffi" in native.unavailable_reason(allow_build=False)  # built nowhere: says how


@pytest.mark.parametrize("wheel", ["cu13", "cuda_nvcc"])  # CUDA 13's and CUDA 12's wheel layout
def test_nvcc_found_in_a_wheel_layout(tmp_path, monkeypatch, wheel):
    monkeypatch.delenv("JAX_GLM_NOPE_NVCC", raising=False)
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty_path"))
    monkeypatch.setattr(toolchain, "DEFAULT_NVCC", str(tmp_path / "no_cuda" / "bin" / "nvcc"))
    site = tmp_path / "site-packages"
    nvcc = site / "nvidia" / wheel / "bin" / "nvcc"  # a namespace package, as the wheels make
    nvcc.parent.mkdir(parents=True)
    nvcc.write_text("#!/bin/sh\necho 'Cuda compilation tools, release 13.0, V13.0.88'\n")
    nvcc.chmod(0o755)
    (site / "nvidia" / "cu13_other").mkdir()  # a wheel without nvcc is passed over
    monkeypatch.delitem(sys.modules, "nvidia", raising=False)
    monkeypatch.syspath_prepend(str(site))
    assert str(nvcc) in toolchain._wheel_nvcc()
    assert toolchain.find_nvcc() == str(nvcc)
    assert "nvidia" not in sys.modules  # found without importing the wheels
    assert toolchain.nvcc_version(str(nvcc)) == "13.0"


def test_nvcc_search_order(tmp_path, monkeypatch):
    def tool(name):
        path = tmp_path / name / "bin" / "nvcc"
        path.parent.mkdir(parents=True)
        path.write_text("#!/bin/sh\n")
        path.chmod(0o755)
        return str(path)

    explicit, home, on_path = tool("explicit"), tool("home"), tool("on_path")
    monkeypatch.setenv("PATH", os.path.dirname(on_path))
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("JAX_GLM_NOPE_NVCC", explicit)
    assert toolchain.find_nvcc() == explicit
    monkeypatch.delenv("JAX_GLM_NOPE_NVCC")
    assert toolchain.find_nvcc() == home
    monkeypatch.delenv("CUDA_HOME")
    monkeypatch.delenv("CUDA_PATH", raising=False)
    assert toolchain.find_nvcc() == on_path


@pytest.mark.parametrize("kind", ["missing", "directory", "not executable"])
def test_a_named_nvcc_that_cannot_run_is_an_error_not_another_nvcc(tmp_path, monkeypatch, kind):
    monkeypatch.setenv("JAX_GLM_NOPE_CACHE_DIR", str(tmp_path / "cache"))  # no library found: nvcc matters
    monkeypatch.delenv("JAX_GLM_NOPE_FFI_LIBRARY", raising=False)
    monkeypatch.setattr(library, "prebuilt_dir", lambda: None)
    on_path = tmp_path / "on_path" / "nvcc"
    on_path.parent.mkdir()
    on_path.write_text("#!/bin/sh\n")
    on_path.chmod(0o755)
    monkeypatch.setenv("PATH", str(on_path.parent))
    named = tmp_path / "pinned" / "nvcc"
    if kind == "directory":
        named.mkdir(parents=True)
    elif kind == "not executable":
        named.parent.mkdir()
        named.write_text("#!/bin/sh\n")
    monkeypatch.setenv("JAX_GLM_NOPE_NVCC", str(named))
    with pytest.raises(
        build.BuildError, match=rf"JAX_GLM_NOPE_NVCC names {named}, which is not an executable"
    ):
        toolchain.find_nvcc()
    assert f"JAX_GLM_NOPE_NVCC names {named}" in native.unavailable_reason()
    monkeypatch.setenv("JAX_GLM_NOPE_NVCC", "")  # empty: unset
    assert toolchain.find_nvcc() == str(on_path)


# ---------------------------------------------------------------- FlashInfer's headers

VENDORED = pathlib.PurePosixPath("third_party/flashinfer")


def _vendored() -> pathlib.Path:
    return build.ffi_source_dir() / toolchain.VENDORED_FLASHINFER


def test_the_vendored_headers_are_flashinfer_0_7_4_unmodified_with_their_licenses(monkeypatch):
    monkeypatch.delenv("JAX_GLM_NOPE_FLASHINFER_DATA", raising=False)
    vendored = _vendored()
    assert toolchain.VENDORED_FLASHINFER == str(VENDORED)
    assert toolchain.find_flashinfer_data() == vendored and toolchain.flashinfer_available()
    assert toolchain.check_flashinfer_headers(vendored) == toolchain.FLASHINFER_HEADER_SHA256
    # SHA256SUMS lists every header there, and each is unmodified.
    listed = {}
    for line in (vendored / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split(None, 1)
        listed[name.strip()] = digest
    on_disk = {
        p.relative_to(vendored).as_posix()
        for top in ("include", "cccl")
        for p in (vendored / top).rglob("*")
        if p.is_file() and p.name != "LICENSE"
    }
    assert set(listed) == on_disk and len(listed) > 300
    changed = [n for n, d in listed.items() if hashlib.sha256((vendored / n).read_bytes()).hexdigest() != d]
    assert changed == []
    assert set(toolchain.flashinfer_header_names()) == set(listed)
    # Under their licenses: FlashInfer's Apache-2.0 LICENSE and NOTICE, CCCL's license.
    assert "Apache License" in (vendored / "LICENSE").read_text()
    assert "FlashInfer" in (vendored / "NOTICE").read_text()
    assert "LLVM Exceptions" in (vendored / "cccl" / "LICENSE").read_text()
    assert "flashinfer-python==0.7.4" in (vendored / "README.md").read_text()
    # Where flashinfer-python 0.7.4 is installed, its data/ holds the same bytes.
    spec = importlib.util.find_spec("flashinfer")
    if spec and spec.submodule_search_locations:
        installed = pathlib.Path(list(spec.submodule_search_locations)[0]) / "data"
        if (installed / "include").is_dir():
            assert toolchain.check_flashinfer_headers(installed) == toolchain.FLASHINFER_HEADER_SHA256


@pytest.mark.nvcc
def test_the_vendored_set_is_exactly_what_the_units_include(tmp_path, monkeypatch):
    """nvcc's dependency lists of FlashInfer's units, compiled as the build compiles them
    (sm_120a and sm_121a): together they reach every vendored header, and only those."""
    monkeypatch.delenv("JAX_GLM_NOPE_FLASHINFER_DATA", raising=False)
    vendored = _vendored()
    reached: set[str] = set()
    for unit in [u for u in build.UNITS if u.needs_flashinfer]:
        command = build._compile_command(
            toolchain.find_nvcc(),
            unit,
            ("sm_120a", "sm_121a"),
            build.ffi_source_dir(),
            tmp_path / "unit.o",
            vendored,
            True,
        )
        command = command[: command.index("-c")] + ["-M", command[command.index("-c") + 1]]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        found = {
            pathlib.Path(os.path.normpath(word))
            for word in done.stdout.replace("\\\n", " ").split()
            if word.endswith((".h", ".cuh")) or "/cccl/" in word
        }
        mine = {p.relative_to(vendored).as_posix() for p in found if p.is_relative_to(vendored)}
        assert mine, f"{unit.source} reaches no vendored header"
        reached |= mine
    assert reached == set(toolchain.flashinfer_header_names())  # needed, and nothing more


def test_missing_flashinfer_headers_name_the_fix(fake_nvcc, tmp_path, monkeypatch):
    monkeypatch.setenv("JAX_GLM_NOPE_FLASHINFER_DATA", str(tmp_path))  # a folder without them
    with pytest.raises(
        build.BuildError,
        match=r"FlashInfer 0\.7\.4's headers not found.*JAX_GLM_NOPE_FLASHINFER_DATA names a folder without",
    ):
        toolchain.find_flashinfer_data()
    assert not toolchain.flashinfer_available()
    assert "JAX_GLM_NOPE_FLASHINFER_DATA" in native.unavailable_reason(need_flashinfer=True)
    monkeypatch.delenv("JAX_GLM_NOPE_FLASHINFER_DATA")
    sources = tmp_path / "ffi"
    shutil.copytree(build.ffi_source_dir(), sources, ignore=shutil.ignore_patterns("third_party"))
    monkeypatch.setenv("JAX_GLM_NOPE_FFI_SOURCES", str(sources))
    with pytest.raises(build.BuildError, match=r"vendored copy is incomplete \(restore ffi/third_party"):
        toolchain.find_flashinfer_data()


def test_missing_flashinfer_with_a_fake_nvcc(fake_nvcc, tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("JAX_GLM_NOPE_FLASHINFER_DATA", str(tmp_path))
    with pytest.raises(build.BuildError, match=r"FlashInfer 0\.7\.4's headers not found"):
        build.build(TEST_ARCHS, flashinfer=True)  # required: raise, naming the fix
    assert fake_nvcc.compiles() == {}
    with caplog.at_level(logging.INFO, logger=LOGGER):
        build.build(TEST_ARCHS)  # when there: they are not, so built without, silently switched off
    assert "-DJAX_GLM_NOPE_WITH_FLASHINFER=0" in fake_nvcc.compiles()["flashinfer/sm120/decode.cu"]
    assert not any("FlashInfer" in r.getMessage() for r in caplog.records)


def test_nothing_installs_flashinfer_or_torch():
    """The headers ship with the sources: no extra pulls flashinfer-python (or torch, its
    dependency), and CI does not install it."""
    root = pathlib.Path(__file__).resolve().parents[1]
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file():
        pytest.skip("not a checkout")
    section = pyproject.read_text().split("[project.optional-dependencies]")[1].split("\n[")[0]
    extras = [line for line in section.splitlines() if line and not line.startswith("#")]
    assert not any("flashinfer" in line or "torch" in line for line in extras), extras
    ci = root / ".ci" / "run"
    if ci.is_file():
        assert "flashinfer" not in ci.read_text()


def _copy_flashinfer_headers(destination: pathlib.Path) -> pathlib.Path:
    for name, path in toolchain.flashinfer_header_files(_vendored()):
        (destination / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, destination / name)
    return destination


def test_other_flashinfer_headers_are_refused(fake_nvcc, tmp_path, monkeypatch):
    copy = _copy_flashinfer_headers(tmp_path / "data")
    assert toolchain.check_flashinfer_headers(copy) == toolchain.FLASHINFER_HEADER_SHA256
    header = copy / "include/flashinfer/attention/sparse_mla_sm120/execution/merge.cuh"
    header.write_text(header.read_text() + "\n// another FlashInfer\n")
    with pytest.raises(
        build.BuildError,
        match=r"FlashInfer 0\.7\.4.*differ.*restore the vendored copy.*flashinfer-python==0\.7\.4",
    ):
        toolchain.check_flashinfer_headers(copy)
    monkeypatch.setenv("JAX_GLM_NOPE_FLASHINFER_DATA", str(copy))
    assert "restore the vendored copy" in native.unavailable_reason(need_flashinfer=True)
    (copy / "include/flashinfer/math.cuh").unlink()  # one missing is refused too
    with pytest.raises(build.BuildError, match=r"math\.cuh"):
        toolchain.check_flashinfer_headers(copy)


def test_other_flashinfer_headers_stop_the_build(fake_nvcc, tmp_path, monkeypatch):
    copy = _copy_flashinfer_headers(tmp_path / "data")
    (copy / "include/flashinfer/math.cuh").write_text("// another FlashInfer\n")
    monkeypatch.setenv("JAX_GLM_NOPE_FLASHINFER_DATA", str(copy))
    with pytest.raises(build.BuildError, match=r"restore the vendored copy"):
        build.build(TEST_ARCHS, flashinfer=True)
    assert fake_nvcc.compiles() == {}


def test_flashinfer_header_constants_match_the_python_side():
    header = (build.ffi_source_dir() / "flashinfer" / "sm120" / "sm120_common.h").read_text()
    assert re.search(rf"kCandidateWindow = {targets.FLASHINFER_WINDOW};", header)
    assert re.search(rf"kMaxDecodeTokens = {targets.FLASHINFER_MAX_DECODE_TOKENS};", header)


# ---------------------------------------------------------------- the layout header


LAYOUT_CONSTANTS = [
    "kHeadDim",
    "kTile",
    "kNumTiles",
    "kCodesOffset",
    "kScalesOffset",
    "kReservedOffset",
    "kCompactRowBytes",
    "kPaddedRowBytes",
    "kFp8Max",
]


def test_layout_header_agrees_with_layout_py():
    build.check_layout_header(build.ffi_source_dir())


@pytest.mark.parametrize("name", LAYOUT_CONSTANTS)
def test_layout_header_drift_is_refused(tmp_path, name):
    (tmp_path / "common").mkdir()
    header = tmp_path / "common" / "row_layout.h"
    text = (build.ffi_source_dir() / "common" / "row_layout.h").read_text()
    drifted, count = re.subn(rf"({name} = )(\d+)", lambda m: m.group(1) + str(int(m.group(2)) + 16), text)
    assert count == 1
    header.write_text(drifted)
    with pytest.raises(
        build.BuildError, match=rf"row_layout\.h: {name} disagrees with jax_glm_nope/layout\.py"
    ):
        build.check_layout_header(tmp_path)
    header.write_text(re.sub(rf".*constexpr \w+ {name} = .*\n", "", text))  # gone is refused too
    with pytest.raises(build.BuildError, match=name):
        build.check_layout_header(tmp_path)


def test_layout_drift_stops_the_build_before_compiling(fake_nvcc, tmp_path, monkeypatch):
    sources = tmp_path / "ffi"
    shutil.copytree(build.ffi_source_dir(), sources)
    header = sources / "common" / "row_layout.h"
    header.write_text(header.read_text().replace("kScalesOffset = 512", "kScalesOffset = 520"))
    monkeypatch.setenv("JAX_GLM_NOPE_FFI_SOURCES", str(sources))
    with pytest.raises(build.BuildError, match="kScalesOffset"):
        build.build(TEST_ARCHS, flashinfer=False)
    assert fake_nvcc.compiles() == {}
    monkeypatch.setenv("JAX_GLM_NOPE_FFI_SOURCES", str(tmp_path / "nowhere"))
    with pytest.raises(build.BuildError, match="JAX_GLM_NOPE_FFI_SOURCES"):
        build.build(TEST_ARCHS, flashinfer=False)
