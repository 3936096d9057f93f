"""Lowering and exporting for a GPU from this (CPU) host: ``lowering_for`` makes the
dispatch table choose for that device, and the artifact carries its custom calls."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import export

import jax_glm_nope as jgn
from jax_glm_nope import device
from jax_glm_nope.native import targets

H200 = jgn.Device("cuda", "NVIDIA H200", (9, 0), 132)
RTX_PRO_6000 = jgn.Device("cuda", "NVIDIA RTX PRO 6000 Blackwell", (12, 0), 188)


def _args(num_tokens, num_heads, num_candidates=2176):
    return (
        jax.ShapeDtypeStruct((num_tokens, num_heads, 512), jnp.bfloat16),
        jax.ShapeDtypeStruct((4096, 64, 528), jnp.uint8),
        jax.ShapeDtypeStruct((num_tokens, num_candidates), jnp.int32),
        jax.ShapeDtypeStruct((num_tokens,), jnp.int32),
    )


def _attend(implementation=None):
    def f(q, pool, indices, topk_lens):
        return jgn.sparse_mla(q, pool, indices, 1 / 16, topk_lens, implementation=implementation)

    return jax.jit(f)


@pytest.mark.parametrize(
    ("record", "tokens", "heads", "target"),
    [
        (H200, 128, 16, targets.SM90_SPARSE_MLA),  # auto on Hopper: ours from T >= 4
        (RTX_PRO_6000, 8, 64, targets.FLASHINFER_DECODE),  # auto on SM120: FlashInfer's
        (RTX_PRO_6000, 128, 64, targets.FLASHINFER_PREFILL),
    ],
)
def test_export_for_a_gpu_from_the_cpu_embeds_its_kernel(record, tokens, heads, target):
    with jgn.lowering_for(record):
        exported = export.export(
            _attend(), platforms=("cuda",), disabled_checks=jgn.export_disabled_checks()
        )(*_args(tokens, heads))
    text = exported.mlir_module()
    assert target in text and "custom_call" in text
    assert exported.platforms == ("cuda",)
    again = export.deserialize(exported.serialize())  # what the GPU machine loads
    assert again.in_avals == exported.in_avals and again.out_avals == exported.out_avals
    assert device.current() == device.local()  # the context is left


def test_export_without_the_disabled_checks_is_refused():
    with (
        jgn.lowering_for(H200),
        pytest.raises(ValueError, match="custom calls whose targets have no compatibility"),
    ):
        export.export(_attend(), platforms=("cuda",))(*_args(128, 16))


def test_explicit_implementation_is_checked_against_the_target_device():
    with jgn.lowering_for(H200), pytest.raises(ValueError, match="NVIDIA H200, compute capability 9.0"):
        export.export(_attend("flashinfer"), platforms=("cuda",))(*_args(8, 8))


def test_on_the_host_itself_auto_is_unchanged():
    pool = jgn.quantize(jnp.ones((8, 512)))
    out, _ = jgn.sparse_mla(jnp.ones((1, 8, 512), jnp.bfloat16), pool, jnp.zeros((1, 8), jnp.int32), 0.1)
    assert np.isfinite(np.asarray(out.astype(jnp.float32))).all()


def test_lowering_for_takes_a_device_record():
    with pytest.raises(TypeError, match="Device"), jgn.lowering_for("cuda"):
        pass


def test_one_artifact_for_cpu_and_cuda_runs_here_as_the_reference():
    """``platforms=("cpu", "cuda")`` under ``lowering_for``: the CUDA path holds the
    H200's kernel, the CPU path the reference, and the artifact runs on this CPU."""
    from jax_glm_nope import testing as jt

    case = jt.make_case(5, 40, 16, 300, wide=True, with_lens=True)
    args = tuple(jnp.asarray(x) for x in (case.q, case.pool, case.indices, case.topk_lens))

    def f(q, pool, indices, topk_lens):
        return jgn.sparse_mla(q, pool, indices, case.sm_scale, topk_lens)

    with jgn.lowering_for(H200):
        exported = export.export(
            jax.jit(f), platforms=("cpu", "cuda"), disabled_checks=jgn.export_disabled_checks()
        )(*args)
    assert targets.SM90_SPARSE_MLA in exported.mlir_module()
    out, lse = export.deserialize(exported.serialize()).call(*args)
    jt.assert_spec3(np.asarray(out.astype(jnp.float32)), np.asarray(lse), *case.reference())
    plain = jgn.sparse_mla(*args[:3], case.sm_scale, args[3], implementation="reference")
    np.testing.assert_array_equal(np.asarray(lse), np.asarray(plain[1]))


