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
    assert dispatch.decide("sparse_mla", None, shapes, {}, device=record).implementation == expected


def test_explicit_request_names_device_and_capability():
    record = device.Device("cuda", "NVIDIA H200", (9, 0), 132)
    with pytest.raises(ValueError, match=r"NVIDIA H200, compute capability 9.0: FlashInfer's GLM53_NOPE"):
        dispatch.decide("sparse_mla", "flashinfer", Shapes(1, 8, 64, 528, 10), {}, device=record)


# ---------------------------------------------------------------- records given by the caller


def test_a_gpu_record_is_normalised_like_a_jax_device():
    """jax's own name for the platform: a record with a compute capability is CUDA, and its
    export carries the H200's kernel, never the reference (the predicates read "cuda")."""
    import jax
    import jax.numpy as jnp
    from jax import export

    import jax_glm_nope as jgn

    record = jgn.Device("gpu", "NVIDIA H200", (9, 0), 132)
    assert record == jgn.Device("cuda", "NVIDIA H200", (9, 0), 132) and record.is_cuda
    args = (
        jax.ShapeDtypeStruct((8, 16, 512), jnp.bfloat16),
        jax.ShapeDtypeStruct((4096, 528), jnp.uint8),
        jax.ShapeDtypeStruct((8, 2176), jnp.int32),
    )
    with jgn.lowering_for(record):
        exported = export.export(
            jax.jit(lambda q, pool, idx: jgn.sparse_mla(q, pool, idx, 1 / 16)),
            platforms=("cuda",),
            disabled_checks=jgn.export_disabled_checks(),
        )(*args)
    assert "custom_call @jax_glm_nope_sm90_sparse_mla" in exported.mlir_module()


@pytest.mark.parametrize(
    ("fields", "error", "pattern"),
    [
        (("gpu", "AMD Instinct MI300X"), ValueError, "platform: 'gpu' names CUDA and ROCm alike"),
        (("", "NVIDIA H200"), TypeError, "platform: expected a platform name"),
        ((None, "NVIDIA H200"), TypeError, "platform: expected a platform name"),
        (("cuda", 9), TypeError, "kind: expected a str"),
        (
            ("cuda", "NVIDIA H200", "9.0"),
            TypeError,
            r"compute_capability: expected None or a \(major, minor\)",
        ),
        (("cuda", "NVIDIA H200", (9,)), TypeError, "compute_capability: expected None or a"),
        (("cuda", "NVIDIA H200", (9, 0, 0)), TypeError, "compute_capability: expected None or a"),
        (("cuda", "NVIDIA H200", (9.0, 0)), TypeError, "compute_capability: expected an int"),
        # Containers of two that are not an ordered pair: a set's order is arbitrary, bytes
        # and a range read as their elements, a dict as its keys.
        (("cuda", "NVIDIA H200", {9, 0}), TypeError, "compute_capability: expected None or a"),
        (("cuda", "NVIDIA H200", b"90"), TypeError, "compute_capability: expected None or a"),
        (("cuda", "NVIDIA H200", range(9, 11)), TypeError, "compute_capability: expected None or a"),
        (("cuda", "NVIDIA H200", {9: 0, 1: 2}), TypeError, "compute_capability: expected None or a"),
        (("cuda", "NVIDIA H200", frozenset({12})), TypeError, "compute_capability: expected None or a"),
        (("cuda", "NVIDIA H200", [9, 0]), TypeError, "compute_capability: expected None or a"),
        (("cuda", "NVIDIA H200", (9, -1)), ValueError, "compute_capability: expected non-negative"),
        (("rocm", "AMD Instinct MI300X", (9, 4)), ValueError, "compute_capability: a CUDA notion"),
        (("cuda", "NVIDIA H200", (9, 0), 0), ValueError, "sm_count: expected a positive int or None"),
        (("cuda", "NVIDIA H200", (9, 0), -132), ValueError, "sm_count: expected a positive int"),
        (("cuda", "NVIDIA H200", (9, 0), 132.0), TypeError, "sm_count: expected an int"),
        (("cuda", "NVIDIA H200", (9, 0), True), TypeError, "sm_count: expected an int"),
    ],
)
def test_a_record_is_validated(fields, error, pattern):
    with pytest.raises(error, match=pattern):
        device.Device(*fields)


def test_a_record_takes_numpy_ints_as_python_ints():
    import numpy as np

    record = device.Device("CUDA", "NVIDIA H200", (np.int64(9), 0), np.int32(132))
    assert record == device.Device("cuda", "NVIDIA H200", (9, 0), 132)
    assert hash(record) == hash(device.Device("cuda", "NVIDIA H200", (9, 0), 132))
    assert type(record.compute_capability[0]) is int and type(record.sm_count) is int


def test_split_sm_count_is_the_records():
    assert device.Device("cuda", "NVIDIA H20", (9, 0), 78).split_sm_count == 78
    assert device.Device("cuda", "NVIDIA H200", (9, 0)).split_sm_count == device.DEFAULT_SM_COUNT
