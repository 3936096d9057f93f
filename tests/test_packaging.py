"""The wheel carries every source the native build needs (FlashInfer's vendored headers
included), the sdist what its tests need (and its tests pass unpacked); the builds print
no warning; metadata and the jax range agree."""

from __future__ import annotations

import email
import os
import pathlib
import re
import shlex
import subprocess
import sys
import tarfile
import textwrap
import zipfile

import pytest
from conftest import NATIVE_TEST_ARCHS

import jax_glm_nope as jgn
from jax_glm_nope.implementations import pallas

ROOT = pathlib.Path(__file__).resolve().parents[1]


def pyproject() -> str:
    path = ROOT / "pyproject.toml"
    if not path.is_file():
        pytest.skip("not a checkout")
    return path.read_text()


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[pathlib.Path, pathlib.Path, str]:
    """The sdist, the wheel built from it (``python -m build``, as a release is made),
    and what the build printed."""
    pyproject()
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (sdist,) = out.glob("jax_glm_nope-*.tar.gz")
    (wheel,) = out.glob("jax_glm_nope-*.whl")
    return sdist, wheel, done.stdout + done.stderr


@pytest.fixture(scope="module")
def dists(built) -> tuple[tarfile.TarFile, zipfile.ZipFile]:
    return tarfile.open(built[0]), zipfile.ZipFile(built[1])


@pytest.fixture(scope="module")
def wheel(dists) -> zipfile.ZipFile:
    return dists[1]


# What the tests read beside the package: the examples and scripts they run, the
# benchmark harness, the FFI sources, the docs, the project files.
SDIST_FOLDERS = ("tests", "examples", "scripts", "benchmarks", "ffi", "docs")
SDIST_FILES = ("pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md")


def _tracked(path: pathlib.Path) -> bool:
    """A file of the project, not a build or run output (docs/logs/ holds raw GPU logs)."""
    parts = path.relative_to(ROOT).parts
    return "__pycache__" not in parts and path.suffix != ".pyc" and parts[:2] != ("docs", "logs")


def test_the_sdist_carries_what_its_tests_need(dists):
    sdist, _ = dists
    prefix = f"jax_glm_nope-{jgn.__version__}/"
    names = {n[len(prefix) :] for n in sdist.getnames() if n.startswith(prefix)}
    needed = [
        p.relative_to(ROOT).as_posix()
        for folder in SDIST_FOLDERS
        for p in (ROOT / folder).rglob("*")
        if p.is_file() and _tracked(p)
    ]
    assert any(n.startswith("examples/") for n in needed) and any(n.startswith("ffi/") for n in needed)
    assert "ffi/third_party/flashinfer/include/flashinfer/math.cuh" in needed
    missing = [n for n in [*needed, *SDIST_FILES] if n not in names]
    assert not missing, f"not in the sdist (pyproject's [tool.hatch.build.targets.sdist]): {missing}"
    assert [n for n in names if n.startswith("jax_glm_nope/") and n.endswith(".py")]
    top = {n.split("/")[0] for n in names if n}
    # the package, what its tests need, the build's own files; no docs/ run logs, no lab
    expected = {"jax_glm_nope", *SDIST_FOLDERS, *SDIST_FILES}
    assert top - expected <= {"PKG-INFO", ".gitignore"}, top - expected
    assert not [n for n in names if n.startswith(("research/", "docs/logs/", "packaging/"))]


def test_the_builds_print_no_warning(built):
    """``python -m build`` (sdist, then the wheel from it) warns about nothing; pip's own
    notes about this machine's index configuration are not the build's."""
    output = built[2]
    lines = [line for line in output.splitlines() if re.search(r"warn", line, re.I)]
    lines = [line for line in lines if "is ignored: it is neither a file nor a directory" not in line]
    assert lines == [], lines


# The unpacked sdist's own tests that read beside the package: every test module that
# names a docs/ path, and the vendored headers' check (CPU only, no nvcc, not slow).
READS_DOCS = re.compile(r"""["']docs/|/ ["']docs["']""")
VENDORED_TEST = (
    "tests/test_native_toolchain.py::"
    "test_the_vendored_headers_are_flashinfer_0_7_4_unmodified_with_their_licenses"
)


