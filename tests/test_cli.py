"""Capacity planner and the jax-glm-nope CLI."""

import importlib
import json
import pathlib
import re
import signal
import subprocess
import sys
import types

import jax
import pytest

import jax_glm_nope as jgn
from jax_glm_nope import cli, device, layout


def test_capacity_arithmetic_by_hand():
    memory = 80 * 2**30
    rows = {r.row_bytes: r for r in jgn.capacity(memory, page_size=64, context=131072)}
    for row_bytes, r in rows.items():
        per_token = 12 * (row_bytes + 33)  # 11 sparse-MLA + 1 MTP layers, indexer 132 B per 4 tokens
        assert r.bytes_per_token == per_token
        assert r.pages == memory // (64 * per_token)
        assert r.cached_tokens == r.pages * 64
        assert r.requests == r.pages // (131072 // 64)
    assert rows[528].cached_tokens > rows[656].cached_tokens > rows[1024].cached_tokens
    # rows alone give 656/528 = 1.242x; with the indexer keys 689/561
    assert abs(rows[528].vs_padded - (656 + 33) / (528 + 33)) < 1e-4
    assert layout.PADDED.bytes_per_token / layout.COMPACT.bytes_per_token == pytest.approx(1.2424, abs=1e-4)


def test_page_rounding_counts_whole_pages():
    # a context of 65 tokens takes two pages of 64
    (compact, *_) = jgn.capacity(10 * 64 * 12 * 561, page_size=64, context=65)
    assert compact.pages == 10 and compact.requests == 5


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "jax_glm_nope", *args], capture_output=True, text=True, timeout=120
    )


