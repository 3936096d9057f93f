"""Lowering and exporting for a GPU from this (CPU) host: ``lowering_for`` makes the
dispatch table choose for that device, and the artifact carries its custom calls."""

from __future__ import annotations

import contextlib
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import export

import jax_glm_nope as jgn
from jax_glm_nope import device, dispatch
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
        (H200, 128, 16, targets.SM90_SPARSE_MLA),  # auto on Hopper: ours from dispatch.CUDA_MIN_TOKENS
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
    jt.assert_accurate(np.asarray(out.astype(jnp.float32)), np.asarray(lse), *case.reference())
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


# ---------------------------------------------------------------- one jitted function, several records

B200 = jgn.Device("cuda", "NVIDIA B200", (10, 0), 148)
L40S = jgn.Device("cuda", "NVIDIA L40S", (8, 9), 142)
TRITON = "__gpu$xla.gpu.triton"


def _kernels(exported) -> set[str]:
    """The custom-call targets an artifact carries."""
    return set(re.findall(r"stablehlo\.custom_call @([\w$.]+)\(", exported.mlir_module()))


def _export(fn, args, platforms=("cuda",)):
    return export.export(fn, platforms=platforms, disabled_checks=jgn.export_disabled_checks())(*args)


def test_one_jitted_step_follows_the_record_in_force():
    """One jitted step, run here on the CPU first (as anyone does), then exported for an
    H200, an SM120 card, the H200 again and without a record: each export holds what its
    record's dispatch picks, whatever was traced before (the record is part of jax's cache
    keys), and the CPU runs still give the reference's bits."""
    from jax_glm_nope import testing as jt

    case = jt.make_case(3, 8, 16, 64, num_slots=256, with_lens=True)
    args = tuple(jnp.asarray(x) for x in (case.q, case.pool, case.indices, case.topk_lens))
    step = _attend()
    before = step(*args)
    with jgn.lowering_for(H200):
        assert _kernels(_export(step, args)) == {targets.SM90_SPARSE_MLA}
    with jgn.lowering_for(RTX_PRO_6000):
        assert _kernels(_export(step, args)) == {targets.FLASHINFER_DECODE}
    with jgn.lowering_for(H200):
        assert _kernels(_export(step, args)) == {targets.SM90_SPARSE_MLA}
    with pytest.raises(ValueError, match="lowering_for"):
        _export(step, args)  # no record: refused again, never the last record's kernel
    for a, b in zip(step(*args), before, strict=True):
        np.testing.assert_array_equal(np.asarray(a.astype(jnp.float32)), np.asarray(b.astype(jnp.float32)))
    reference = jgn.sparse_mla(*args[:3], 1 / 16, args[3], implementation="reference")
    np.testing.assert_array_equal(np.asarray(before[1]), np.asarray(reference[1]))


def test_one_jitted_write_follows_the_record_in_force():
    write = jax.jit(jgn.write_kv)
    args = (jnp.zeros((64, 528), jnp.uint8), jnp.ones((3, 512)), jnp.asarray([1, 5, 5], jnp.int32))
    here = write(*args)
    with jgn.lowering_for(H200):
        assert _kernels(_export(write, args)) == {targets.WRITE_KV}
    with pytest.raises(ValueError, match="write_kv\\(implementation=None\\) is being lowered for cuda"):
        _export(write, args)
    np.testing.assert_array_equal(np.asarray(write(*args)), np.asarray(here))


# ---------------------------------------------------------------- every implementation the table picks


@pytest.mark.parametrize(
    ("record", "tokens", "heads"),
    [
        (H200, 1, 32),  # single-request decode on Hopper past 16 heads
        (H200, dispatch.CUDA_MIN_TOKENS - 1, 16),
        (L40S, 128, 16),  # compute capability 8.9: Pallas at every T
        (B200, 128, 16),  # 10.0: likewise
    ],
    ids=["h200_T1", "h200_below_cuda", "l40s", "b200"],
)
def test_export_when_the_table_picks_pallas(record, tokens, heads):
    args = _args(tokens, heads)
    with jgn.lowering_for(record):
        exported = _export(_attend(), args)
    assert _kernels(exported) == {TRITON}
    again = export.deserialize(exported.serialize())
    assert again.platforms == ("cuda",) and again.out_avals == exported.out_avals


def test_the_cuda_threshold_is_the_dispatch_tables():
    below, at = dispatch.CUDA_MIN_TOKENS - 1, dispatch.CUDA_MIN_TOKENS
    with jgn.lowering_for(H200):
        assert _kernels(_export(_attend(), _args(below, 16))) == {TRITON}
        assert _kernels(_export(_attend(), _args(at, 16))) == {targets.SM90_SPARSE_MLA}