@pytest.mark.slow
def test_the_unpacked_sdists_tests_pass(built, tmp_path):
    with tarfile.open(built[0]) as sdist:
        sdist.extractall(tmp_path, filter="data")
    (unpacked,) = tmp_path.glob("jax_glm_nope-*")
    readers = sorted(
        p.relative_to(unpacked).as_posix()
        for p in (unpacked / "tests").glob("test_*.py")
        if p.name != "test_packaging.py" and READS_DOCS.search(p.read_text())
    )
    assert readers, "no test reads docs/ any more: this test has nothing to check"
    code = (
        "import sys, pytest, jax_glm_nope; print(jax_glm_nope.__file__); sys.exit(pytest.main(sys.argv[1:]))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("JAX_GLM_NOPE_")}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "-q",
            "-p",
            "no:cacheprovider",
            "-m",
            "not gpu and not nvcc and not slow",
        ]
        + [*readers, VENDORED_TEST],
        cwd=unpacked,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert done.stdout.splitlines()[0] == str(unpacked / "jax_glm_nope" / "__init__.py")  # its own package
    assert re.search(r"\b\d+ passed", done.stdout) and " failed" not in done.stdout, done.stdout[-2000:]


def test_the_wheel_carries_every_ffi_source(wheel):
    names = set(wheel.namelist())
    sources = [p for p in (ROOT / "ffi").rglob("*") if p.is_file()]
    assert len(sources) >= 10 and any(len(p.relative_to(ROOT / "ffi").parts) >= 3 for p in sources)
    missing = [
        p.relative_to(ROOT).as_posix()
        for p in sources
        if "jax_glm_nope/_ffi/" + p.relative_to(ROOT / "ffi").as_posix() not in names
    ]
    assert not missing, f"ffi files not in the wheel (pyproject [tool.hatch.build.targets.wheel]): {missing}"
    assert not [n for n in names if n.endswith((".so", ".o"))]  # sources only: the library is another wheel


def test_the_wheel_carries_every_module_and_nothing_beside_the_package(wheel):
    names = set(wheel.namelist())
    modules = [
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "jax_glm_nope").rglob("*.py")
        if "__pycache__" not in p.parts
    ]
    missing = [m for m in modules if m not in names]
    assert not missing, f"modules not in the wheel (pyproject packages): {missing}"
    assert "jax_glm_nope/py.typed" in names
    top = {name.split("/")[0] for name in names}
    assert top == {"jax_glm_nope", f"jax_glm_nope-{jgn.__version__}.dist-info"}, top  # no tests/, benchmarks/


def test_the_wheel_metadata(wheel):
    (metadata_name,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    metadata = email.message_from_bytes(wheel.read(metadata_name))
    assert metadata["Version"] == jgn.__version__
    assert metadata["License-Expression"] == "Apache-2.0"
    assert metadata["Requires-Python"] == ">=3.11"  # jax 0.10.2's own floor
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in wheel.namelist())
    for vendored in ("flashinfer/LICENSE", "flashinfer/NOTICE", "flashinfer/cccl/LICENSE"):
        assert any(n.endswith(f".dist-info/licenses/ffi/third_party/{vendored}") for n in wheel.namelist())
    assert "Apache License" in (ROOT / "LICENSE").read_text()
    requires = metadata.get_all("Requires-Dist")
    assert not [r for r in requires if re.match(r"(torch|flashinfer)", r)], requires  # no extra pulls torch
    assert "jax<0.12,>=0.10.2" in requires and "jaxlib<0.12,>=0.10.2" in requires
    assert set(metadata.get_all("Provides-Extra")) == {"cuda", "cuda13", "dev", "test"}
    assert f"jax-glm-nope-cu13=={jgn.__version__}; extra == 'cuda13'" in requires
    assert metadata.get_all("Project-URL") is None  # no public home yet: no placeholder links


def _steps(commands: list[str]) -> list[list[str]]:
    """Each command as words, ``python3 -m pip install -q x`` read as ``pip install x``."""
    steps = []
    for command in commands:
        words = shlex.split(command)
        if words[:2] in (["python", "-m"], ["python3", "-m"]):
            words = words[2:]
        steps.append([w for w in words if w != "-q"] if words[0] == "pip" else words)
    return steps


def test_ci_runs_the_readmes_test_command():
    ci = ROOT / ".ci" / "run"
    if not ci.is_file():
        pytest.skip("not a checkout")
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"run the tests:\s*```bash\n(.*?)\n\s*```", readme, re.S)
    assert block, "the README's test command"
    typed = _steps(block.group(1).split("&&"))
    run = _steps(
        [line.split(" #")[0] for line in ci.read_text().splitlines() if line.startswith("python3 -m ")]
    )
    assert run == typed
    assert typed[-1][:2] == ["pytest", "-q"]


