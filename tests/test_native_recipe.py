"""The build recipe with a fake nvcc (no compiler needed, milliseconds): logging, each
unit's archs, macros and include paths, spill refusal, the ptxas parser, the lock
(two processes build once), the unit objects another build reuses, the cache key
(exactly the compiled files, the archs, FlashInfer, nvcc and the XLA FFI API version),
the arch list and the CLI."""

from __future__ import annotations

import fcntl
import logging
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import jax
import pytest
from conftest import NATIVE_TEST_ARCHS as TEST_ARCHS  # noqa: E402
from native_helpers import LOGGER

from jax_glm_nope.native import build, toolchain


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
    path = build.build(("sm_120a",), flashinfer=False)
    compiles = fake_nvcc.compiles()
    assert set(compiles) == {unit.source for unit in build.UNITS}

    def gencodes(args):
        return [args[i + 1] for i, a in enumerate(args) if a == "-gencode"]

    # Arch-generic: every arch of the list plus PTX for compute_80 (Ampere and Ada have
    # no other code) and compute_90.
    assert gencodes(compiles["ours/generic/kv_rows.cu"]) == [
        "arch=compute_120a,code=sm_120a",
        "arch=compute_80,code=compute_80",
        "arch=compute_90,code=compute_90",
    ]
    assert build.read_manifest(path)["ptx"] == ["compute_80", "compute_90"]
    # Our sm_90a unit is always compiled for sm_90a, whatever the list says.
    assert gencodes(compiles["ours/sm90/sparse_mla.cu"]) == ["arch=compute_90a,code=sm_90a"]
    for unit in ("flashinfer/sm120/decode.cu", "flashinfer/sm120/prefill.cu"):
        args = compiles[unit]
        assert "-DJAX_GLM_NOPE_WITH_FLASHINFER=0" in args  # switched off: Unimplemented, saying so
        assert not any("flashinfer/data" in a or "cccl" in a for a in args)
    # The libstdc++ compatibility unit is host code alone, and linked like every unit.
    assert gencodes(compiles["ours/host/libstdcxx_compat.cc"]) == []
    (link,) = [args for args in fake_nvcc.calls() if "-shared" in args]
    assert any(arg.endswith("ours__host__libstdcxx_compat.cc.o") for arg in link)
    for args in compiles.values():
        assert "-O3" in args and "--use_fast_math" not in args and "-v" in args


def test_the_link_exports_only_the_handlers_and_queries(fake_nvcc):
    build.build(TEST_ARCHS, flashinfer=False)
    (link,) = [args for args in fake_nvcc.calls() if "-shared" in args]
    passed = [a for i, a in enumerate(link) if i and link[i - 1] == "-Xlinker"]
    assert len([a for a in passed if a.startswith("--version-script=")]) == 1
    assert build.version_script() == "{\n  global: JaxGlmNope*; jax_glm_nope_*;\n  local: *;\n};\n"


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


def test_another_build_compiles_only_the_units_whose_command_differs(fake_nvcc):
    """Unit objects are kept by their own key: a FlashInfer build after one without it
    compiles FlashInfer's two units alone (the others' commands are the same), its ptxas
    report still covers every unit, and ``force`` compiles everything again."""

    def compiled() -> list[str]:
        return [args[args.index("-c") + 1] for args in fake_nvcc.calls() if "-c" in args]

    without = build.build(TEST_ARCHS, flashinfer=False)
    assert len(compiled()) == len(build.UNITS)
    objects = build.cache_dir() / build.OBJECTS_NAME
    assert len(list(objects.glob("*.o"))) == len(list(objects.glob("*.ptxas"))) == len(build.UNITS)
    assert not list(objects.glob("*.tmp"))
    with_flashinfer = build.build(TEST_ARCHS, flashinfer=True)
    assert with_flashinfer.parent != without.parent and fake_nvcc.links() == 2
    again = compiled()[len(build.UNITS) :]
    assert sorted(pathlib.Path(a).relative_to(build.ffi_source_dir()).as_posix() for a in again) == [
        "flashinfer/sm120/decode.cu",
        "flashinfer/sm120/prefill.cu",
    ]
    reported = {(r["unit"], r["arch"]) for r in build.ptxas_report(with_flashinfer)}
    assert {("ours/generic/kv_rows.cu", "sm_90a"), ("ours/sm90/sparse_mla.cu", "sm_90a")} <= reported
    assert ("flashinfer/sm120/decode.cu", "sm_120a") in reported  # switched on this time
    build.build(TEST_ARCHS, flashinfer=False, force=True)
    assert len(compiled()) == 2 * len(build.UNITS) + 2


def test_a_changed_source_or_recipe_is_compiled_again(fake_nvcc, checkout_copy):
    build.build(TEST_ARCHS, flashinfer=False)
    first = len(fake_nvcc.calls())
    kv_rows = checkout_copy / "ffi" / "ours" / "generic" / "kv_rows.cu"
    kv_rows.write_text(kv_rows.read_text() + "\n// changed\n")
    build.build(TEST_ARCHS, flashinfer=False)
    # every unit's key holds the sources' hash: one edit compiles every unit again
    assert sum("-c" in args for args in fake_nvcc.calls()[first:]) == len(build.UNITS)