def test_pallas_artifact_for_cpu_and_cuda_runs_here_as_the_reference():
    """``platforms=("cpu", "cuda")`` when the table picks Pallas (H200, T = 2): the Triton
    call is lowered for CUDA only, the reference for the CPU, and the artifact runs here."""
    from jax_glm_nope import testing as jt

    case = jt.make_case(6, 2, 16, 300, wide=True, with_lens=True)
    args = tuple(jnp.asarray(x) for x in (case.q, case.pool, case.indices, case.topk_lens))

    def f(q, pool, indices, topk_lens):
        return jgn.sparse_mla(q, pool, indices, case.sm_scale, topk_lens)

    with jgn.lowering_for(H200):
        exported = _export(jax.jit(f), args, platforms=("cpu", "cuda"))
    assert _kernels(exported) == {TRITON}
    out, lse = export.deserialize(exported.serialize()).call(*args)
    jt.assert_accurate(np.asarray(out.astype(jnp.float32)), np.asarray(lse), *case.reference())
    plain = jgn.sparse_mla(*args[:3], case.sm_scale, args[3], implementation="reference")
    np.testing.assert_array_equal(np.asarray(lse), np.asarray(plain[1]))


def test_the_triton_call_needs_the_disabled_checks():
    with jgn.lowering_for(H200), pytest.raises(ValueError, match="custom calls whose targets have no"):
        export.export(_attend(), platforms=("cuda",))(*_args(1, 16))


@pytest.mark.parametrize(
    ("tokens", "sm_count", "scratch"),
    [
        (16, 132, "16x12x16x512xf32"),  # cuda: one wave of the record's SMs
        (16, 78, "16x9x16x512xf32"),
        (2, 132, "34x2x16x512xf32"),  # Pallas: its split outputs
        (2, 16, "12x2x16x512xf32"),
    ],
)
def test_the_split_follows_the_records_sm_count(tokens, sm_count, scratch):
    record = jgn.Device("cuda", "NVIDIA H200", (9, 0), sm_count)
    with jgn.lowering_for(record):
        text = _export(_attend(), _args(tokens, 16, 2176)[:3] + (_args(tokens, 16)[3],)).mlir_module()
    assert f"tensor<{scratch}>" in text


# ---------------------------------------------------------------- records that cannot be lowered for


A100 = jgn.Device("cuda", "NVIDIA A100", (8, 0), 108)


@pytest.mark.parametrize("platforms", [("cuda",), ("cpu", "cuda")])
def test_a_gpu_without_a_kernel_never_gets_the_reference_silently(platforms):
    with (
        jgn.lowering_for(A100),
        pytest.raises(ValueError, match=r"NVIDIA A100, compute capability 8\.0\), and no kernel serves"),
    ):
        _export(_attend(), _args(8, 16), platforms)
    with jgn.lowering_for(A100):  # named, it is the caller's choice
        assert _kernels(_export(_attend("reference"), _args(8, 16))) == set()


def test_a_cpu_record_is_not_lowered_for_a_gpu():
    with jgn.lowering_for(jgn.Device("cpu", "cpu")):
        with pytest.raises(ValueError, match="being lowered for cuda inside lowering_for.*a CPU"):
            _export(_attend(), _args(8, 16))
        assert _kernels(_export(_attend(), _args(8, 16), ("cpu",))) == set()


def test_the_records_platform_only():
    with jgn.lowering_for(H200), pytest.raises(ValueError, match="lowered for rocm inside lowering_for"):
        _export(_attend(), _args(8, 16), ("rocm",))


def test_a_named_kernel_is_lowered_for_its_gpu_only():
    with jgn.lowering_for(H200):
        assert _kernels(_export(_attend("cuda"), _args(2, 16))) == {targets.SM90_SPARSE_MLA}
        with pytest.raises(ValueError, match="implementation='cuda' runs on cuda only"):
            _export(_attend("cuda"), _args(2, 16), ("cpu", "cuda"))
        assert _kernels(_export(_attend("pallas"), _args(8, 16))) == {TRITON}


# ---------------------------------------------------------------- derivatives lower like the call


def _derivatives(implementation=None):
    """Each way to differentiate ``sparse_mla(q, ...)`` in ``q``: {name: f(q, pool, indices, topk_lens)}."""

    def attend(q, pool, indices, topk_lens):
        return jgn.sparse_mla(q, pool, indices, 1 / 16, topk_lens, implementation=implementation)

    def loss(q, *rest):
        out, lse = attend(q, *rest)
        return jnp.sum(lse) + jnp.sum(jnp.square(out.astype(jnp.float32)))

    return {
        "grad": lambda q, *rest: jax.grad(loss)(q, *rest),
        "value_and_grad": lambda q, *rest: jax.value_and_grad(loss)(q, *rest),
        "jvp": lambda q, *rest: jax.jvp(lambda x: attend(x, *rest), (q,), (q,)),
        "linearize": lambda q, *rest: jax.linearize(lambda x: attend(x, *rest), q)[1](q),
        "vjp_primal": lambda q, *rest: jax.vjp(lambda x: attend(x, *rest), q)[0],
        "second_order": lambda q, *rest: jax.jvp(lambda x: jax.grad(loss)(x, *rest), (q,), (q,))[1],
    }


