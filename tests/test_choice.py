"""Which implementation serves a call, asked without a GPU (``sparse_mla_implementation``,
``write_kv_implementation``), and the environment switches that force or disable one
(``JAX_GLM_NOPE_SPARSE_MLA``, ``JAX_GLM_NOPE_WRITE_KV``): both through the public API,
checked against what the call itself lowers."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import export

import jax_glm_nope as jgn
from jax_glm_nope import dispatch, native
from jax_glm_nope import testing as jt
from jax_glm_nope.native import targets

H200 = jgn.Device("cuda", "NVIDIA H200", (9, 0), 132)
SM120 = jgn.Device("cuda", "NVIDIA RTX PRO 6000 Blackwell", (12, 0), 188)
L40S = jgn.Device("cuda", "NVIDIA L40S", (8, 9), 142)
A100 = jgn.Device("cuda", "NVIDIA A100", (8, 0), 108)
TRITON = "__gpu$xla.gpu.triton"
# What each implementation lowers to for CUDA (the reference: no custom call).
KERNELS = {
    "cuda": {targets.SM90_SPARSE_MLA},
    "pallas": {TRITON},
    "flashinfer": {targets.FLASHINFER_DECODE},
    "reference": set(),
}
ON_CPU = jax.default_backend() == "cpu"
cpu_only = pytest.mark.skipif(not ON_CPU, reason="asks what a CPU host serves")


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    """No switch from the caller's shell leaks into these tests."""
    monkeypatch.delenv("JAX_GLM_NOPE_SPARSE_MLA", raising=False)
    monkeypatch.delenv("JAX_GLM_NOPE_WRITE_KV", raising=False)


def _args(num_tokens, num_heads, num_candidates=64):
    return (
        jax.ShapeDtypeStruct((num_tokens, num_heads, 512), jnp.bfloat16),
        jax.ShapeDtypeStruct((256, 16, 528), jnp.uint8),
        jax.ShapeDtypeStruct((num_tokens, num_candidates), jnp.int32),
        jax.ShapeDtypeStruct((num_tokens,), jnp.int32),
    )


def _attend(implementation=None, **options):
    def f(q, pool, indices, topk_lens):
        return jgn.sparse_mla(q, pool, indices, 1 / 16, topk_lens, implementation=implementation, **options)

    return jax.jit(f)


def _kernels(record, fn, args) -> set[str]:
    """The custom calls ``fn`` lowers to for ``record``'s CUDA."""
    with jgn.lowering_for(record):
        exported = export.export(fn, platforms=("cuda",), disabled_checks=jgn.export_disabled_checks())(*args)
    return set(re.findall(r"stablehlo\.custom_call @([\w$.]+)\(", exported.mlir_module()))


# ---------------------------------------------------------------- the query


@pytest.mark.parametrize(
    ("record", "tokens", "heads", "expected"),
    [
        (H200, 1, 64, "pallas"),  # below the cuda threshold
        (H200, 64, 16, "cuda"),
        (SM120, 8, 64, "flashinfer"),
        (L40S, 128, 16, "pallas"),
    ],
)
def test_the_query_names_what_the_call_lowers(record, tokens, heads, expected):
    choice = jgn.sparse_mla_implementation(tokens, heads, 64, device=record)
    assert choice.implementation == expected and choice.device == record
    assert choice.operation == "sparse_mla" and choice.forced_by is None
    assert _kernels(record, _attend(), _args(tokens, heads)) == KERNELS[expected]


def test_the_query_says_why_not_the_others():
    below = jgn.sparse_mla_implementation(1, 64, 2176, device=H200)
    assert below.serving == ("cuda", "pallas", "reference")
    assert set(below.reasons) == {"flashinfer", "cuda", "reference"}
    assert "SM120/SM121" in below.reasons["flashinfer"]
    assert f"takes it from CUDA_MIN_TOKENS = {dispatch.CUDA_MIN_TOKENS} tokens" in below.reasons["cuda"]
    assert "pallas comes first" in below.reasons["reference"]
    text = str(below)
    assert text.startswith("sparse_mla: pallas serves this call on NVIDIA H200, compute capability 9.0")
    assert all(f"  {name}: {reason}" in text for name, reason in below.reasons.items())
    old = jgn.sparse_mla_implementation(64, 16, 2176, device=A100, implementation="reference")
    assert old.implementation == "reference" and old.serving == ("reference",)
    assert "compute capability 8.9 or newer" in old.reasons["pallas"]


