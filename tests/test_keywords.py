"""The keywords of ``sparse_mla`` and ``write_kv``: named, typed, documented and checked
at the boundary under every implementation, ``None`` included."""

from __future__ import annotations

import inspect
import pathlib
import pydoc

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jax_glm_nope as jgn
from jax_glm_nope import dispatch

ROOT = pathlib.Path(__file__).resolve().parents[1]
Q = jnp.zeros((2, 8, 512), jnp.bfloat16)
POOL = jnp.zeros((16, 528), jnp.uint8)
IDX = jnp.zeros((2, 4), jnp.int32)
# Everything an `if batch_invariant:` would read as True or False, none of them a bool.
NOT_BOOLS = ["no", "False", "", 1, 0, 2.5, None, [], np.int32(1), jnp.asarray(True)]


@pytest.mark.parametrize("value", NOT_BOOLS, ids=repr)
@pytest.mark.parametrize("implementation", [None, *dispatch.names("sparse_mla")])
def test_batch_invariant_must_be_a_bool_under_every_implementation(implementation, value):
    with pytest.raises(TypeError, match=r"batch_invariant: expected a bool \(True or False\), got"):
        jgn.sparse_mla(Q, POOL, IDX, 0.1, implementation=implementation, batch_invariant=value)


@pytest.mark.parametrize("value", NOT_BOOLS, ids=repr)
def test_interpret_must_be_a_bool(value):
    with pytest.raises(TypeError, match=r"interpret: expected a bool \(True or False\), got"):
        jgn.sparse_mla(Q, POOL, IDX, 0.1, implementation="pallas", interpret=value)


@pytest.mark.parametrize("value", [False, np.bool_(False)])
@pytest.mark.parametrize("implementation", [None, "reference"])
def test_the_defaults_spelled_out_change_nothing(implementation, value):
    """``batch_invariant=False``, ``interpret=False`` and ``schedule=None`` are the
    defaults: passing them is not asking an implementation for an option."""
    plain = jgn.sparse_mla(Q, POOL, IDX, 0.1, implementation=implementation)
    spelled = jgn.sparse_mla(
        Q,
        POOL,
        IDX,
        0.1,
        implementation=implementation,
        batch_invariant=value,
        interpret=value,
        schedule=None,
    )
    for a, b in zip(spelled, plain, strict=True):
        np.testing.assert_array_equal(np.asarray(a, np.float32), np.asarray(b, np.float32))


@pytest.mark.skipif(jax.default_backend() != "cpu", reason="no implementation honours it on the CPU")
def test_batch_invariant_true_is_honoured_or_refused():
    with pytest.raises(
        ValueError, match=r"batch_invariant=True\) with implementation=None: no implementation"
    ):
        jgn.sparse_mla(Q, POOL, IDX, 0.1, batch_invariant=np.bool_(True))
    with pytest.raises(
        TypeError, match="option 'batch_invariant' is not accepted by implementation='reference'"
    ):
        jgn.sparse_mla(Q, POOL, IDX, 0.1, implementation="reference", batch_invariant=True)


@pytest.mark.parametrize("implementation", [None, "reference", "pallas"])
def test_precision_says_there_is_no_such_knob_and_why(implementation):
    with pytest.raises(
        TypeError, match=r"sparse_mla\(\) has no precision= keyword: .*the fast path is the exact one"
    ):
        jgn.sparse_mla(Q, POOL, IDX, 0.1, implementation=implementation, precision="highest")
    with pytest.raises(TypeError, match=r"write_kv\(\) has no precision= keyword: quantization is exact"):
        jgn.write_kv(
            POOL, jnp.zeros((2, 512)), jnp.zeros((2,), jnp.int32), precision=jax.lax.Precision.HIGHEST
        )


def test_the_keywords_are_in_the_signature_and_the_docs():
    parameters = inspect.signature(jgn.sparse_mla).parameters
    for name, default, annotation in [
        ("implementation", None, "SparseMlaImplementation | None"),
        ("batch_invariant", False, "bool"),
        ("interpret", False, "bool"),
        ("schedule", None, "Schedule | None"),
    ]:
        parameter = parameters[name]
        assert parameter.kind is inspect.Parameter.KEYWORD_ONLY
        assert parameter.default is default and parameter.annotation == annotation, parameter
    assert (
        parameters["q"].annotation == "ArrayLike" and parameters["topk_lens"].annotation == "ArrayLike | None"
    )
    text = pydoc.render_doc(jgn.sparse_mla, renderer=pydoc.plaintext)
    for name in ("batch_invariant", "interpret", "schedule", "precision", "JAX_GLM_NOPE_SPARSE_MLA"):
        assert name in text, name
    readme = (ROOT / "README.md").read_text()
    for name in ("batch_invariant", "interpret=True", "schedule=", "precision=", "JAX_GLM_NOPE_SPARSE_MLA"):
        assert name in readme, name
