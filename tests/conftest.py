import os

# Several CPU devices for the shard_map tests; must be set before jax is imported.
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import pytest  # noqa: E402


def _device():
    from jax_glm_nope import device

    return device.current()


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs an NVIDIA GPU")
    config.addinivalue_line("markers", "sm90: needs a Hopper GPU (compute capability 9.0)")
    config.addinivalue_line("markers", "sm120: needs an SM120/SM121 GPU")
    config.addinivalue_line("markers", "nvcc: needs nvcc to build the native library")


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


@pytest.fixture(scope="session")
def native_cache(tmp_path_factory):
    """Where the test session's real native builds go: ``JAX_GLM_NOPE_CACHE_DIR`` when set
    (a CI cache), else a temporary folder."""
    import pathlib

    given = os.environ.get("JAX_GLM_NOPE_CACHE_DIR")
    return pathlib.Path(given) if given else tmp_path_factory.mktemp("native_cache")


@pytest.fixture(scope="session")
def native_library(native_cache):
    """The native library for sm_90a + sm_120a with FlashInfer's adapters, built once per
    test session (tests that use it are marked ``nvcc``; without FlashInfer's headers they
    skip)."""
    from jax_glm_nope.native import build, toolchain

    if not toolchain.flashinfer_available():
        pytest.skip("needs FlashInfer's headers (pip install --no-deps flashinfer-python==0.7.4)")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("JAX_GLM_NOPE_CACHE_DIR", str(native_cache))
        return build.build(NATIVE_TEST_ARCHS, flashinfer=True)