@pytest.mark.parametrize(
    ("record", "switch"), [(A100, None), (H200, "-cuda,-pallas")], ids=["no-kernel", "kernels-disabled"]
)
def test_where_no_kernel_serves_the_query_raises_what_lowering_the_call_raises(monkeypatch, record, switch):
    """A GPU artifact never carries the reference unless it is named, so the automatic
    choice for a GPU no kernel serves is the call's lowering error, asked or lowered."""
    if switch is not None:
        monkeypatch.setenv("JAX_GLM_NOPE_SPARSE_MLA", switch)
    with pytest.raises(ValueError) as queried:
        jgn.sparse_mla_implementation(8, 64, 2176, device=record)
    with pytest.raises(ValueError) as called:
        _kernels(record, _attend(), _args(8, 64, 2176))
    assert str(queried.value) == str(called.value)
    assert "no kernel serves that device" in str(queried.value)
    with jgn.lowering_for(record), pytest.raises(ValueError) as inside:
        jgn.sparse_mla_implementation(8, 64, 2176)
    assert str(inside.value) == str(called.value)
    named = jgn.sparse_mla_implementation(8, 64, 2176, device=record, implementation="reference")
    assert named.implementation == "reference"  # named, it is embedded
    assert _kernels(record, _attend("reference"), _args(8, 64, 2176)) == set()


@pytest.mark.parametrize(
    ("record", "tokens", "implementation", "options"),
    [
        (H200, 1, None, {}),
        (H200, 64, None, {}),
        (H200, 8, "pallas", {}),
        (H200, 8, None, {"batch_invariant": True}),
        (SM120, 8, None, {}),
        (L40S, 8, "reference", {}),
    ],
)
def test_the_query_formats_the_calls_decision(record, tokens, implementation, options):
    """What the query prints is the record the call decides with, field by field."""
    choice = jgn.sparse_mla_implementation(
        tokens, 64, 2176, device=record, implementation=implementation, **options
    )
    shapes = _shapes(tokens, 64, 2176)
    with jgn.lowering_for(record):
        decision = dispatch.decide("sparse_mla", implementation, shapes, options)
    assert decision.device == record and decision.lowering
    assert (choice.implementation, choice.serving, choice.forced_by) == (
        decision.implementation,
        decision.serving,
        decision.forced_by,
    )
    assert dict(choice.reasons) == dict(decision.reasons)


def _shapes(tokens, heads, candidates):
    from jax_glm_nope.implementations import Shapes

    return Shapes(tokens, heads, candidates, 528, 1)


def test_choices_compare_and_hash_by_value():
    first = jgn.sparse_mla_implementation(1, 64, 2176, device=H200)
    again = jgn.sparse_mla_implementation(1, 64, 2176, device=H200)
    other = jgn.sparse_mla_implementation(64, 64, 2176, device=H200)
    assert first == again and hash(first) == hash(again) and first != other
    assert len({first, again, other}) == 2
    assert {first: "cached"}[again] == "cached"


def test_the_query_takes_the_calls_options():
    invariant = jgn.sparse_mla_implementation(1, 16, 2176, device=H200, batch_invariant=True)
    assert invariant.implementation == "cuda"  # at every T, not only from the threshold
    assert invariant.reasons["pallas"] == "does not take batch_invariant=True"
    named = jgn.sparse_mla_implementation(64, 16, 2176, device=H200, implementation="pallas")
    assert named.implementation == "pallas"
    assert named.reasons["cuda"] == "serves this call, but implementation='pallas' is named"
    with pytest.raises(
        ValueError, match=r"batch_invariant=True\) with implementation=None: no implementation"
    ):
        jgn.sparse_mla_implementation(8, 16, 2176, device=L40S, batch_invariant=True)


def test_a_named_implementation_that_cannot_serve_raises_as_the_call_does():
    with pytest.raises(ValueError) as queried:
        jgn.sparse_mla_implementation(8, 16, 64, device=L40S, implementation="cuda")
    with pytest.raises(ValueError) as called:
        _kernels(L40S, _attend("cuda"), _args(8, 16))
    assert str(queried.value) == str(called.value)
    assert "implementation='cuda' cannot serve this call on NVIDIA L40S, compute capability 8.9" in str(
        queried.value
    )