@pytest.mark.parametrize("record", [None, A100], ids=["no_record", "A100"])
@pytest.mark.parametrize("platforms", [("cuda",), ("cpu", "cuda")], ids=["cuda", "cpu_cuda"])
@pytest.mark.parametrize("how", list(_derivatives()))
def test_a_derivative_is_refused_for_a_gpu_as_the_call_is(how, platforms, record):
    """Differentiated, the automatic call lowers for a GPU exactly as the plain call does:
    without a device record (or for a GPU without a kernel) a lowering error, never the
    reference's derivative inside the CUDA branch."""
    where = "on a host without a GPU" if record is None else "no kernel serves"
    refused = rf"sparse_mla\(implementation=None\) is being lowered for cuda.*{where}"
    with (
        jgn.lowering_for(record) if record is not None else contextlib.nullcontext(),
        pytest.raises(ValueError, match=refused),
    ):
        _export(jax.jit(_derivatives()[how]), _args(8, 16), platforms)


def test_a_derivative_through_a_gpu_kernel_says_it_is_not_differentiable():
    for how in ("grad", "jvp", "linearize", "vjp_primal"):
        with jgn.lowering_for(H200), pytest.raises(TypeError, match="not differentiable"):
            _export(jax.jit(_derivatives()[how]), _args(8, 16), ("cpu", "cuda"))


def test_derivatives_on_the_cpu_are_the_references():
    """On the CPU the automatic call's derivatives are the reference's, bit for bit under
    jit (first and second order, vmapped), and under shard_map over heads within one
    ulp; the CPU's own export of a gradient runs."""
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    from jax_glm_nope import testing as jt

    case = jt.make_case(8, 6, 8, 96, wide=True, with_lens=True)
    args = tuple(jnp.asarray(x) for x in (case.q, case.pool, case.indices, case.topk_lens))

    references = _derivatives("reference")
    for how, fn in _derivatives().items():
        want = jax.jit(references[how])(*args)
        got = jax.jit(fn)(*args)
        for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
            np.testing.assert_array_equal(np.asarray(a, np.float32), np.asarray(b, np.float32), err_msg=how)
    grad = _derivatives()["grad"]
    want = np.asarray(jax.jit(grad)(*args), np.float32)
    q2, indices2, lens2 = (jnp.stack([x, x]) for x in (args[0], args[2], args[3]))
    batched = jax.jit(jax.vmap(grad, in_axes=(0, None, 0, 0)))(q2, args[1], indices2, lens2)
    np.testing.assert_array_equal(np.asarray(batched[1], np.float32), want)
    exported = export.export(jax.jit(grad), platforms=("cpu",))(*args)
    np.testing.assert_array_equal(np.asarray(exported.call(*args), np.float32), want)
    devices = jax.devices()[:2]
    if len(devices) == 2:
        mesh = jax.make_mesh((2,), ("x",), devices=devices)
        heads = P(None, "x")
        mapped = jax.jit(jax.shard_map(grad, mesh=mesh, in_specs=(heads, P(), P(), P()), out_specs=heads))
        q = jax.device_put(args[0], NamedSharding(mesh, heads))
        got = np.asarray(mapped(q, *args[1:]), np.float32)
        np.testing.assert_allclose(got, want, rtol=2**-7, atol=0)


@pytest.mark.parametrize(
    ("batch", "target"),
    [(2, TRITON), (3, TRITON), (4, targets.SM90_SPARSE_MLA), (64, targets.SM90_SPARSE_MLA)],
)
def test_a_vmapped_decode_is_dispatched_as_the_folded_call(batch, target):
    """``jax.vmap`` over ``batch`` requests of one token each is one call over ``batch``
    tokens, and the table chooses for those: on an H200 the same kernel as the unbatched
    call of ``batch`` tokens (``cuda`` from ``dispatch.CUDA_MIN_TOKENS``)."""
    args = (
        jax.ShapeDtypeStruct((batch, 1, 16, 512), jnp.bfloat16),
        jax.ShapeDtypeStruct((4096, 528), jnp.uint8),
        jax.ShapeDtypeStruct((batch, 1, 2048), jnp.int32),
    )
    attend = jax.vmap(lambda q, pool, indices: jgn.sparse_mla(q, pool, indices, 1 / 16), in_axes=(0, None, 0))
    folded = (
        jax.ShapeDtypeStruct((batch, 16, 512), jnp.bfloat16),
        args[1],
        jax.ShapeDtypeStruct((batch, 2048), jnp.int32),
    )
    with jgn.lowering_for(H200):
        assert _kernels(_export(jax.jit(attend), args)) == {target}
        assert _kernels(_export(_attend(), (*folded, jax.ShapeDtypeStruct((batch,), jnp.int32)))) == {target}
        # A vmapped pool too: the pools are stacked into one, still one call of batch tokens.
        pools = jax.ShapeDtypeStruct((batch, 512, 528), jnp.uint8)
        stacked = jax.vmap(lambda q, pool, indices: jgn.sparse_mla(q, pool, indices, 1 / 16))
        assert _kernels(_export(jax.jit(stacked), (args[0], pools, args[2]))) == {target}