def test_the_unit_key_names_folders_by_role_and_keys_flashinfer_only_where_read(tmp_path):
    described = {"sources": "s", "recipe": "r", "ffi_api": [0, 1], "nvcc": "n", "flashinfer_headers": "h1"}
    ffi, data = tmp_path / "ffi", tmp_path / "ffi" / "third_party" / "flashinfer"

    def key(build_dir, headers="h1", flashinfer=False):
        command = ["/x/nvcc", "-O3", "-I", str(ffi), "-c", str(ffi / "a.cu"), "-o", str(build_dir / "a.o")]
        if flashinfer:
            command[2:2] = ["-I", str(data / "include")]
        record = dict(described, flashinfer_headers=headers)
        return build.unit_key(command, record, {"BUILD": build_dir, "FFI": ffi, "FLASHINFER": data})

    assert key(tmp_path / "b1") == key(tmp_path / "b2")  # the temporary build folder is not keyed
    assert key(tmp_path / "b1", headers="h2") == key(tmp_path / "b1")  # not read: not keyed
    assert key(tmp_path / "b1", flashinfer=True) != key(tmp_path / "b1")
    assert key(tmp_path / "b1", "h2", flashinfer=True) != key(tmp_path / "b1", flashinfer=True)


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
    assert build.build_key(TEST_ARCHS, True) != key
    other = tmp_path / "other_nvcc"
    other.write_text(fake_nvcc.path.read_text().replace("release 99.9", "release 98.0"))
    other.chmod(0o755)
    monkeypatch.setenv("JAX_GLM_NOPE_NVCC", str(other))
    assert build.build_key(TEST_ARCHS, False) != key


def test_cache_key_follows_the_ffi_api_not_the_jax_release(fake_nvcc, monkeypatch):
    """The library's binary interface is XLA's FFI C API (its version is in jax's
    headers): a jax patch release that keeps it keeps the key (no rebuild), a new API
    version changes it."""
    key = build.build_key(TEST_ARCHS, False)
    running = toolchain.ffi_api_version()
    assert running[0] == 0 and running[1] >= 1  # XLA_FFI_API_MAJOR / _MINOR of this jaxlib
    monkeypatch.setattr(jax, "__version__", "0.10.99")
    assert build.build_key(TEST_ARCHS, False) == key
    record = build.manifest(TEST_ARCHS, False)
    assert record["ffi_api"] == list(running) and record["jax"] == "0.10.99"
    monkeypatch.setattr(build, "ffi_api_version", lambda: (running[0], running[1] + 1))
    assert build.build_key(TEST_ARCHS, False) != key


def test_the_ffi_api_version_is_read_from_jaxs_header(tmp_path):
    header = tmp_path / "c_api.h"
    header.write_text("#define XLA_FFI_API_MAJOR 0\n// ...\n#define XLA_FFI_API_MINOR 7\n")
    assert toolchain._ffi_api_of(str(header)) == (0, 7)
    installed = pathlib.Path(jax.ffi.include_dir()) / "xla" / "ffi" / "api" / "c_api.h"
    assert f"#define XLA_FFI_API_MINOR {toolchain.ffi_api_version()[1]}" in installed.read_text()


def test_the_manifest_beside_the_library_says_what_it_was_built_from(fake_nvcc):
    path = build.build(TEST_ARCHS, flashinfer=True)
    record = build.read_manifest(path)
    assert record == build.manifest(TEST_ARCHS, True) and build.key_of(record) == path.parent.name
    assert record["archs"] == list(TEST_ARCHS) and record["flashinfer"] is True
    assert record["flashinfer_headers"] == toolchain.FLASHINFER_HEADER_SHA256
    assert record["sources"] == build.source_hash() and record["nvcc"] == "99.9"
    beside = sorted(p.name for p in path.parent.iterdir())
    assert beside == sorted([build.LIBRARY_NAME, build.MANIFEST_NAME, "ptxas.json"])


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


def test_cli_with_flashinfer_requires_it(fake_nvcc, capsys, tmp_path, monkeypatch):
    assert build.main(["--archs", "sm_120a", "--with-flashinfer", "--print-path"]) == 0
    path = pathlib.Path(capsys.readouterr().out.strip())
    assert build.read_manifest(path)["flashinfer"] is True
    assert "-DJAX_GLM_NOPE_WITH_FLASHINFER=1" in fake_nvcc.compiles()["flashinfer/sm120/decode.cu"]
    monkeypatch.setenv("JAX_GLM_NOPE_FLASHINFER_DATA", str(tmp_path))
    assert build.main(["--archs", "sm_120a", "--with-flashinfer"]) == 1
    assert "headers not found" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # one or the other
        build.main(["--archs", "sm_120a", "--with-flashinfer", "--without-flashinfer"])


def test_the_progress_line_gives_the_last_measured_build_time(fake_nvcc, caplog):
    assert build.last_build_seconds() is None
    with caplog.at_level(logging.INFO, logger=LOGGER):
        build.build(TEST_ARCHS, flashinfer=False)
    (first,) = [r.getMessage() for r in caplog.records if "building the native library" in r.getMessage()]
    assert "no earlier build recorded here" in first and "longer under load" in first
    seconds = build.last_build_seconds()
    assert seconds is not None and seconds >= 0
    caplog.clear()
    with caplog.at_level(logging.INFO, logger=LOGGER):
        build.build(TEST_ARCHS, flashinfer=False, force=True)
    (again,) = [r.getMessage() for r in caplog.records if "building the native library" in r.getMessage()]
    assert f"the last build here took {seconds:.0f} s" in again


@pytest.mark.parametrize("content", ["", "{", '{"seconds": "soon"}', '{"seconds": -1}', "[]"])
def test_an_unreadable_build_time_is_no_build_time(fake_nvcc, content):
    build.cache_dir().mkdir(parents=True, exist_ok=True)
    (build.cache_dir() / build.LAST_BUILD_NAME).write_text(content)
    assert build.last_build_seconds() is None
    assert "no earlier build recorded" in build.expected_duration()
