"""Which native library a process uses, found before any build: ``JAX_GLM_NOPE_FFI_LIBRARY``,
the companion wheel's prebuilt library (``jax_glm_nope_cu13``), a cached build of any
arch list that serves this device (so ``build-ffi --archs sm_90a`` is what the first
call on a Hopper GPU uses), then a build. A library found needs no nvcc.

The fake companion packages here are folders on ``sys.path``; the one test that loads
a real library runs in a fresh process with nvcc made unusable, as a GPU host without a
compiler would, and ``scripts/build_wheel.sh`` builds the real wheel."""

from __future__ import annotations

import importlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

import jax_glm_nope as jgn
from jax_glm_nope import device, native
from jax_glm_nope.native import build, library, targets, toolchain

ROOT = pathlib.Path(__file__).resolve().parents[1]
H200 = device.Device("cuda", "NVIDIA H200", (9, 0), 132)
SM120 = device.Device("cuda", "NVIDIA RTX PRO 6000 Blackwell Workstation Edition", (12, 0), 188)
SM121 = device.Device("cuda", "NVIDIA GB10", (12, 1), 48)
ALL_ARCHS = ("sm_90a", "sm_120a", "sm_121a")
FIND_PREBUILT = library.prebuilt_dir.__wrapped__  # uncached (the fixtures stub it out)


@pytest.fixture
def on(monkeypatch):
    """``on(H200)``: this process runs on that device."""
    return lambda record: monkeypatch.setattr(device, "local", lambda: record)


def _hide_nvcc(monkeypatch, tmp_path):
    monkeypatch.delenv("JAX_GLM_NOPE_NVCC", raising=False)
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty_path"))
    monkeypatch.setattr(toolchain, "DEFAULT_NVCC", str(tmp_path / "no_cuda" / "bin" / "nvcc"))
    monkeypatch.setattr(toolchain, "_wheel_nvcc", lambda: [])
    with pytest.raises(build.BuildError, match="needs nvcc"):
        toolchain.find_nvcc()


def test_arch_of_each_device():
    assert library.arch_of(H200) == "sm_90a"
    assert library.arch_of(SM120) == "sm_120a" and library.arch_of(SM121) == "sm_121a"
    assert library.arch_of(device.Device("cuda", "NVIDIA L40S", (8, 9), 142)) == "sm_89"
    assert library.arch_of(device.Device("cpu", "cpu")) is None


# ---------------------------------------------------------------- the build cache


def test_build_ffi_for_sm90a_is_what_the_first_call_on_hopper_uses(fake_nvcc, on):
    """``jax-glm-nope build-ffi --archs sm_90a`` and then the first call: no second build
    (before, the first call keyed on the default list and built sm_90a, sm_120a, sm_121a)."""
    assert build.main(["--archs", "sm_90a", "--print-path"]) == 0
    built = build.cached_library(("sm_90a",))
    assert built is not None and fake_nvcc.links() == 1
    on(H200)
    assert targets.library_path() == built and fake_nvcc.links() == 1
    assert native.unavailable_reason(allow_build=False) is None
    assert library.find("sm_90a") == library.Found(built, "cache")
    assert library.find(None) == library.Found(built, "cache")  # a CPU host: any serves
    # An SM120 GPU needs FlashInfer's units for its arch: that library does not serve it,
    # so its first call builds the default list, which then serves every device.
    on(SM120)
    assert library.find("sm_120a") is None
    assert "not built yet" in native.unavailable_reason(allow_build=False)
    default = targets.library_path()
    assert default != built and fake_nvcc.links() == 2
    assert build.read_manifest(default)["archs"] == list(ALL_ARCHS)
    assert library.find("sm_120a").path == default and library.find("sm_121a").path == default
    on(H200)
    assert targets.library_path() in (built, default) and fake_nvcc.links() == 2


def test_a_build_for_another_sm120_arch_does_not_serve(fake_nvcc, on):
    build.build(("sm_120a",), flashinfer=True)
    assert library.find("sm_120a") is not None
    assert library.find("sm_121a") is None  # sm_120a code does not run on an SM121 GPU
    build.build(("sm_121a",), flashinfer=False)
    assert library.find("sm_121a") is None  # nor does a build without FlashInfer's units


