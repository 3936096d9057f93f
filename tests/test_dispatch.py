"""The dispatch boundary: renamed keywords, the Pallas schedule option, one call from
the public API into the tables, and one home for the ``cuda`` threshold."""

from __future__ import annotations

import ast
import pathlib

import jax
import jax.numpy as jnp
import pytest

import jax_glm_nope as jgn
from jax_glm_nope import dispatch
from jax_glm_nope.implementations.pallas import Schedule, choose_schedule

ROOT = pathlib.Path(__file__).resolve().parents[1]
Q = jnp.zeros((2, 8, 512), jnp.bfloat16)
POOL = jnp.zeros((16, 528), jnp.uint8)
IDX = jnp.zeros((2, 4), jnp.int32)


@pytest.mark.parametrize("value", ["auto", "pallas", "reference"])
def test_backend_was_renamed_implementation(value):
    with pytest.raises(TypeError, match=r"sparse_mla\(\): backend= was renamed implementation= in 0\.2\.0"):
        jgn.sparse_mla(Q, POOL, IDX, 0.1, backend=value)
    with pytest.raises(TypeError, match=r"write_kv\(\): backend= was renamed implementation= in 0\.2\.0"):
        jgn.write_kv(POOL, jnp.zeros((2, 512)), jnp.zeros((2,), jnp.int32), backend=value)


def test_unknown_keywords_are_named_with_the_accepted_ones():
    latent, slots = jnp.zeros((2, 512)), jnp.zeros((2,), jnp.int32)
    pattern = r"write_kv\(\) got an unexpected keyword argument 'fast' \(its keywords: implementation\)"
    for implementation in (None, "xla"):
        with pytest.raises(TypeError, match=pattern):
            jgn.write_kv(POOL, latent, slots, implementation=implementation, fast=True)
    pattern = (
        r"sparse_mla\(\) got an unexpected keyword argument 'fast' \(its keywords: implementation, "
        r"batch_invariant, interpret, schedule\)"
    )
    for implementation in (None, "reference", "pallas"):
        with pytest.raises(TypeError, match=pattern):
            jgn.sparse_mla(Q, POOL, IDX, 0.1, implementation=implementation, fast=True)


def _pallas(schedule):
    return jgn.sparse_mla(Q, POOL, IDX, 0.1, implementation="pallas", interpret=True, schedule=schedule)


@pytest.mark.parametrize(
    ("schedule", "error", "pattern"),
    [
        ("fast", TypeError, r"schedule: expected None or a .*Schedule, got str 'fast'"),
        (4, TypeError, "schedule: expected None or a .*Schedule, got int"),
        ({"block_h": 16}, TypeError, "schedule: expected None or a .*Schedule, got dict"),
        (Schedule(16, 0, 1, 4, 2), ValueError, "schedule.block_k: expected a positive int, got 0"),
        (Schedule(16, 64, 0, 4, 2), ValueError, "schedule.num_splits: expected a positive int, got 0"),
        (Schedule(16, -64, 1, 4, 2), ValueError, "schedule.block_k: expected a positive int, got -64"),
        (Schedule(16, 64, 1, 4.0, 2), TypeError, "schedule.num_warps: expected an int, got float"),
        (Schedule(True, 64, 1, 4, 2), TypeError, "schedule.block_h: expected an int, got bool"),
        (
            Schedule(16, 64, 1, 4, 2, candidates_major=1),
            TypeError,
            "schedule.candidates_major: expected a bool",
        ),
    ],
)
def test_schedule_is_validated_at_the_boundary(schedule, error, pattern):
    with pytest.raises(error, match=pattern):
        _pallas(schedule)


def test_a_valid_schedule_serves():
    out, lse = _pallas(choose_schedule(2, 8, 4))
    assert out.shape == (2, 8, 512) and lse.shape == (2, 8)


def test_schedule_needs_pallas_named():
    with pytest.raises(TypeError, match=r"options \['schedule'\] belong to one implementation"):
        jgn.sparse_mla(Q, POOL, IDX, 0.1, schedule=choose_schedule(2, 8, 4))


