"""The native library, really built (nvcc) on a CPU host: sm_90a + sm_120a with
FlashInfer 0.7.4's vendored headers, every target symbol there and registering, nothing
needed from the system beyond manylinux_2_28, the Python scratch rule the compiled one,
ptxas reporting no spills in our kernels (the sm_90a unit's kernels against the kernel
table: tests/test_cuda_sm90.py), and a library built without FlashInfer (by two
processes at once, which build it once) answering plainly in its FlashInfer targets. The
FlashInfer build takes ~2.5 minutes on two cores and is made once per session
(conftest); set ``JAX_GLM_NOPE_CACHE_DIR`` to keep it between runs.
"""

from __future__ import annotations

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
from native_helpers import LOGGER, needed_libraries, newer_than_manylinux_2_28, version_needs

import jax_glm_nope as jgn
from jax_glm_nope import layout
from jax_glm_nope.native import build, targets

OURS_SMEM_LIMIT = 227 * 1024  # the most shared memory a block may use on sm_90a


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


@pytest.fixture(scope="session")
def concurrent_builds(tmp_path_factory, native_library):
    """Two processes build the library with ``flashinfer=False`` into one fresh cache at
    the same time (the CLI, ``jax-glm-nope build-ffi --without-flashinfer``). The cache
    holds the session build's unit objects, as a cache where the FlashInfer build ran does,
    so only FlashInfer's two units (switched off) and the link are new. Session-scoped: a
    module-scoped fixture would be torn down between its two users and built again."""
    cache = tmp_path_factory.mktemp("concurrent_cache")
    kept = native_library.parent.parent / build.OBJECTS_NAME
    if kept.is_dir():  # absent when the session's library was built before objects were kept
        shutil.copytree(kept, cache / build.OBJECTS_NAME)
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


def exported_symbols(path: pathlib.Path) -> set[str]:
    """The symbols a library defines in its dynamic symbol table (what ``dlsym`` finds)."""
    command = ["nm", "-D", "--defined-only", "--format=posix", str(path)]
    listing = subprocess.run(command, capture_output=True, text=True, check=True)
    return {line.split()[0] for line in listing.stdout.splitlines() if line.strip()}


@pytest.mark.nvcc
def test_the_library_exports_its_handlers_and_queries_and_nothing_else(library):
    exported = exported_symbols(library)
    assert exported == set(targets.TARGETS.values()) | set(targets.QUERIES), sorted(exported)
    loaded = targets.load_library(library)
    for name in targets.QUERIES:
        assert getattr(loaded, name) is not None, name


# What a manylinux_2_28 library may link (auditwheel's list has more; ld-linux is the loader).
SYSTEM_LIBRARIES = {
    "libc.so.6",
    "libm.so.6",
    "libgcc_s.so.1",
    "libstdc++.so.6",
    "libpthread.so.0",
    "libdl.so.2",
    "librt.so.1",
    "ld-linux-x86-64.so.2",
}


@pytest.mark.nvcc
def test_the_library_needs_no_glibc_or_libstdcxx_newer_than_manylinux_2_28(library):
    """With the glibc link stubs and the libstdc++ compatibility unit, the static CUDA
    runtime's pthread/sem/shm/dl calls bind their pre-2.34 versions and GCC's headers
    leave no GLIBCXX_3.4.25+ call: the companion wheel gets manylinux_2_28 or older."""
    needs = version_needs(library)
    assert newer_than_manylinux_2_28(needs) == [], needs
    assert set(needed_libraries(library)) <= SYSTEM_LIBRARIES, needed_libraries(library)
    script = pathlib.Path(__file__).resolve().parents[1] / "scripts" / "build_wheel.sh"
    if script.is_file():  # a checkout: the wheel's gate is this policy
        assert 'NEWEST_MANYLINUX="2_28"' in script.read_text()


def test_the_queries_are_the_ones_ffi_defines_and_python_reads():
    """QUERIES lists every extern "C" function of our ffi/ sources and every one
    targets.py calls, so the export test above checks the whole ctypes interface."""
    ours = [p for p in build.ffi_source_dir().rglob("*.cu*") if "third_party" not in p.parts]
    ours += [p for p in build.ffi_source_dir().rglob("*.h") if "third_party" not in p.parts]
    defined = set()
    for source in ours:
        defined |= set(re.findall(r'extern "C" [\w\s\*]*?\b(jax_glm_nope_\w+)\s*\(', source.read_text()))
    read = set(re.findall(r"library\.(jax_glm_nope_\w+)", pathlib.Path(targets.__file__).read_text()))
    assert defined == read == set(targets.QUERIES)


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
    key = pathlib.Path(path).parent.name
    # one build, its time recorded once, beside the unit objects
    assert entries == sorted([key, key + ".lock", build.LAST_BUILD_NAME, build.OBJECTS_NAME])
    beside = sorted(p.name for p in pathlib.Path(path).parent.iterdir())
    assert beside == sorted([build.LIBRARY_NAME, build.MANIFEST_NAME, "ptxas.json"])


def _built_without_flashinfer_message() -> str:
    header = (build.ffi_source_dir() / "flashinfer" / "sm120" / "sm120_common.h").read_text()
    match = re.search(r'kBuiltWithoutFlashInfer\s*=\s*((?:"(?:[^"\\]|\\.)*"\s*)+);', header)
    assert match, "sm120_common.h no longer defines kBuiltWithoutFlashInfer"
    return "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', match.group(1)))


def test_built_without_flashinfer_message_names_the_fix():
    message = _built_without_flashinfer_message()
    assert "no FlashInfer" in message
    assert "jax-glm-nope build-ffi --force" in message and "pip install jax-glm-nope[cuda13]" in message
    assert "flashinfer-python" not in message  # its headers ship with the sources
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