@cpu_only
def test_this_hosts_own_device():
    choice = jgn.sparse_mla_implementation(8, 16, 64)
    assert choice.implementation == "reference" and choice.device == jgn.Device("cpu", "cpu")
    assert "interpret=True" in choice.reasons["pallas"]
    interpreted = jgn.sparse_mla_implementation(8, 16, 64, implementation="pallas", interpret=True)
    assert interpreted.implementation == "pallas"
    write = jgn.write_kv_implementation(8)
    assert (
        write.implementation == "xla"
        and write.reasons["cuda"] == "the CUDA KV-row kernel runs on NVIDIA GPUs only"
    )
    with jgn.lowering_for(H200):  # inside the context, None means the record
        assert jgn.sparse_mla_implementation(8, 16, 64).device == H200


def test_another_machines_device_needs_no_library_here(monkeypatch):
    """Asking for an H200 from this host never looks for nvcc or the built library: that
    is the H200 machine's. On the host's own GPU the library's state is part of the answer."""

    def no_probe(**_):
        raise AssertionError("the native library was probed for another machine's device")

    monkeypatch.setattr(native, "unavailable_reason", no_probe)
    assert jgn.sparse_mla_implementation(64, 16, 2176, device=H200).implementation == "cuda"
    assert jgn.write_kv_implementation(64, device=H200).implementation == "cuda"
    assert jgn.sparse_mla_implementation(8, 64, 2176, device=SM120).implementation == "flashinfer"


def test_the_pool_size_reaches_the_table(monkeypatch):
    from jax_glm_nope.implementations import pallas

    monkeypatch.setattr(pallas, "LARGE_POOLS_UNSUPPORTED", "no 64-bit offsets in this jax")
    small = jgn.sparse_mla_implementation(1, 16, 2176, device=L40S, num_slots=2**20)
    assert small.implementation == "pallas"
    # 2.95 GiB: no kernel serves it on the L40S, and the reference is embedded only if named
    with pytest.raises(ValueError, match=r"no kernel serves that device .*pallas: .*2-4 GiB"):
        jgn.sparse_mla_implementation(1, 16, 2176, device=L40S, num_slots=6_000_000)
    large = jgn.sparse_mla_implementation(
        1, 16, 2176, device=L40S, num_slots=6_000_000, implementation="reference"
    )
    assert "2-4 GiB" in large.reasons["pallas"]


@pytest.mark.parametrize(
    ("kw", "error", "pattern"),
    [
        (dict(num_tokens=jgn.MAX_TOKENS + 1), ValueError, "num_tokens: expected at most 65536"),
        (dict(num_tokens=-1), ValueError, "num_tokens: expected an int >= 0"),
        (dict(num_heads=129), ValueError, "num_heads: expected 1 <= H <= 128"),
        (dict(num_heads=0), ValueError, "num_heads: expected an int >= 1"),
        (dict(num_candidates=0), ValueError, "num_candidates: expected an int >= 1"),
        (dict(num_tokens=8.0), TypeError, "num_tokens: expected a Python int"),
        (dict(batch_invariant="no"), TypeError, "batch_invariant: expected a bool"),
        (dict(interpret=1), TypeError, "interpret: expected a bool"),
        (dict(device="H200"), TypeError, "device: expected None or a jax_glm_nope.Device"),
        (dict(row_bytes=600), ValueError, "row_bytes"),
        (dict(num_slots=2**31), ValueError, "num_slots: at most 2\\*\\*31 - 1"),
        (dict(implementation="triton"), ValueError, "implementation: expected None or one of"),
    ],
)
def test_the_query_validates_its_arguments(kw, error, pattern):
    args = {"num_tokens": 8, "num_heads": 16, "num_candidates": 64, "device": H200, **kw}
    with pytest.raises(error, match=pattern):
        jgn.sparse_mla_implementation(**args)


# ---------------------------------------------------------------- the environment switch


def test_disabling_cuda_hands_the_call_to_the_next(monkeypatch):
    args = _args(64, 16)
    assert _kernels(H200, _attend(), args) == KERNELS["cuda"]
    monkeypatch.setenv("JAX_GLM_NOPE_SPARSE_MLA", "-cuda")
    assert _kernels(H200, _attend(), args) == KERNELS["pallas"]  # a new trace reads it again
    choice = jgn.sparse_mla_implementation(64, 16, 64, device=H200)
    assert choice.implementation == "pallas"
    assert choice.reasons["cuda"] == "disabled by JAX_GLM_NOPE_SPARSE_MLA='-cuda'"
    with pytest.raises(
        ValueError, match=r"implementation='cuda' is disabled by JAX_GLM_NOPE_SPARSE_MLA='-cuda'"
    ):
        _kernels(H200, _attend("cuda"), args)
    monkeypatch.setenv("JAX_GLM_NOPE_SPARSE_MLA", " -cuda , -pallas ")
    with pytest.raises(
        ValueError,
        match=r"no kernel serves that device .*cuda: disabled by JAX_GLM_NOPE_SPARSE_MLA; pallas: disabled",
    ):
        _kernels(H200, _attend(), args)  # never the reference in a GPU artifact, silently
    with pytest.raises(ValueError, match=r"no kernel serves that device .*cuda: disabled"):
        jgn.sparse_mla_implementation(64, 16, 64, device=H200)  # the query raises it too