def test_the_public_api_makes_one_call_into_dispatch():
    """api.py validates, normalises and calls ``dispatch.call`` once per operation: the
    choice and the run stay together, and no implementation is named there."""
    source = (ROOT / "jax_glm_nope" / "api.py").read_text()
    tree = ast.parse(source)
    for function in (n for n in tree.body if isinstance(n, ast.FunctionDef)):
        calls = [
            node.func.attr
            for node in ast.walk(function)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "dispatch"
        ]
        assert calls in ([], ["call"]), (function.name, calls)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.FunctionDef)) and isinstance(node.body[0], ast.Expr)
    }
    strings = {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    }
    implementations = {name for table in dispatch.TABLES for name in dispatch.names(table)}
    assert not strings & implementations, strings & implementations


# ---------------------------------------------------------------- one decision per call


@pytest.fixture
def counted(monkeypatch):
    """Counts the reads of the environment switch and the passes over a dispatch table."""
    from jax_glm_nope import environment
    from jax_glm_nope.dispatch import decision

    counts = {"reads": 0, "passes": 0}
    read, single_pass = environment.switch, decision._pass

    def counting_read(*args):
        counts["reads"] += 1
        return read(*args)

    def counting_pass(*args):
        counts["passes"] += 1
        return single_pass(*args)

    monkeypatch.setattr(environment, "switch", counting_read)
    monkeypatch.setattr(decision, "_pass", counting_pass)

    def take():
        taken = dict(counts)
        counts.update(reads=0, passes=0)
        return taken

    return take


H200 = jgn.Device("cuda", "NVIDIA H200", (9, 0), 132)


def _export(fn, *specs):
    with jgn.lowering_for(H200):
        checks = jgn.export_disabled_checks()
        jax.export.export(jax.jit(fn), platforms=("cpu", "cuda"), disabled_checks=checks)(*specs)


def test_a_call_reads_the_switch_once_and_decides_once(counted, monkeypatch):
    monkeypatch.delenv("JAX_GLM_NOPE_SPARSE_MLA", raising=False)
    pool = jnp.zeros((16, 528), jnp.uint8)
    jgn.sparse_mla(Q, pool, IDX, 0.1)
    assert counted() == {"reads": 1, "passes": 1}
    jgn.sparse_mla(Q, pool, IDX, 0.1, implementation="pallas", interpret=True)
    assert counted() == {"reads": 1, "passes": 1}
    jgn.write_kv(pool, jnp.zeros((2, 512)), jnp.zeros((2,), jnp.int32))
    assert counted() == {"reads": 1, "passes": 1}
    jgn.sparse_mla_implementation(64, 16, 2176, device=H200)
    assert counted() == {"reads": 1, "passes": 1}
    specs = [jax.ShapeDtypeStruct(x.shape, x.dtype) for x in (jnp.zeros((64, 16, 512), jnp.bfloat16), pool)]
    specs.append(jax.ShapeDtypeStruct((64, 128), jnp.int32))
    # A kernel chosen for another machine's GPU, lowered per platform: still one decision.
    _export(lambda q, p, i: jgn.sparse_mla(q, p, i, 0.1), *specs)
    assert counted() == {"reads": 1, "passes": 1}


def test_vmap_decides_again_only_for_the_folded_shapes(counted):
    """Eight vmapped one-token decodes are one eight-token call: the table is asked again
    for those shapes (cuda from CUDA_MIN_TOKENS), the environment is not read again."""
    batched = [
        jax.ShapeDtypeStruct((8, 1, 16, 512), jnp.bfloat16),
        jax.ShapeDtypeStruct((8, 16, 528), jnp.uint8),
        jax.ShapeDtypeStruct((8, 1, 128), jnp.int32),
    ]
    _export(jax.vmap(lambda q, p, i: jgn.sparse_mla(q, p, i, 0.1)), *batched)
    assert counted() == {"reads": 1, "passes": 2}


def test_no_implementation_reads_the_ambient_device():
    """Implementations and the native library run on the device the decision names: none
    asks for the current device or the lowering context itself."""
    package = ROOT / "jax_glm_nope"
    for path in sorted([*(package / "implementations").rglob("*.py"), *(package / "native").rglob("*.py")]):
        tree = ast.parse(path.read_text())
        read = {
            node.attr
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr in ("current", "lowering_target")
        }
        assert not read, (path.relative_to(ROOT), read)