def test_a_cached_build_of_other_sources_or_another_recipe_is_not_used(fake_nvcc, tmp_path, monkeypatch):
    sources = tmp_path / "ffi"
    shutil.copytree(build.ffi_source_dir(), sources)
    monkeypatch.setenv("JAX_GLM_NOPE_FFI_SOURCES", str(sources))
    path = build.build(("sm_90a",), flashinfer=False)
    assert library.find("sm_90a").path == path
    params = sources / "ours" / "sm90" / "params.cuh"
    params.write_text(params.read_text() + "\n// changed\n")
    assert library.find("sm_90a") is None  # a compiled file changed
    params.write_text(params.read_text().removesuffix("\n// changed\n"))
    assert library.find("sm_90a").path == path
    monkeypatch.setattr(build, "recipe_hash", lambda: "another")
    assert library.find("sm_90a") is None  # other compiler flags


def test_a_cached_library_needs_no_nvcc(fake_nvcc, tmp_path, monkeypatch, on):
    """A library built earlier (or by ``build-ffi`` on this host) is used where nvcc is
    gone: finding it reads its build.json and asks no compiler."""
    path = build.build(("sm_90a",), flashinfer=False)
    _hide_nvcc(monkeypatch, tmp_path)
    on(H200)
    assert native.unavailable_reason() is None and native.unavailable_reason(allow_build=False) is None
    assert targets.library_path() == path and fake_nvcc.links() == 1


def test_unavailable_reason_trusts_a_named_library(tmp_path, monkeypatch):
    missing = tmp_path / "lib.so"
    monkeypatch.setenv("JAX_GLM_NOPE_FFI_LIBRARY", str(missing))
    assert "does not exist" in native.unavailable_reason()
    with pytest.raises(build.BuildError, match="does not exist"):
        targets.library_path()
    missing.write_bytes(b"")
    assert native.unavailable_reason(need_flashinfer=True) is None
    assert targets.library_path() == missing


# ---------------------------------------------------------------- the companion wheel


def _companion(site: pathlib.Path, built: pathlib.Path, **changes) -> pathlib.Path:
    """A ``jax_glm_nope_cu13`` package folder under ``site`` holding ``built``'s library
    and build.json (with ``changes``), as the companion wheel installs it."""
    package = site / library.PREBUILT_PACKAGE
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text('"""The prebuilt library."""\n')
    shutil.copy(built, package / build.LIBRARY_NAME)
    record = {**build.read_manifest(built), **changes}
    (package / build.MANIFEST_NAME).write_text(json.dumps(record))
    return package


@pytest.fixture
def companion(fake_nvcc, tmp_path, monkeypatch):
    """``companion(**changes)``: install a fake companion package (a folder on sys.path)
    built by the fake nvcc for sm_90a, sm_120a, sm_121a with FlashInfer, then forget
    the cache, so only the companion can serve."""
    built = build.build(ALL_ARCHS, flashinfer=True)
    site = tmp_path / "site"
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(library, "prebuilt_dir", FIND_PREBUILT)

    def install(**changes):
        package = _companion(site, built, **changes)
        importlib.invalidate_caches()
        shutil.rmtree(build.cache_dir())
        return package / build.LIBRARY_NAME

    return install


def test_the_prebuilt_library_is_found_first_and_needs_no_nvcc(
    companion, fake_nvcc, tmp_path, monkeypatch, on
):
    prebuilt = companion()
    links = fake_nvcc.links()
    _hide_nvcc(monkeypatch, tmp_path)
    for record, arch in ((H200, "sm_90a"), (SM120, "sm_120a"), (SM121, "sm_121a")):
        on(record)
        assert library.find(arch) == library.Found(prebuilt, "prebuilt")
        assert native.unavailable_reason(allow_build=False) is None
        assert native.unavailable_reason(need_flashinfer=True) is None
        assert targets.library_path() == prebuilt
    assert fake_nvcc.links() == links and not build.cache_dir().exists()  # nothing built, nothing cached
    named = tmp_path / "named.so"
    named.write_bytes(b"")
    monkeypatch.setenv("JAX_GLM_NOPE_FFI_LIBRARY", str(named))
    assert targets.library_path() == named  # the environment still wins


