import contextlib
import glob
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

# Several CPU devices for the shard_map tests; must be set before jax is imported.
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import pytest  # noqa: E402
from native_helpers import fake_nvcc, no_nvcc  # noqa: E402, F401  (fixtures of the native-build tests)


def _device():
    from jax_glm_nope import device

    return device.current()


# The markers (gpu, sm90, sm120, nvcc, slow) are registered in pyproject.toml, once.


def _nvidia_gpu_present() -> bool:
    """An NVIDIA GPU this process could use, found without initializing CUDA (the xdist
    controller must not take GPU memory its workers need)."""
    if os.environ.get("JAX_PLATFORMS", "").strip().lower() == "cpu":
        return False
    return bool(glob.glob("/dev/nvidia[0-9]*") or glob.glob("/proc/driver/nvidia/gpus/*"))


def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (the README's command): on a CPU-only machine, a test process per core, up
    to four (one process keeps two cores about three quarters busy: JAX traces on one
    thread); with an NVIDIA GPU, 0: the tests run in pytest's own process, as the GPU tests
    expect the GPU to themselves."""
    if _nvidia_gpu_present():
        return 0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return min(4, cores) if cores > 1 else 0


def pytest_collection_modifyitems(config, items):
    dev = _device()
    cc = dev.compute_capability
    try:
        from jax_glm_nope.native.toolchain import find_nvcc

        find_nvcc()
        have_nvcc = True
    except Exception:
        have_nvcc = False
    skips = {
        "gpu": (not dev.is_cuda, "needs an NVIDIA GPU"),
        "sm90": (cc != (9, 0), "needs a Hopper GPU (compute capability 9.0)"),
        "sm120": (cc not in ((12, 0), (12, 1)), "needs an SM120/SM121 GPU"),
        "nvcc": (not have_nvcc, "needs nvcc"),
    }
    for item in items:
        for name, (skip, why) in skips.items():
            if skip and name in item.keywords:
                item.add_marker(pytest.mark.skip(reason=why))
    config.stash.setdefault(_NATIVE, {})["have_nvcc"] = have_nvcc
    # The tests that need the session's native build run last (in their order), so the
    # build started in the background at collection is done before the first of them
    # instead of stalling the run for a few minutes of nvcc.
    items.sort(key=lambda item: "native_library" in item.fixturenames)


def pytest_collection_finish(session):
    config = session.config
    if not config.option.collectonly:  # the items as -k / -m left them
        _start_native_build(config, session.items, config.stash.get(_NATIVE, {}).get("have_nvcc", False))


def pytest_generate_tests(metafunc):
    """``case_spec``: the calling class's ``CASES`` (one suite, sizes per machine)."""
    if "case_spec" in metafunc.fixturenames:
        cases = metafunc.cls.CASES
        metafunc.parametrize("case_spec", cases, ids=[spec_id(c) for c in cases])


def spec_id(spec: dict) -> str:
    return (
        "-".join(f"{k}{v}" if not isinstance(v, bool) else (k if v else "") for k, v in spec.items())
        .replace("--", "-")
        .strip("-")
    )


NATIVE_TEST_ARCHS = ("sm_90a", "sm_120a")
BUILD_NICENESS = 10
_NATIVE = pytest.StashKey[dict]()

_BUILD_SCRIPT = (
    "import sys\n"
    "from jax_glm_nope.native import build\n"
    "print(build.build(tuple(sys.argv[1:]), flashinfer=True))\n"
)


def say(config, message: str) -> None:
    """One line on the terminal, under ``-q`` and output capture too (a long step says so).
    In pytest-xdist's test processes, whose reporter reaches no terminal, the first one
    (``gw0``) writes to its standard error, which is the terminal's; the others keep quiet."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if (reporter is None and worker is None) or worker not in (None, "gw0"):
        return
    capture = config.pluginmanager.get_plugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
        if worker is not None:
            sys.stderr.write(f"\n{message}\n")
            sys.stderr.flush()
        else:
            if getattr(getattr(reporter, "_tw", None), "width_of_current_line", 0):  # after -q's dots
                reporter.write("\n")
            reporter.write_line(message)


def _native_cache_dir(config) -> pathlib.Path:
    """Where the session's real native builds go: ``JAX_GLM_NOPE_CACHE_DIR`` when set (a
    CI cache), else pytest's cache folder (kept between local runs; the build key names
    sources, nvcc, archs and FlashInfer, so a stale library is never reused), else a
    temporary folder (``-p no:cacheprovider``, as CI runs)."""
    state = config.stash.setdefault(_NATIVE, {})
    if "cache" not in state:
        given = os.environ.get("JAX_GLM_NOPE_CACHE_DIR")
        if given:
            state["cache"] = pathlib.Path(given)
        else:
            try:
                state["cache"] = config.cache.mkdir("jax_glm_nope_native")
            except (AttributeError, OSError):  # no cache plugin, or a read-only checkout
                state["cache"] = pathlib.Path(tempfile.mkdtemp(prefix="jax_glm_nope_native_"))
                state["remove"] = True
    return state["cache"]


def _start_native_build(config, items, have_nvcc: bool) -> None:
    """Start the session's one build in the background as soon as the collected tests
    need it, so nvcc runs beside the CPU tests instead of stalling the run. Another
    process, with the environment as it is now: tests that monkeypatch the nvcc or the
    cache variables meanwhile cannot touch it."""
    if not have_nvcc or not any("native_library" in item.fixturenames for item in items):
        return
    from jax_glm_nope.native import build, toolchain

    if not toolchain.flashinfer_available():
        return  # the fixture skips, naming the fix
    cache = _native_cache_dir(config)
    env = {**os.environ, "JAX_GLM_NOPE_CACHE_DIR": str(cache), "JAX_PLATFORMS": "cpu"}
    try:
        key = build.build_key(NATIVE_TEST_ARCHS, True)
    except Exception:
        return  # the fixture builds in the test and reports the error there
    if (cache / key / build.LIBRARY_NAME).is_file():
        return
    log = tempfile.TemporaryFile()
    process = subprocess.Popen(
        [sys.executable, "-c", _BUILD_SCRIPT, *NATIVE_TEST_ARCHS],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        # Below the tests' priority: nvcc takes the cores the tests leave idle, and the
        # tests that need the library run last (pytest_collection_modifyitems). With a test
        # process per core those tests may wait for it briefly; at a higher priority the
        # whole run took longer (the tests slowed more than that wait shrank).
        preexec_fn=lambda: os.nice(BUILD_NICENESS),
    )
    config.stash[_NATIVE].update(process=process, log=log, started=time.monotonic())
    say(
        config,
        f"jax_glm_nope: building the native library with nvcc for {', '.join(NATIVE_TEST_ARCHS)} "
        f"with FlashInfer's adapters, in the background (once per run; {build.expected_duration(cache)}; "
        "the tests that need it wait for it)",
    )


def _wait_native_build(config) -> None:
    state = config.stash.get(_NATIVE, {})
    process = state.pop("process", None)
    if process is None:
        return
    if process.poll() is None:
        say(config, "jax_glm_nope: waiting for the native library build ...")
    returncode = process.wait()
    log = state.pop("log")
    log.seek(0)
    output = log.read().decode(errors="replace")
    log.close()
    if returncode != 0:
        raise RuntimeError(f"the session's native build failed (rc {returncode}):\n{output[-6000:]}")
    say(config, f"jax_glm_nope: native library built in {time.monotonic() - state['started']:.0f} s")


def pytest_unconfigure(config):
    state = config.stash.get(_NATIVE, {})
    process = state.get("process")
    if process is not None and process.poll() is None:  # no test came to need it (-x, -k)
        process.terminate()
        process.wait()
    if state.get("remove"):
        shutil.rmtree(state["cache"], ignore_errors=True)


@pytest.fixture(scope="session")
def native_cache(pytestconfig) -> pathlib.Path:
    """Where the test session's real native builds go (see ``_native_cache_dir``)."""
    return _native_cache_dir(pytestconfig)


@pytest.fixture(scope="session")
def native_library(native_cache, pytestconfig):
    """The native library for sm_90a + sm_120a with FlashInfer's adapters, built once per
    test session (started in the background at collection; tests that use it are marked
    ``nvcc``; without FlashInfer's headers they skip)."""
    from jax_glm_nope.native import build, toolchain

    if not toolchain.flashinfer_available():
        pytest.skip("needs FlashInfer's headers (vendored in ffi/third_party/flashinfer: restore them)")
    _wait_native_build(pytestconfig)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("JAX_GLM_NOPE_CACHE_DIR", str(native_cache))
        return build.build(NATIVE_TEST_ARCHS, flashinfer=True)  # the background build: a cache hit