def test_n_auto_is_a_process_per_core_up_to_four_and_one_process_with_a_gpu(monkeypatch):
    """The README's ``-n auto`` (pytest-xdist, in the test extra) as tests/conftest.py sizes it."""
    import conftest

    assert '"pytest-xdist"' in pyproject()
    devices: list[str] = []
    monkeypatch.setattr(conftest.glob, "glob", lambda pattern: [d for d in devices if pattern[:5] in d])
    monkeypatch.delenv("JAX_PLATFORMS", raising=False)
    for cores, processes in ((1, 0), (2, 2), (3, 3), (64, 4)):
        monkeypatch.setattr(conftest.os, "sched_getaffinity", lambda pid, n=cores: set(range(n)))
        assert conftest.pytest_xdist_auto_num_workers(None) == processes
    devices.append("/dev/nvidia0")
    assert conftest.pytest_xdist_auto_num_workers(None) == 0  # the GPU tests share no GPU
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")  # the GPU left out: a process per core again
    assert conftest.pytest_xdist_auto_num_workers(None) == 4
    devices[:] = ["/proc/driver/nvidia/gpus/0000:01:00.0"]
    monkeypatch.delenv("JAX_PLATFORMS")
    assert conftest.pytest_xdist_auto_num_workers(None) == 0


def test_the_supported_jax_range_is_stated_once():
    assert f'"jax{pallas.SUPPORTED_JAX}"' in pyproject()
    assert f'"jaxlib{pallas.SUPPORTED_JAX}"' in pyproject()


def test_a_jax_without_the_pallas_triton_lowering_loses_only_pallas():
    """The module missing: no ImportError at import, a sentence naming the version and
    the supported range from the Pallas implementation, the other implementations as before."""
    script = textwrap.dedent(
        """
        import sys
        sys.modules["jax.experimental.pallas.triton"] = None  # import raises ImportError
        import jax, jax.numpy as jnp
        import jax_glm_nope as jgn
        from jax_glm_nope import device, dispatch
        from jax_glm_nope.implementations import pallas
        here = device.current()
        reason = dispatch.unsupported("sparse_mla", "pallas", here, None, interpret=True)
        print(reason)
        assert reason == pallas.TRITON_MISSING
        assert f"jax {jax.__version__}" in reason and ">=0.10.2,<0.12" in reason
        pool = jgn.quantize(jnp.ones((4, 512), jnp.float32))
        q = jnp.ones((1, 2, 512), jnp.bfloat16)
        indices = jnp.array([[0, 3]], jnp.int32)
        try:
            jgn.sparse_mla(q, pool, indices, 1 / 16, implementation="pallas", interpret=True)
        except ValueError as err:
            assert "has no Pallas Triton lowering" in str(err), err
        else:
            raise AssertionError("pallas served without its lowering")
        out, lse = jgn.sparse_mla(q, pool, indices, 1 / 16)  # the automatic choice still serves
        assert out.shape == (1, 2, 512)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "has no Pallas Triton lowering" in done.stdout


def test_no_process_wide_warning_filters_in_the_package():
    offenders = [
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "jax_glm_nope").rglob("*.py")
        if re.search(r"warnings\.(filterwarnings|simplefilter)", p.read_text())
    ]
    assert not offenders, offenders


@pytest.mark.slow
def test_mypy_resolves_the_installed_package_from_a_users_folder(tmp_path):
    """After ``pip install -e .`` (or the wheel) a user's script elsewhere type-checks
    against the package: the install is a path mypy follows, not an import hook."""
    import importlib.metadata

    try:
        importlib.metadata.distribution("jax-glm-nope")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("jax_glm_nope is not installed (run from a source tree)")
    script = tmp_path / "user.py"
    script.write_text("import jax_glm_nope as jgn\n\nreveal_type(jgn.quantize)\n")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", str(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if k not in ("MYPYPATH", "PYTHONPATH")},
        timeout=600,
    )
    assert "import-not-found" not in done.stdout, done.stdout
    assert 'Revealed type is "def (latent:' in done.stdout and done.returncode == 0, done.stdout + done.stderr


def test_the_wheel_script_keeps_its_tools_out_of_the_callers_environment():
    """scripts/build_wheel.sh reads jax from PYTHON's environment and installs its
    packaging tools into a virtualenv of its own, never with PYTHON's pip."""
    script = (ROOT / "scripts" / "build_wheel.sh").read_text()
    assert '"$PY" -m venv "$STAGE/tools"' in script
    assert '"$TOOLS" -m pip install' in script
    assert not re.search(r'"\$PY" -m (pip|build|auditwheel)\b', script)
    ci = ROOT / ".ci" / "run"
    if ci.is_file():  # a checkout: CI checks the tag of the library its tests built
        text = ci.read_text()
        assert "scripts/build_wheel.sh --library" in text
        assert f"cached_library({NATIVE_TEST_ARCHS!r})".replace("'", '"') in text  # conftest's build


def test_each_test_marker_is_registered_once():
    """pytest lists a marker once per registration: one home (pyproject.toml) for each."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--markers", "-p", "no:cacheprovider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    names = re.findall(r"^@pytest\.mark\.(\w+):", done.stdout, re.MULTILINE)
    ours = [name for name in names if name in {"gpu", "sm90", "sm120", "nvcc", "slow"}]
    assert sorted(ours) == ["gpu", "nvcc", "slow", "sm120", "sm90"], ours