def test_the_prebuilt_library_comes_before_a_cached_build(companion, fake_nvcc):
    prebuilt = companion()
    cached = build.build(("sm_90a",), flashinfer=False)
    assert library.cached("sm_90a") == cached
    assert library.find("sm_90a") == library.Found(prebuilt, "prebuilt")


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"sources": "0" * 64, "jax_glm_nope": "0.1.0"}, r"other sources \(jax_glm_nope 0\.1\.0\)"),
        ({"ffi_api": [0, 999]}, r"compiled against XLA FFI API 0\.999 and this jaxlib speaks 0\.\d+"),
        ({"ffi_api": [1, 0]}, r"compiled against XLA FFI API 1\.0"),
        ({"flashinfer": False}, r"holds no FlashInfer code for sm_120a"),
        ({"archs": ["sm_90a", "sm_121a"]}, r"holds no FlashInfer code for sm_120a"),
    ],
)
def test_a_prebuilt_library_that_does_not_serve_is_passed_over_saying_why(
    companion, fake_nvcc, tmp_path, monkeypatch, on, changes, reason
):
    companion(**changes)
    on(SM120)
    assert library.find("sm_120a") is None
    message = library.passed_over("sm_120a")
    assert "jax-glm-nope-cu13" in message and "does not serve" in message
    assert re.search(reason, message), message
    # With nvcc the first call builds instead; without, the error says both things.
    built = targets.library_path()
    assert built.parent.parent == build.cache_dir()
    shutil.rmtree(build.cache_dir())
    _hide_nvcc(monkeypatch, tmp_path)
    unavailable = native.unavailable_reason()
    assert "needs nvcc" in unavailable and "jax-glm-nope-cu13" in unavailable
    with pytest.raises(build.BuildError, match="needs nvcc.*does not serve"):
        targets.library_path()


def test_an_older_ffi_api_minor_still_serves(companion, on):
    running = toolchain.ffi_api_version()
    prebuilt = companion(ffi_api=[running[0], 0])
    on(H200)
    assert library.find("sm_90a") == library.Found(prebuilt, "prebuilt")


A100 = device.Device("cuda", "NVIDIA A100-SXM4-80GB", (8, 0), 108)
L40S = device.Device("cuda", "NVIDIA L40S", (8, 9), 142)


@pytest.mark.parametrize("record", [A100, L40S], ids=["A100", "L40S"])
def test_a_library_without_code_for_the_gpu_does_not_serve_it(companion, tmp_path, monkeypatch, on, record):
    """A library whose build.json lists no code for this GPU (an older recipe's: sm_90a,
    sm_120a, sm_121a and compute_90 PTX, none of which runs below 9.0) is passed over,
    so the automatic write_kv takes the scatter instead of a kernel that cannot launch;
    this recipe's library (compute_80 PTX) serves Ampere and Ada."""
    prebuilt = companion()
    _hide_nvcc(monkeypatch, tmp_path)
    arch = library.arch_of(record)
    on(record)
    assert library.find(arch) == library.Found(prebuilt, "prebuilt")
    assert jgn.write_kv_implementation(64).implementation == "cuda"
    manifest = prebuilt.parent / build.MANIFEST_NAME
    older = json.loads(manifest.read_text())
    del older["ptx"]
    manifest.write_text(json.dumps(older))
    assert library.find(arch) is None
    assert f"it holds no code for {arch}" in library.passed_over(arch)
    choice = jgn.write_kv_implementation(64)
    assert choice.implementation == "xla"
    assert f"holds no code for {arch}" in str(choice)
    on(H200)  # its sm_90a code still serves a Hopper GPU
    assert library.find("sm_90a") == library.Found(prebuilt, "prebuilt")


def test_a_broken_companion_install_is_passed_over(companion, fake_nvcc):
    prebuilt = companion()
    (prebuilt.parent / build.MANIFEST_NAME).unlink()
    assert library.find("sm_90a") is None and "lacks its library or build.json" in library.passed_over(None)


_PREBUILT_CHECK = textwrap.dedent(
    """
    import os, sys
    import jax_glm_nope as jgn
    from jax_glm_nope.native import build, library, targets, toolchain

    def no_build(*args, **kwargs):
        raise AssertionError("a build was attempted")

    toolchain.find_nvcc = build.find_nvcc = build.build = no_build
    jgn.register_ffi_targets()  # no path: the process finds its library
    loaded = targets.library_path(build_if_missing=False)
    print("LOADED", loaded, library.find(None).origin)
    H200 = jgn.Device("cuda", "NVIDIA H200", (9, 0), 132)
    import jax, jax.numpy as jnp
    q = jax.ShapeDtypeStruct((80, 16, 512), jnp.bfloat16)
    pool = jax.ShapeDtypeStruct((4096, 528), jnp.uint8)
    indices = jax.ShapeDtypeStruct((80, 256), jnp.int32)
    f = jax.jit(lambda q, p, i: jgn.sparse_mla(q, p, i, 0.0625, implementation="cuda"))
    with jgn.lowering_for(H200):
        text = f.trace(q, pool, indices).lower(lowering_platforms=("cuda",)).as_text()
    print("LOWERED", "jax_glm_nope_sm90_sparse_mla" in text)
    print("CACHE", sorted(os.listdir(os.environ["JAX_GLM_NOPE_CACHE_DIR"])))
    """
)