def test_write_kv_artifact_for_cpu_and_cuda():
    pool = jnp.zeros((64, 528), jnp.uint8)
    latent = jnp.ones((3, 512))
    slots = jnp.asarray([1, 5, 5], jnp.int32)
    with jgn.lowering_for(H200):
        exported = export.export(
            jax.jit(jgn.write_kv), platforms=("cpu", "cuda"), disabled_checks=jgn.export_disabled_checks()
        )(pool, latent, slots)
    assert targets.WRITE_KV in exported.mlir_module()
    np.testing.assert_array_equal(
        np.asarray(exported.call(pool, latent, slots)), np.asarray(jgn.write_kv(pool, latent, slots))
    )


@pytest.mark.parametrize("platforms", [("cuda",), ("cpu", "cuda")])
def test_auto_export_for_a_gpu_without_a_device_record_raises(platforms):
    # On this CPU host there is no GPU to choose a kernel for: never the reference, silently.
    with pytest.raises(ValueError, match="lowering_for"):
        export.export(_attend(), platforms=platforms, disabled_checks=jgn.export_disabled_checks())(
            *_args(8, 16)
        )
    write = jax.jit(lambda pool, x, slots: jgn.write_kv(pool, x, slots))
    with pytest.raises(ValueError, match="write_kv\\(implementation=None\\) is being lowered for"):
        export.export(write, platforms=platforms)(
            jax.ShapeDtypeStruct((64, 528), jnp.uint8),
            jax.ShapeDtypeStruct((2, 512), jnp.float32),
            jax.ShapeDtypeStruct((2,), jnp.int32),
        )


def test_auto_on_the_cpu_is_the_reference_under_jit_vmap_and_grad():
    pool = jgn.quantize(jax.random.normal(jax.random.key(0), (64, 512)))
    q = jax.random.normal(jax.random.key(1), (3, 8, 512)).astype(jnp.bfloat16)
    idx = jax.random.randint(jax.random.key(2), (3, 16), 0, 64)

    def attend(q, idx, implementation=None):
        return jgn.sparse_mla(q, pool, idx, 1 / 16, implementation=implementation)

    expect = attend(q, idx, "reference")
    batched = (q[:, None], idx[:, None])  # jit(vmap) traces both platforms' branches batched
    for got in (
        attend(q, idx),
        jax.jit(attend)(q, idx),
        jax.vmap(attend)(*batched),
        jax.jit(jax.vmap(attend))(*batched),
    ):
        for a, b in zip(got, expect, strict=True):
            np.testing.assert_array_equal(
                np.asarray(a.astype(jnp.float32)).reshape(b.shape), np.asarray(b.astype(jnp.float32))
            )
    grad = jax.grad(lambda q: jnp.sum(attend(q, idx)[1]))(q)
    want = jax.grad(lambda q: jnp.sum(attend(q, idx, "reference")[1]))(q)
    np.testing.assert_array_equal(np.asarray(grad.astype(jnp.float32)), np.asarray(want.astype(jnp.float32)))
    exported = export.export(jax.jit(attend), platforms=("cpu",))(q, idx)  # the CPU's own export
    assert "custom_call @jax_glm_nope" not in exported.mlir_module()  # the reference, no kernel
