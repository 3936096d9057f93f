"""The one device record every implementation's predicate receives."""

from __future__ import annotations

import types

import pytest

from jax_glm_nope import device, dispatch
from jax_glm_nope.implementations import Shapes


def fake(platform, kind, capability=None, cores=None, version=""):
    client = types.SimpleNamespace(platform_version=version)
    return types.SimpleNamespace(
        platform=platform, device_kind=kind, compute_capability=capability, core_count=cores, client=client
    )


def test_jax_gpu_platform_is_normalised_to_cuda():
    """jax names an NVIDIA GPU's platform "gpu"; 0.1.0's gates wanted "cuda" and never matched."""
    record = device.from_jax_device(fake("gpu", "NVIDIA H200", "9.0", 132, "PJRT C API\ncuda 13000"))
    assert record == device.Device("cuda", "NVIDIA H200", (9, 0), 132)
    assert record.is_cuda
    assert record.describe() == "NVIDIA H200, compute capability 9.0"


def test_rocm_is_not_cuda():
    record = device.from_jax_device(fake("gpu", "AMD Instinct MI300X", None, 304, "PJRT C API\nrocm 60300"))
    assert record.platform == "rocm" and not record.is_cuda


def test_cpu_record():
    record = device.from_jax_device(fake("cpu", "cpu"))
    assert record == device.Device("cpu", "cpu") and record.describe() == "cpu (platform 'cpu')"


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        (device.Device("cuda", "NVIDIA RTX PRO 6000 Blackwell", (12, 0), 188), "flashinfer"),
        (device.Device("cuda", "NVIDIA L40S", (8, 9), 142), "pallas"),
        (device.Device("cuda", "NVIDIA A100", (8, 0), 108), "reference"),
        (device.Device("cpu", "cpu"), "reference"),
    ],
)
def test_every_predicate_reads_the_record(monkeypatch, record, expected):
    from jax_glm_nope import native

    monkeypatch.setattr(native, "unavailable_reason", lambda **_: None)  # as if the library were built
    shapes = Shapes(128, 16, 2048, 528, 4096)
    assert dispatch.choose("sparse_mla", None, shapes, {}, device=record)[0] == expected


def test_explicit_request_names_device_and_capability():
    record = device.Device("cuda", "NVIDIA H200", (9, 0), 132)
    with pytest.raises(ValueError, match=r"NVIDIA H200, compute capability 9.0: FlashInfer's GLM53_NOPE"):
        dispatch.choose("sparse_mla", "flashinfer", Shapes(1, 8, 64, 528, 10), {}, device=record)
