"""The native library's build, on a CPU host (jax_glm_nope.native.build / .toolchain).

With nvcc (marker ``nvcc``): the library builds for sm_90a + sm_120a with FlashInfer
0.7.4's headers (``pip install --no-deps flashinfer-python==0.7.4``), every target
symbol is there and registers, the Python scratch rule is the compiled one, ptxas
reports no spills in our kernels, and a library built with ``flashinfer=False`` (by two
processes at once, which build it once) carries the plain "built without FlashInfer"
answer in its FlashInfer targets. The FlashInfer build takes ~2.5 minutes on two cores
and is made once per module; set ``JAX_GLM_NOPE_CACHE_DIR`` to keep it between runs.

Without nvcc (everything else): the cache key, the lock, logging, the ptxas parser and
spill refusal, the nvcc search (wheel layouts included), the errors that name the fix,
the layout-header check and the arch list. Those that need a compiler use a fake nvcc
(a script that writes empty objects and ptxas-style output), so they run anywhere in
milliseconds.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import pathlib
import re
import shutil
import subprocess
import sys
import textwrap

import pytest
from conftest import NATIVE_TEST_ARCHS as TEST_ARCHS  # noqa: E402

import jax_glm_nope as jgn
from jax_glm_nope import layout, native
from jax_glm_nope.native import build, targets, toolchain

OURS_SMEM_LIMIT = 227 * 1024  # the most shared memory a block may use on sm_90a
LOGGER = "jax_glm_nope.native"


def _flashinfer_installed() -> bool:
    return toolchain.flashinfer_available()


needs_flashinfer = pytest.mark.skipif(
    not _flashinfer_installed(), reason="FlashInfer's headers: pip install --no-deps flashinfer-python==0.7.4"
)


# ---------------------------------------------------------------- the real build (nvcc)


@pytest.fixture(scope="module")
def cache_root(native_cache) -> pathlib.Path:
    return native_cache


@pytest.fixture(scope="module")
def library(native_library) -> pathlib.Path:
    """The library with FlashInfer's adapters, sm_90a + sm_120a (the session's build)."""
    return native_library


_CONCURRENT_BUILD = textwrap.dedent(
    """
    import sys, time
    from jax_glm_nope.native import build
    start = time.time()
    rc = build.main(["--archs", "sm_90a,sm_120a", "--without-flashinfer"])
    print("WINDOW", start, time.time())
    sys.exit(rc)
    """
)


@pytest.fixture(scope="module")
def concurrent_builds(tmp_path_factory):
    """Two processes build the library with ``flashinfer=False`` into one fresh cache at
    the same time (the CLI, ``jax-glm-nope build-ffi --without-flashinfer``)."""
    cache = tmp_path_factory.mktemp("concurrent_cache")
    env = {k: v for k, v in os.environ.items() if k != "JAX_GLM_NOPE_FFI_LIBRARY"}
    env.update(JAX_GLM_NOPE_CACHE_DIR=str(cache), JAX_PLATFORMS="cpu")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _CONCURRENT_BUILD],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=1200)
        results.append((proc.returncode, out, err))
    return cache, results


@pytest.mark.nvcc
def test_library_builds_for_sm90a_and_sm120a_with_flashinfer(library, cache_root, monkeypatch, caplog):
    assert library.name == build.LIBRARY_NAME and library.stat().st_size > 1_000_000
    monkeypatch.setenv("JAX_GLM_NOPE_CACHE_DIR", str(cache_root))
    assert library.parent == cache_root / build.build_key(TEST_ARCHS, True)
    assert build.build_key(TEST_ARCHS, False) != library.parent.name  # FlashInfer or not is keyed
    assert build.build_key(("sm_120a", "sm_90a"), True) != library.parent.name  # so is the arch list
    report = build.ptxas_report(library)
    compiled = {(r["unit"], r["arch"]) for r in report}
    assert {
        ("ours/generic/kv_rows.cu", "sm_90a"),
        ("ours/generic/kv_rows.cu", "sm_120a"),
        ("flashinfer/sm120/decode.cu", "sm_120a"),  # FlashInfer's code is in, for sm_120a only
        ("flashinfer/sm120/prefill.cu", "sm_120a"),
    } <= compiled
    assert not {arch for unit, arch in compiled if unit.startswith("flashinfer/")} - {"sm_120a"}
    # A second build is a cache hit: nothing compiled, nothing logged, the same file.
    before = library.stat().st_mtime_ns
    with caplog.at_level(logging.INFO, logger=LOGGER):
        assert build.build(TEST_ARCHS, flashinfer=True) == library
        assert build.cached_library(TEST_ARCHS) == library
    assert library.stat().st_mtime_ns == before and not caplog.records


@pytest.mark.nvcc
def test_every_target_symbol_exists_and_registers(library):
    loaded = targets.load_library(library)  # registering CUDA targets works on a CPU host
    for name, symbol in targets.TARGETS.items():
        assert getattr(loaded, symbol) is not None, (name, symbol)
    assert set(targets.TARGETS) == {
        targets.WRITE_KV,
        targets.DEQUANTIZE,
        targets.SM90_SPARSE_MLA,
        targets.FLASHINFER_DECODE,
        targets.FLASHINFER_PREFILL,
    }
    assert loaded.jax_glm_nope_flashinfer_decode_scratch_heads is not None
    assert loaded.jax_glm_nope_flashinfer_decode_splits is not None
    assert targets.load_library(library) is loaded  # loading twice registers once
    jgn.register_ffi_targets(library)  # the public entry a process running an artifact calls


@pytest.mark.nvcc
def test_python_scratch_rule_is_the_compiled_one(library):
    loaded = targets.load_library(library)
    for num_candidates in (1, 63, 64, 65, 2048, 2051, 2112, 2176, 100_003):
        for num_heads in range(1, 129):
            mid_out, mid_lse = targets.flashinfer_scratch_shapes(3, num_heads, num_candidates)
            compiled = targets.cxx_flashinfer_scratch_rule(loaded, num_heads, num_candidates)
            assert mid_lse[1:] == compiled, (num_heads, num_candidates)
            assert mid_out == (3, *compiled, layout.HEAD_DIM)


@pytest.mark.nvcc
def test_ptxas_report_no_spills_in_our_kernels_and_smem_fits(library):
    report = build.ptxas_report(library)
    ours_units = {unit.source for unit in build.UNITS if unit.ours}
    for record in report:
        assert record["ours"] == (record["unit"] in ours_units), record
        assert record["smem_bytes"] <= OURS_SMEM_LIMIT, record
        assert 0 < record["registers"] <= 255, record
    ours = [r for r in report if r["ours"]]
    assert {r["unit"] for r in ours} >= {"ours/generic/kv_rows.cu"}
    spilled = [(r["unit"], r["arch"], r["kernel"], r["spill_stores"]) for r in ours if r["spill_stores"]]
    assert spilled == []
    # A kernel whose warpgroup MMAs ptxas serialized (advisory C75xx: each waits for the
    # last, for want of registers) would lose its overlap.
    serialized = [(r["kernel"], r["wgmma_serialized"]) for r in ours if r.get("wgmma_serialized")]
    assert serialized == []


# The kernels of ffi/ours/sm90/sparse_mla_kernel.cuh's kKernels table and the combine, as
# (mangled name stem, template arguments): nothing else is compiled into the library.
SM90_KERNELS = {
    "sparse_mla_warp_private_kernelILi6EE",
    "sparse_mla_block_shared_kernelILi1ELi3EE",
    "sparse_mla_block_shared_kernelILi2ELi2EE",
    "sparse_mla_block_shared_kernelILi3ELi4EE",
    "sparse_mla_block_shared_kernelILi4ELi4EE",
    "sparse_mla_candidates_major_kernelILi2ELi2EE",
    "sparse_mla_candidates_major_kernelILi3ELi4EE",
    "sparse_mla_candidates_major_kernelILi4ELi4EE",
    "sparse_mla_heads_major_kernelE",
    "combine_kernelE",
}


@pytest.mark.nvcc
def test_the_sm90_unit_holds_only_the_kernels_its_launcher_picks(library):
    kernels = [r["kernel"] for r in build.ptxas_report(library) if r["unit"] == "ours/sm90/sparse_mla.cu"]
    stems = {re.sub(r"^_ZN12jax_glm_nope4sm90\d+", "", k).split("NS0_15SparseMlaParams")[0] for k in kernels}
    stems = {s.removesuffix("Ev") for s in stems}
    assert len(kernels) == len(SM90_KERNELS) and stems == SM90_KERNELS, sorted(stems)


def test_ptxas_parse_reads_the_wgmma_serialization_advisory():
    log = (
        "ptxas info    : (C7512) Potential Performance Loss: wgmma.mma_async instructions are "
        "serialized due to insufficient register resources for the function '_Z1kv'\n"
        "ptxas info    : Compiling entry function '_Z1kv' for 'sm_90a'\n"
        "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Used 168 registers, used 4 barriers\n"
        "ptxas info    : Compiling entry function '_Z1jv' for 'sm_90a'\n"
        "ptxas info    : Used 40 registers\n"
    )
    records = {r["kernel"]: r for r in build.parse_ptxas(log)}
    assert records["_Z1kv"]["wgmma_serialized"] == "C7512"
    assert records["_Z1jv"]["wgmma_serialized"] is None
    assert records["_Z1kv"]["registers"] == 168


@pytest.mark.nvcc
def test_two_processes_building_at_once_build_once(concurrent_builds):
    cache, results = concurrent_builds
    for rc, _, err in results:
        assert rc == 0, err[-3000:]
    paths = {out.splitlines()[0] for _, out, _ in results}
    assert len(paths) == 1
    (path,) = paths
    assert pathlib.Path(path).is_file() and pathlib.Path(path).parent.parent == cache
    building = [err for _, _, err in results if "building the native library" in err]
    assert len(building) == 1, [err[-500:] for _, _, err in results]
    windows = [[float(x) for x in out.split("WINDOW")[1].split()] for _, out, _ in results]
    assert max(w[0] for w in windows) < min(w[1] for w in windows), "the two builds did not overlap"
    entries = sorted(p.name for p in cache.iterdir())
    assert entries == sorted([pathlib.Path(path).parent.name, pathlib.Path(path).parent.name + ".lock"])
    assert sorted(p.name for p in pathlib.Path(path).parent.iterdir()) == [build.LIBRARY_NAME, "ptxas.json"]


def _built_without_flashinfer_message() -> str:
    header = (build.ffi_source_dir() / "flashinfer" / "sm120" / "sm120_common.h").read_text()
    match = re.search(r'kBuiltWithoutFlashInfer\s*=\s*((?:"(?:[^"\\]|\\.)*"\s*)+);', header)
    assert match, "sm120_common.h no longer defines kBuiltWithoutFlashInfer"
    return "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', match.group(1)))


def test_built_without_flashinfer_message_names_the_fix():
    message = _built_without_flashinfer_message()
    assert "no FlashInfer" in message
    assert toolchain.FLASHINFER_REQUIREMENT in message and "jax-glm-nope build-ffi --force" in message
    for unit in ("decode.cu", "prefill.cu"):
        text = (build.ffi_source_dir() / "flashinfer" / "sm120" / unit).read_text()
        assert "ffi::ErrorCode::kUnimplemented, kBuiltWithoutFlashInfer" in text, unit


@pytest.mark.nvcc
def test_library_without_flashinfer_answers_plainly(concurrent_builds, library):
    cache, results = concurrent_builds
    without = pathlib.Path(results[0][1].splitlines()[0])
    assert without.parent.name != library.parent.name
    loaded = targets.load_library(without)
    for symbol in targets.TARGETS.values():  # the FlashInfer targets exist ...
        assert getattr(loaded, symbol) is not None
    # ... and answer Unimplemented with the message (its head: -O3 may build the
    # std::string from overlapping 16-byte pieces, so the literal's tail can be split).
    message = _built_without_flashinfer_message().encode()[:96]
    assert b"no FlashInfer" in message
    assert message in without.read_bytes()
    assert message not in library.read_bytes()  # the FlashInfer build never says it
    report = build.ptxas_report(without)
    assert not [r for r in report if r["unit"].startswith("flashinfer/")]  # no FlashInfer kernel
    assert {("ours/generic/kv_rows.cu", "sm_90a"), ("ours/generic/kv_rows.cu", "sm_120a")} <= {
        (r["unit"], r["arch"]) for r in report
    }


# ---------------------------------------------------------------- a fake nvcc

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
    """JAX_GLM_NOPE_NVCC points at a fake nvcc; the cache is a fresh folder."""
    tool = tmp_path / "fake_cuda" / "bin" / "nvcc"
    tool.parent.mkdir(parents=True)
    log = tmp_path / "nvcc_calls.jsonl"
    tool.write_text(FAKE_NVCC.format(python=sys.executable, log=str(log)))
    tool.chmod(0o755)
    monkeypatch.setenv("JAX_GLM_NOPE_NVCC", str(tool))
    monkeypatch.setenv("JAX_GLM_NOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("JAX_GLM_NOPE_FFI_LIBRARY", raising=False)
    monkeypatch.delenv("JAX_GLM_NOPE_FFI_ARCHS", raising=False)
    return FakeNvcc(tool, log)


def test_build_logs_instead_of_printing(fake_nvcc, caplog, capsys):
    with caplog.at_level(logging.INFO, logger=LOGGER):
        path = build.build(TEST_ARCHS, flashinfer=False)
    messages = [r.getMessage() for r in caplog.records if r.name == LOGGER]
    assert any("building the native library for sm_90a, sm_120a" in m for m in messages), messages
    assert not any("FlashInfer" in m for m in messages)  # flashinfer=False says nothing about it
    assert any("native library built in" in m and str(path) in m for m in messages), messages
    assert capsys.readouterr() == ("", "")  # nothing printed
    assert path.read_bytes() == b"fake library" and fake_nvcc.links() == 1
    # The report written beside it, one record per (unit, arch).
    report = build.ptxas_report(path)
    assert {(r["unit"], r["arch"]) for r in report} == {
        ("ours/generic/kv_rows.cu", "sm_90a"),
        ("ours/generic/kv_rows.cu", "sm_120a"),
        ("ours/sm90/sparse_mla.cu", "sm_90a"),
    }
    assert all(r["registers"] == 40 and r["smem_bytes"] == 1024 and r["spill_stores"] == 0 for r in report)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger=LOGGER):
        assert build.build(TEST_ARCHS, flashinfer=False) == path  # a cache hit: silent
    assert not caplog.records and fake_nvcc.links() == 1


def test_units_get_their_archs_and_feature_macros(fake_nvcc):
    build.build(("sm_120a",), flashinfer=False)
    compiles = fake_nvcc.compiles()
    assert set(compiles) == {unit.source for unit in build.UNITS}

    def gencodes(args):
        return [args[i + 1] for i, a in enumerate(args) if a == "-gencode"]

    # Arch-generic: every arch of the list plus compute_90 PTX.
    assert gencodes(compiles["ours/generic/kv_rows.cu"]) == [
        "arch=compute_120a,code=sm_120a",
        "arch=compute_90,code=compute_90",
    ]
    # Our sm_90a unit is always compiled for sm_90a, whatever the list says.
    assert gencodes(compiles["ours/sm90/sparse_mla.cu"]) == ["arch=compute_90a,code=sm_90a"]
    for unit in ("flashinfer/sm120/decode.cu", "flashinfer/sm120/prefill.cu"):
        args = compiles[unit]
        assert "-DJAX_GLM_NOPE_WITH_FLASHINFER=0" in args  # switched off: Unimplemented, saying so
        assert not any("flashinfer/data" in a or "cccl" in a for a in args)
    for args in compiles.values():
        assert "-O3" in args and "--use_fast_math" not in args and "-v" in args


@needs_flashinfer
def test_flashinfer_units_compile_against_its_headers(fake_nvcc):
    build.build(TEST_ARCHS, flashinfer=True)
    data = toolchain.find_flashinfer_data()
    for unit in ("flashinfer/sm120/decode.cu", "flashinfer/sm120/prefill.cu"):
        args = fake_nvcc.compiles()[unit]
        assert "-DJAX_GLM_NOPE_WITH_FLASHINFER=1" in args
        assert str(data / "include") in args and str(data / "cccl" / "libcudacxx" / "include") in args
        assert [args[i + 1] for i, a in enumerate(args) if a == "-gencode"] == [
            "arch=compute_120a,code=sm_120a"
        ]


def test_spills_in_our_kernels_are_refused(fake_nvcc, monkeypatch):
    monkeypatch.setenv("FAKE_NVCC_SPILL", "kv_rows.cu")
    with pytest.raises(build.BuildError, match="spills in our kernels.*kv_rows"):
        build.build(TEST_ARCHS, flashinfer=False)
    assert build.cached_library(TEST_ARCHS) is None and fake_nvcc.links() == 0


def test_parse_ptxas():
    stderr = textwrap.dedent(
        """\
        ptxas info    : 0 bytes gmem
        ptxas info    : Compiling entry function '_Z6kernelPf' for 'sm_90a'
        ptxas info    : Function properties for _Z6kernelPf
            0 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads
        ptxas info    : Used 168 registers, used 1 barriers, 4096 bytes smem, 400 bytes cmem[0]
        ptxas info    : Compiling entry function '_Z5otherv' for 'sm_120a'
        ptxas info    : Function properties for _Z5otherv
            0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
        ptxas info    : Used 24 registers, used 0 barriers, 400 bytes cmem[0]
        """
    )
    assert build.parse_ptxas(stderr) == [
        {
            "kernel": "_Z6kernelPf",
            "arch": "sm_90a",
            "spill_stores": 8,
            "spill_loads": 12,
            "wgmma_serialized": None,
            "registers": 168,
            "smem_bytes": 4096,
        },
        {
            "kernel": "_Z5otherv",
            "arch": "sm_120a",
            "spill_stores": 0,
            "spill_loads": 0,
            "wgmma_serialized": None,
            "registers": 24,
            "smem_bytes": 0,
        },
    ]


# ---------------------------------------------------------------- the lock


def test_file_lock_excludes_another_holder(tmp_path):
    lock = tmp_path / "key.lock"
    with build._file_lock(lock):
        with open(lock) as other:  # another open file description, as another process has
            with pytest.raises(BlockingIOError):
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    with open(lock) as other:
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released on exit
        fcntl.flock(other, fcntl.LOCK_UN)


def test_lock_makes_concurrent_fake_builds_build_once(fake_nvcc, tmp_path):
    """Two processes, one fresh cache, a slow (fake) compiler: one build, one library."""
    env = {**os.environ, "FAKE_NVCC_SLEEP": "1.5", "JAX_PLATFORMS": "cpu"}
    code = (
        "import time; from jax_glm_nope.native import build; s = time.time(); "
        "p = build.build(('sm_90a', 'sm_120a'), flashinfer=False); print(p, s, time.time())"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outs = [proc.communicate(timeout=300) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], [err for _, err in outs]
    fields = [out.split() for out, _ in outs]
    assert fields[0][0] == fields[1][0]
    assert max(float(f[1]) for f in fields) < min(float(f[2]) for f in fields), "no overlap"
    assert fake_nvcc.links() == 1 and len(fake_nvcc.compiles()) == len(build.UNITS)
    assert sum("building the native library" in err for _, err in outs) == 1


# ---------------------------------------------------------------- the cache key


@pytest.fixture
def checkout_copy(tmp_path, monkeypatch) -> pathlib.Path:
    """A copy of the checkout's ffi/ and research/ side by side; builds read the copy's ffi/."""
    root = pathlib.Path(__file__).resolve().parents[1]
    if not (root / "research").is_dir():
        pytest.skip("not a checkout (no research/)")
    shutil.copytree(build.ffi_source_dir(), tmp_path / "ffi")
    shutil.copytree(root / "research", tmp_path / "research", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setenv("JAX_GLM_NOPE_FFI_SOURCES", str(tmp_path / "ffi"))
    return tmp_path


def test_cache_key_covers_every_compiled_file_and_nothing_else(fake_nvcc, checkout_copy):
    sources = checkout_copy / "ffi"
    files = build.source_files(sources)
    # Every unit's source and the headers they include, in every subfolder, all inside ffi/.
    assert {sources / unit.source for unit in build.UNITS} <= set(files)
    assert {p.parent.relative_to(sources).as_posix() for p in files} >= {
        "common",
        "ours/generic",
        "ours/sm90",
        "flashinfer/sm120",
    }
    assert {"ours/sm90/params.cuh", "ours/sm90/heads_major_kernel.cuh", "common/row_layout.h"} <= {
        p.relative_to(sources).as_posix() for p in files
    }
    seen = {build.build_key(TEST_ARCHS, False)}
    for path in files:
        path.write_text(path.read_text() + "\n// changed\n")
        seen.add(build.build_key(TEST_ARCHS, False))
    assert len(seen) == len(files) + 1  # every edit of a compiled file, in any subfolder, is a new key
    key = build.build_key(TEST_ARCHS, False)
    # The lab: its programs, kernels and scripts (outside ffi/) never change the key ...
    lab = [p for p in (checkout_copy / "research").rglob("*") if p.is_file()]
    assert any(p.suffix == ".cu" for p in lab) and any(p.suffix == ".cuh" for p in lab)
    for path in lab:
        path.write_bytes(path.read_bytes() + b"\n// changed\n")
        assert build.build_key(TEST_ARCHS, False) == key, path
    # ... nor does a header under ffi/ that nothing compiled includes, until a unit includes it.
    deeper = sources / "ours" / "sm90" / "detail" / "new.cuh"
    deeper.parent.mkdir()
    deeper.write_text("#pragma once\n")
    (sources / "README.md").write_text("changed\n")
    assert build.build_key(TEST_ARCHS, False) == key
    params = sources / "ours" / "sm90" / "params.cuh"
    params.write_text(params.read_text() + '#include "ours/sm90/detail/new.cuh"\n')
    included = build.build_key(TEST_ARCHS, False)
    assert included != key and deeper in build.source_files(sources)
    deeper.write_text("#pragma once\n// changed\n")
    assert build.build_key(TEST_ARCHS, False) != included
    key = build.build_key(TEST_ARCHS, False)
    os.utime(deeper, ns=(1, 1))  # a touch that keeps the bytes keeps the key
    assert build.build_key(TEST_ARCHS, False) == key


def test_cache_key_covers_archs_flashinfer_and_nvcc(fake_nvcc, monkeypatch, tmp_path):
    key = build.build_key(TEST_ARCHS, False)
    assert build.build_key(("sm_90a",), False) != key
    assert build.build_key(tuple(reversed(TEST_ARCHS)), False) != key
    if _flashinfer_installed():
        assert build.build_key(TEST_ARCHS, True) != key
    other = tmp_path / "other_nvcc"
    other.write_text(fake_nvcc.path.read_text().replace("release 99.9", "release 98.0"))
    other.chmod(0o755)
    monkeypatch.setenv("JAX_GLM_NOPE_NVCC", str(other))
    assert build.build_key(TEST_ARCHS, False) != key


# ---------------------------------------------------------------- nvcc


@pytest.fixture
def no_nvcc(tmp_path, monkeypatch):
    """No nvcc anywhere: no env var, no CUDA_HOME, nothing on PATH, no wheel, no default."""
    monkeypatch.delenv("JAX_GLM_NOPE_NVCC", raising=False)
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.delenv("JAX_GLM_NOPE_FFI_LIBRARY", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty_path"))
    monkeypatch.setenv("JAX_GLM_NOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(toolchain, "DEFAULT_NVCC", str(tmp_path / "no_cuda" / "bin" / "nvcc"))
    monkeypatch.setattr(toolchain, "_wheel_nvcc", lambda: [])


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


# ---------------------------------------------------------------- FlashInfer's headers


def test_missing_flashinfer_names_the_fix(tmp_path, monkeypatch):
    monkeypatch.delenv("JAX_GLM_NOPE_FFI_LIBRARY", raising=False)
    monkeypatch.setenv("JAX_GLM_NOPE_FLASHINFER_DATA", str(tmp_path))  # a folder without them
    with pytest.raises(
        build.BuildError,
        match=r"FlashInfer headers not found.*flashinfer-python==0\.7\.4.*JAX_GLM_NOPE_FLASHINFER_DATA",
    ):
        toolchain.find_flashinfer_data()
    assert "flashinfer-python==0.7.4" in native.unavailable_reason(need_flashinfer=True)
    monkeypatch.delenv("JAX_GLM_NOPE_FLASHINFER_DATA")
    monkeypatch.setitem(sys.modules, "flashinfer", None)  # not installed
    with pytest.raises(
        build.BuildError,
        match="flashinfer-python is not installed: " + re.escape(toolchain.INSTALL_FLASHINFER),
    ):
        toolchain.find_flashinfer_data()
    assert not toolchain.flashinfer_available()
    assert "flashinfer-python is not installed" in native.unavailable_reason(need_flashinfer=True)


def test_missing_flashinfer_with_a_fake_nvcc(fake_nvcc, tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("JAX_GLM_NOPE_FLASHINFER_DATA", str(tmp_path))
    with pytest.raises(build.BuildError, match=r"flashinfer-python==0\.7\.4"):
        build.build(TEST_ARCHS, flashinfer=True)  # required: raise, naming the fix
    assert fake_nvcc.compiles() == {}
    with caplog.at_level(logging.INFO, logger=LOGGER):
        build.build(TEST_ARCHS)  # when installed: it is not, so built without, silently switched off
    assert "-DJAX_GLM_NOPE_WITH_FLASHINFER=0" in fake_nvcc.compiles()["flashinfer/sm120/decode.cu"]
    assert not any("FlashInfer" in r.getMessage() for r in caplog.records)


def test_the_fix_installs_flashinfer_headers_without_torch():
    """The one instruction: ``pip install --no-deps flashinfer-python==0.7.4`` (its
    dependencies include torch; only the headers are used), and no extra pulls it."""
    assert toolchain.INSTALL_FLASHINFER == f"pip install --no-deps {toolchain.FLASHINFER_REQUIREMENT}"
    pyproject = pathlib.Path(__file__).resolve().parents[1] / "pyproject.toml"
    if not pyproject.is_file():
        pytest.skip("not a checkout")
    section = pyproject.read_text().split("[project.optional-dependencies]")[1].split("\n[")[0]
    extras = [line for line in section.splitlines() if line and not line.startswith("#")]
    assert not any("flashinfer" in line or "torch" in line for line in extras), extras


def _copy_flashinfer_headers(destination: pathlib.Path) -> pathlib.Path:
    real = toolchain.find_flashinfer_data()
    for name, path in toolchain.flashinfer_header_files(real):
        (destination / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, destination / name)
    (destination / "cccl" / "libcudacxx" / "include").mkdir(parents=True, exist_ok=True)
    return destination


@needs_flashinfer
def test_other_flashinfer_headers_are_refused(tmp_path, monkeypatch):
    copy = _copy_flashinfer_headers(tmp_path / "data")
    assert toolchain.check_flashinfer_headers(copy) == toolchain.FLASHINFER_HEADER_SHA256
    header = copy / "include/flashinfer/attention/sparse_mla_sm120/execution/merge.cuh"
    header.write_text(header.read_text() + "\n// another FlashInfer\n")
    with pytest.raises(
        build.BuildError,
        match=r"FlashInfer 0\.7\.4.*differ.*pip install --no-deps flashinfer-python==0\.7\.4",
    ):
        toolchain.check_flashinfer_headers(copy)
    monkeypatch.delenv("JAX_GLM_NOPE_FFI_LIBRARY", raising=False)
    monkeypatch.setenv("JAX_GLM_NOPE_FLASHINFER_DATA", str(copy))
    assert "pip install --no-deps flashinfer-python==0.7.4" in native.unavailable_reason(need_flashinfer=True)


@needs_flashinfer
def test_other_flashinfer_headers_stop_the_build(fake_nvcc, tmp_path, monkeypatch):
    copy = _copy_flashinfer_headers(tmp_path / "data")
    (copy / "include/flashinfer/math.cuh").write_text("// another FlashInfer\n")
    monkeypatch.setenv("JAX_GLM_NOPE_FLASHINFER_DATA", str(copy))
    with pytest.raises(build.BuildError, match=r"pip install --no-deps flashinfer-python==0\.7\.4"):
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


# ---------------------------------------------------------------- the arch list


@pytest.mark.parametrize("archs", [("hopper",), ("sm_90a", "90"), ("sm90a",), ("compute_90",), ("",)])
def test_bad_arch_names_are_value_errors(archs):
    with pytest.raises(ValueError, match="archs: expected names like 'sm_90a'"):
        build.validate_archs(archs)
    with pytest.raises(ValueError, match="archs"):
        build.build(archs)


def test_arch_list_rules(fake_nvcc, monkeypatch):
    with pytest.raises(ValueError, match="at least one architecture"):
        build.validate_archs(())
    assert build.validate_archs(("sm_90a", "sm_120a", "sm_90a")) == TEST_ARCHS  # duplicates dropped
    with pytest.raises(ValueError, match="sm_120a or sm_121a"):
        build.build(("sm_90a",), flashinfer=True)  # FlashInfer's kernels need an SM120 arch
    monkeypatch.setenv("JAX_GLM_NOPE_FFI_ARCHS", ",")
    with pytest.raises(ValueError, match="at least one architecture"):
        build.default_archs()
    monkeypatch.setenv("JAX_GLM_NOPE_FFI_ARCHS", " sm_90a , sm_120a ")
    assert build.default_archs() == TEST_ARCHS
    monkeypatch.delenv("JAX_GLM_NOPE_FFI_ARCHS")
    assert build.default_archs() == build.DEFAULT_ARCHS


@pytest.mark.parametrize("argv", [["--archs=,"], ["--archs", ""], ["--archs", "sm_90a,hopper"]])
def test_cli_rejects_bad_arch_lists(fake_nvcc, capsys, argv):
    assert build.main(argv) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("jax-glm-nope build-ffi: archs: expected")
    assert fake_nvcc.calls() == []  # rejected before anything runs


def test_cli_builds_and_prints_the_path(fake_nvcc, capsys):
    assert build.main(["--archs", "sm_90a", "--without-flashinfer", "--print-path"]) == 0
    out, err = capsys.readouterr()
    assert pathlib.Path(out.strip()).is_file() and out.strip().endswith(build.LIBRARY_NAME)
    assert build.main(["--archs", "sm_90a", "--generic-only", "--print-path", "--force"]) == 0
    assert capsys.readouterr().out == out and fake_nvcc.links() == 2  # --force rebuilt it


def test_unavailable_reason_trusts_a_named_library(tmp_path, monkeypatch):
    missing = tmp_path / "lib.so"
    monkeypatch.setenv("JAX_GLM_NOPE_FFI_LIBRARY", str(missing))
    assert "does not exist" in native.unavailable_reason()
    with pytest.raises(build.BuildError, match="does not exist"):
        targets.library_path()
    missing.write_bytes(b"")
    assert native.unavailable_reason(need_flashinfer=True) is None
    assert targets.library_path() == missing