def test_forcing_an_implementation_is_naming_it(monkeypatch):
    args = _args(64, 16)
    monkeypatch.setenv("JAX_GLM_NOPE_SPARSE_MLA", "pallas")
    assert _kernels(H200, _attend(), args) == KERNELS["pallas"]
    choice = jgn.sparse_mla_implementation(64, 16, 64, device=H200)
    assert choice.implementation == "pallas" and choice.forced_by == "JAX_GLM_NOPE_SPARSE_MLA='pallas'"
    assert _kernels(H200, _attend("cuda"), args) == KERNELS["cuda"]  # the code's own name wins
    # A forced kernel is lowered for its own platform only, as a named one is.
    with (
        jgn.lowering_for(H200),
        pytest.raises(ValueError, match=r"unset: JAX_GLM_NOPE_SPARSE_MLA='pallas' forces"),
    ):
        export.export(_attend(), platforms=("cpu", "cuda"), disabled_checks=jgn.export_disabled_checks())(
            *args
        )
    # Forced to the reference, a GPU artifact embeds it, as implementation="reference" does.
    monkeypatch.setenv("JAX_GLM_NOPE_SPARSE_MLA", "reference")
    assert _kernels(H200, _attend(), args) == set()
    # Forced where it cannot serve: the call's error, saying who forced it.
    monkeypatch.setenv("JAX_GLM_NOPE_SPARSE_MLA", "flashinfer")
    with pytest.raises(ValueError, match=r"cannot serve.*forced by JAX_GLM_NOPE_SPARSE_MLA='flashinfer'"):
        _kernels(H200, _attend(), args)


@cpu_only
def test_a_switch_is_read_when_the_call_is_traced(monkeypatch):
    case = jt.make_case(0, 4, 8, 32, num_slots=64, with_lens=True)
    args = (case.q, case.pool, case.indices, case.sm_scale, case.topk_lens)
    plain = jgn.sparse_mla(*args)
    monkeypatch.setenv("JAX_GLM_NOPE_SPARSE_MLA", "pallas")
    with pytest.raises(ValueError, match="forced by JAX_GLM_NOPE_SPARSE_MLA='pallas'"):
        jgn.sparse_mla(*args)
    with pytest.raises(TypeError, match="forced by JAX_GLM_NOPE_SPARSE_MLA='pallas'"):
        jgn.sparse_mla(*args, batch_invariant=True)  # the forced one does not take it
    out, lse = jgn.sparse_mla(*args, interpret=True)  # its option, now that None means pallas
    jt.assert_accurate(
        out, lse, *jt.reference_f64(case.q, case.pool, case.indices, case.topk_lens, case.sm_scale)
    )
    monkeypatch.setenv("JAX_GLM_NOPE_SPARSE_MLA", "reference")
    for a, b in zip(jgn.sparse_mla(*args), plain, strict=True):
        np.testing.assert_array_equal(np.asarray(a, np.float32), np.asarray(b, np.float32))
    monkeypatch.setenv("JAX_GLM_NOPE_WRITE_KV", "cuda")
    with pytest.raises(ValueError, match="forced by JAX_GLM_NOPE_WRITE_KV='cuda'"):
        jgn.write_kv(case.pool, jnp.ones((2, 512)), jnp.zeros((2,), jnp.int32))


