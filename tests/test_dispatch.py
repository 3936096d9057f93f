"""The dispatch boundary: renamed keywords, the Pallas schedule option, one call from
the public API into the tables, and one home for the ``cuda`` threshold."""

from __future__ import annotations

import ast
import pathlib

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