def test_cli_capacity_json_matches_library():
    done = run_cli(
        "capacity", "--memory", "80GiB", "--tp", "8", "--page-size", "64", "--context", "131072", "--json"
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["heads_per_device"] == 8
    lib = jgn.capacity(80 * 2**30, tp=8)
    assert [r["cached_tokens"] for r in data["rows"]] == [r.cached_tokens for r in lib]


def test_cli_capacity_table_and_errors(capsys):
    assert cli.main(["capacity", "--memory", "80GiB"]) == 0
    table = capsys.readouterr().out
    assert "COMPACT fp8" in table and "BF16 latent" in table
    with pytest.raises(SystemExit) as info:
        cli.main(["capacity", "--memory", "lots"])
    assert info.value.code == 2 and "memory: expected a size" in capsys.readouterr().err


@pytest.fixture(scope="module")
def info_text():
    """``python -m jax_glm_nope info``, run once for the tests that read it."""
    return run_cli("info")


def test_cli_info_lists_implementations(info_text):
    done = info_text
    assert done.returncode == 0, done.stderr
    assert "jax " in done.stdout
    lines = [line.split() for line in done.stdout.splitlines()]
    assert ["sparse_mla", "reference", "ready"] in lines and ["write_kv", "xla", "ready"] in lines
    if jax.default_backend() == "cpu":
        assert ["sparse_mla", "None", "->", "reference"] in lines


def test_version_through_python_m_and_main(capsys):
    done = run_cli("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"jax-glm-nope {jgn.__version__}"
    with pytest.raises(SystemExit) as info:
        cli.main(["--version"])
    assert info.value.code == 0 and capsys.readouterr().out.strip() == f"jax-glm-nope {jgn.__version__}"


def test_cli_info_json_reports_the_device_implementations_and_native_parts(capsys):
    from jax_glm_nope import device, dispatch
    from jax_glm_nope.native import library, toolchain

    assert cli.main(["info", "--json"]) == 0
    data = strict_json(capsys.readouterr().out)
    here = device.current()
    assert data["device"] == {
        "platform": here.platform,
        "kind": here.kind,
        "compute_capability": None if here.compute_capability is None else list(here.compute_capability),
        "sm_count": here.sm_count,
        "describe": here.describe(),
    }
    assert data["versions"]["jax"] == jax.__version__ and data["versions"]["jax_glm_nope"] == jgn.__version__
    for operation in ("sparse_mla", "write_kv"):
        report = data["operations"][operation]
        assert [e["name"] for e in report["implementations"]] == list(dispatch.names(operation))
        options = dispatch.AUTO_OPTIONS[operation]
        for entry in report["implementations"]:
            reason = dispatch.unsupported(operation, entry["name"], here, None, **options)
            assert entry["reason"] == reason and entry["serves"] == (reason is None)
            assert entry["auto"] in ("yes", "by shape")
        assert report["automatic"] == dispatch.decide(operation, None, None, {}, here).implementation
    native = data["native"]
    try:
        nvcc = toolchain.find_nvcc()
    except toolchain.BuildError as err:
        assert native["nvcc"] == {"path": None, "version": None, "error": str(err)}
    else:
        assert native["nvcc"]["path"] == nvcc and native["nvcc"]["version"] == toolchain.nvcc_version(nvcc)
    assert native["flashinfer_headers"]["ok"] == (
        toolchain.flashinfer_available() and native["flashinfer_headers"]["error"] is None
    )
    found = library.find(library.local_arch())
    assert native["library"]["path"] == (None if found is None else str(found.path))
    assert native["library"]["origin"] == (None if found is None else found.origin)
    if jax.default_backend() == "cpu":
        assert data["operations"]["sparse_mla"]["automatic"] == "reference"
        pallas = data["operations"]["sparse_mla"]["implementations"][2]
        assert pallas["name"] == "pallas" and not pallas["serves"] and "interpret=True" in pallas["reason"]


def test_cli_info_text_names_nvcc_flashinfer_and_the_library(info_text):
    done = info_text
    assert done.returncode == 0, done.stderr
    labels = [line.split()[0] for line in done.stdout.splitlines() if line.strip()]
    for label in ("device", "nvcc", "flashinfer", "library"):
        assert label in labels, done.stdout


def strict_json(text):
    def reject(token):
        raise ValueError(f"not strict JSON: {token}")

    return json.loads(text, parse_constant=reject)


@pytest.fixture
def fake_build(monkeypatch):
    """A stand-in build module at the package's new home, recording what it is given."""
    calls = []
    module = types.ModuleType("jax_glm_nope.native.build")
    module.main = lambda argv: calls.append(argv) or 0
    monkeypatch.setitem(sys.modules, "jax_glm_nope.native.build", module)
    return calls


@pytest.mark.parametrize(
    "argv",
    [
        ["--archs", "sm_90a", "--generic-only"],
        ["--generic-only", "--archs", "sm_90a,sm_120a", "--force", "--print-path"],
        ["--archs=sm_90a", "--generic-only"],
        ["--help"],
        [],
    ],
)
def test_build_ffi_forwards_arguments_verbatim(fake_build, argv):
    assert cli.main(["build-ffi", *argv]) == 0
    assert fake_build == [argv]


def _resolves(name: str) -> bool:
    """``a.b.c``: a module, or an attribute of the longest prefix that imports."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        try:
            for attribute in parts[cut:]:
                target = getattr(target, attribute)
        except AttributeError:
            return False
        return True
    return False


def test_every_module_the_package_names_exists():
    """Help texts, messages and comments name modules a user can import (the build
    lives in ``jax_glm_nope.native.build``; there is no ``jax_glm_nope.bridge``)."""
    package = pathlib.Path(jgn.__file__).parent
    named = {
        (path.relative_to(package).as_posix(), name)
        for path in package.rglob("*.py")
        for name in re.findall(r"\bjax_glm_nope(?:\.[A-Za-z_]\w*)+", path.read_text())
    }
    assert len(named) > 10
    stale = sorted((path, name) for path, name in named if not _resolves(name))
    assert stale == []
    assert cli.DELEGATED == {"build-ffi": "jax_glm_nope.native.build"}


def test_build_ffi_help_names_the_native_library(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    text = capsys.readouterr().out
    assert "build-ffi" in text and "native library" in text and "bridge" not in text


@pytest.mark.parametrize(
    "args", [["capacity", "--memory", "141GB", "--json"], ["capacity", "--memory", "80GiB"]]
)
def test_a_reader_that_leaves_early_ends_the_command_quietly(args):
    """``jax-glm-nope capacity --json | head``: the reader has gone before the command
    writes; it stops as a unix tool does, with no traceback."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "jax_glm_nope", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    proc.stdout.close()  # every later write to the pipe fails with EPIPE
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=120) == 128 + signal.SIGPIPE
    assert err == ""  # no BrokenPipeError, not even "Exception ignored ... flush"


@pytest.mark.parametrize("archs", [["--archs=,"], ["--archs", " , "], ["--archs="]])
def test_build_ffi_rejects_an_empty_arch_list(capsys, archs):
    # the real build module: it refuses before looking for nvcc or building anything
    assert cli.main(["build-ffi", *archs, "--print-path"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "archs: expected at least one architecture" in captured.err


def test_bench_is_not_a_cli_command(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["bench", "--reps", "3"])
    assert info.value.code == 2 and "invalid choice: 'bench'" in capsys.readouterr().err


def test_cli_capacity_json_is_strict_when_no_page_fits(capsys):
    assert cli.main(["capacity", "--memory", "1B", "--json"]) == 0
    data = strict_json(capsys.readouterr().out)
    assert [r["vs_padded"] for r in data["rows"]] == [None, None, None]
    assert cli.main(["capacity", "--memory", "1B"]) == 0
    table = capsys.readouterr().out
    assert "nan" not in table.lower() and table.rstrip().endswith("-")


@pytest.mark.parametrize(
    "memory, message",
    [
        ("1e9", "memory: '1e9' has no unit: write 1e9B for bytes"),
        ("80", "memory: '80' has no unit: write 80B for bytes"),
        ("lots", "memory: expected a size such as 80GiB"),
    ],
)
def test_cli_capacity_memory_errors(capsys, memory, message):
    with pytest.raises(SystemExit) as info:
        cli.main(["capacity", "--memory", memory])
    assert info.value.code == 2 and message in capsys.readouterr().err


def test_cli_capacity_huge_memory_is_exact(capsys):
    digits = "1" + "0" * 400
    assert cli.main(["capacity", "--memory", digits + "B", "--json"]) == 0
    data = strict_json(capsys.readouterr().out)
    assert data["rows"][1]["pages"] == 10**400 // (64 * 12 * 689)
    assert cli.main(["capacity", "--memory", "1e9B"]) == 0


def test_cli_capacity_argument_errors_show_the_capacity_usage(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["capacity", "--memory", "80GiB", "--tp", "3"])
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert "usage: jax-glm-nope capacity" in err and "tp: expected a divisor of the 64 heads" in err


def test_cli_capacity_help_shows_defaults(capsys):
    with pytest.raises(SystemExit):
        cli.main(["capacity", "--help"])
    assert "(default: 131072)" in capsys.readouterr().out


def test_cli_capacity_json_has_the_parsed_memory(capsys):
    assert cli.main(["capacity", "--memory", "80GiB", "--json"]) == 0
    data = strict_json(capsys.readouterr().out)
    assert data["memory"] == "80GiB" and data["memory_bytes"] == 80 * 2**30


def test_cli_info_device_line_says_each_thing_once(info_text):
    (line,) = [line for line in info_text.stdout.splitlines() if line.startswith("device ")]
    here = device.current()
    assert line.split(None, 1)[1] == here.describe() + (f", {here.sm_count} SMs" if here.sm_count else "")
    assert line.count("platform") <= 1


def test_cli_info_marks_automatic_only_on_implementations_that_serve(info_text):
    for line in info_text.stdout.splitlines():
        if "unavailable" in line:
            assert "automatic" not in line, line