@pytest.mark.parametrize(
    ("value", "pattern"),
    [
        ("triton", r"JAX_GLM_NOPE_SPARSE_MLA: unknown implementation 'triton'"),
        ("-triton", r"JAX_GLM_NOPE_SPARSE_MLA: unknown implementation 'triton'"),
        ("cuda,-pallas", r"JAX_GLM_NOPE_SPARSE_MLA: expected one implementation to force"),
        ("cuda,pallas", r"JAX_GLM_NOPE_SPARSE_MLA: expected one implementation to force"),
        ("-", r"JAX_GLM_NOPE_SPARSE_MLA: expected one implementation to force"),
        ("-cuda,,", r"JAX_GLM_NOPE_SPARSE_MLA: expected one implementation to force"),
        ("-reference", r"JAX_GLM_NOPE_SPARSE_MLA: 'reference' cannot be disabled"),
        ("CUDA", r"JAX_GLM_NOPE_SPARSE_MLA: unknown implementation 'CUDA'"),
    ],
)
def test_a_wrong_switch_is_an_error_naming_the_variable(monkeypatch, value, pattern):
    monkeypatch.setenv("JAX_GLM_NOPE_SPARSE_MLA", value)
    with pytest.raises(ValueError, match=pattern):
        _kernels(H200, _attend(), _args(8, 16))
    with pytest.raises(ValueError, match=pattern):
        jgn.sparse_mla_implementation(8, 16, 64, device=H200)
    with pytest.raises(ValueError, match=pattern):  # a named implementation reads it too
        _kernels(H200, _attend("cuda"), _args(8, 16))


def test_the_write_kv_switch(monkeypatch):
    # A function of its own: jax caches traces per function, and a switch is not part of
    # the cache key (a trace made under it would be reused by later jits of jgn.write_kv).
    write = jax.jit(lambda pool, latent, slots: jgn.write_kv(pool, latent, slots))
    args = (jnp.zeros((64, 528), jnp.uint8), jnp.ones((3, 512)), jnp.asarray([1, 5, 5], jnp.int32))
    monkeypatch.setenv("JAX_GLM_NOPE_WRITE_KV", "-cuda")
    with jgn.lowering_for(H200):
        exported = export.export(
            write, platforms=("cpu", "cuda"), disabled_checks=jgn.export_disabled_checks()
        )(*args)
    assert targets.WRITE_KV not in exported.mlir_module()
    assert jgn.write_kv_implementation(3, device=H200).implementation == "xla"
    monkeypatch.setenv("JAX_GLM_NOPE_WRITE_KV", "-xla")
    with pytest.raises(ValueError, match="JAX_GLM_NOPE_WRITE_KV: 'xla' cannot be disabled"):
        jgn.write_kv_implementation(3, device=H200)


# ---------------------------------------------------------------- the package's own examples

INTERNALS = {"dispatch", "implementations", "validate", "device", "native", "unresolved", "per_platform"}


def test_the_examples_use_only_the_public_query():
    """The examples ask ``sparse_mla_implementation`` and read ``MAX_TOKENS`` from the
    package, never the dispatch table, the implementations or the validating boundary."""
    import ast
    import pathlib

    for path in sorted((pathlib.Path(__file__).resolve().parents[1] / "examples").glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("jax_glm_nope"):
                module = (node.module or "").split(".")[1:2]
                names = set(module) | {alias.name for alias in node.names}
                assert not names & INTERNALS, (path.name, ast.unparse(node))
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "jgn"
            ):
                assert node.attr in jgn.__all__ or node.attr == "__version__", (path.name, node.attr)


def test_the_docs_print_what_the_query_prints():
    import pathlib

    text = (pathlib.Path(__file__).resolve().parents[1] / "docs" / "serving.md").read_text()
    printed = re.search(r"print\(choice\)\n```\n```\n(.*?)\n```", text, re.S).group(1)
    assert printed == str(jgn.sparse_mla_implementation(1, 64, 2176, device=H200))


@cpu_only
def test_info_reports_the_switch_and_survives_a_forced_one(monkeypatch, capsys):
    import json

    from jax_glm_nope import cli

    monkeypatch.setenv("JAX_GLM_NOPE_SPARSE_MLA", "flashinfer")
    assert cli.main(["info", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)["operations"]
    assert report["sparse_mla"]["environment"] == {"JAX_GLM_NOPE_SPARSE_MLA": "flashinfer"}
    assert report["sparse_mla"]["automatic"].startswith("error: implementation='flashinfer' cannot serve")
    assert report["write_kv"]["environment"] == {"JAX_GLM_NOPE_WRITE_KV": None}
    assert cli.main(["info"]) == 0
    assert "sparse_mla    JAX_GLM_NOPE_SPARSE_MLA='flashinfer' (docs/serving.md)" in capsys.readouterr().out


def test_the_docs_print_what_the_bucket_loop_prints(capsys):
    import pathlib

    text = (pathlib.Path(__file__).resolve().parents[1] / "docs" / "serving.md").read_text()
    code, printed = re.search(r"```python\n(H200 = .*?for T in .*?)```\n```\n(.*?)```", text, re.S).groups()
    exec(code, {"jgn": jgn})
    assert capsys.readouterr().out == printed