@pytest.mark.nvcc
def test_a_real_prebuilt_library_registers_and_lowers_without_a_compiler(native_library, tmp_path):
    """The session's real library (sm_90a + sm_120a, FlashInfer's units in) installed as
    the companion package; a fresh process where nvcc cannot run registers it and
    lowers ``sparse_mla(implementation="cuda")`` for the H200, compiling nothing."""
    site = tmp_path / "site"
    package = _companion(site, native_library)
    cache = tmp_path / "empty_cache"
    cache.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("JAX_GLM_NOPE_FFI_LIBRARY", "JAX_GLM_NOPE_NVCC")}
    env.update(
        PYTHONPATH=os.pathsep.join([str(site), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
        PATH=os.path.dirname(sys.executable),
        JAX_GLM_NOPE_CACHE_DIR=str(cache),
        JAX_PLATFORMS="cpu",
    )
    env.pop("CUDA_HOME", None)
    done = subprocess.run(
        [sys.executable, "-c", _PREBUILT_CHECK], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert f"LOADED {package / build.LIBRARY_NAME} prebuilt" in done.stdout
    assert "LOWERED True" in done.stdout and "CACHE []" in done.stdout


def test_the_companion_wheel_builds_from_a_staged_library(fake_nvcc, tmp_path):
    """``packaging/jax-glm-nope-cu13`` with a staged library builds a wheel whose version
    is the library's jax_glm_nope release, tagged py3-none-<platform> (no Python ABI),
    holding the library, its build.json and the licenses; without a staged library the
    build refuses, naming the script."""
    import zipfile

    source = ROOT / "packaging" / "jax-glm-nope-cu13"
    if not source.is_dir():
        pytest.skip("not a checkout")
    built = build.build(ALL_ARCHS, flashinfer=True)
    stage = tmp_path / "stage"
    shutil.copytree(source, stage)
    command = [sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path / "out"), str(stage)]
    refused = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert refused.returncode != 0 and "scripts/build_wheel.sh" in refused.stdout + refused.stderr
    for name in (build.LIBRARY_NAME, build.MANIFEST_NAME, "ptxas.json"):
        shutil.copy(built.parent / name, stage / library.PREBUILT_PACKAGE / name)
    (stage / "third_party" / "flashinfer").mkdir(parents=True)
    (stage / "third_party" / "cccl").mkdir()
    vendored = build.ffi_source_dir() / toolchain.VENDORED_FLASHINFER
    shutil.copy(ROOT / "LICENSE", stage / "LICENSE")
    shutil.copy(vendored / "LICENSE", stage / "third_party" / "flashinfer" / "LICENSE")
    shutil.copy(vendored / "NOTICE", stage / "third_party" / "flashinfer" / "NOTICE")
    shutil.copy(vendored / "cccl" / "LICENSE", stage / "third_party" / "cccl" / "LICENSE")
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    (wheel,) = (tmp_path / "out").glob("*.whl")
    import jax_glm_nope as jgn

    assert wheel.name.startswith(f"jax_glm_nope_cu13-{jgn.__version__}-py3-none-linux_")
    names = set(zipfile.ZipFile(wheel).namelist())
    package = {f"jax_glm_nope_cu13/{n}" for n in (build.LIBRARY_NAME, build.MANIFEST_NAME, "__init__.py")}
    assert package <= names
    assert any(n.endswith("licenses/third_party/flashinfer/NOTICE") for n in names)
    metadata = zipfile.ZipFile(wheel).read(f"jax_glm_nope_cu13-{jgn.__version__}.dist-info/WHEEL").decode()
    assert "Root-Is-Purelib: false" in metadata


def test_the_cuda13_extra_pins_this_release_of_the_companion():
    import jax_glm_nope as jgn

    pyproject = ROOT / "pyproject.toml"
    if not pyproject.is_file():
        pytest.skip("not a checkout")
    assert f'"jax-glm-nope-cu13=={jgn.__version__}"' in pyproject.read_text()
