"""Static types of the public API: the implementation Literals and a clean mypy run."""

import subprocess
import sys
import typing
from pathlib import Path

import pytest

from jax_glm_nope import dispatch

ROOT = Path(__file__).resolve().parents[1]
PUBLIC = [
    "jax_glm_nope/__init__.py",
    "jax_glm_nope/api.py",
    "jax_glm_nope/layout.py",
    "jax_glm_nope/candidates.py",
]


@pytest.mark.parametrize(
    "operation, literal",
    [("sparse_mla", dispatch.SparseMlaImplementation), ("write_kv", dispatch.WriteKvImplementation)],
)
def test_literal_lists_the_dispatch_table(operation, literal):
    assert typing.get_args(literal) == dispatch.names(operation)


def mypy(*paths, cwd=ROOT):
    pytest.importorskip("mypy")
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--ignore-missing-imports", "--no-incremental", *paths],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


def test_public_api_is_mypy_clean():
    done = mypy(*PUBLIC)
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_rejects_an_unknown_implementation_and_sees_the_formats(tmp_path):
    user = tmp_path / "user.py"
    user.write_text(
        "import jax.numpy as jnp\n"
        "import jax_glm_nope as jgn\n"
        "fmt: jgn.RowFormat = jgn.RowFormat.COMPACT\n"
        "pool = jnp.zeros((4, fmt.bytes_per_token), jnp.uint8)\n"
        "q = jnp.zeros((1, 1, 512), jnp.bfloat16)\n"
        "indices = jnp.zeros((1, 1), jnp.int32)\n"
        "jgn.sparse_mla(q, pool, indices, 1 / 16, implementation='pallas')\n"
        "jgn.sparse_mla(q, pool, indices, 1 / 16, implementation='triton')\n"
        "jgn.write_kv(pool, q[:, 0], indices[:, 0], implementation='ffi')\n"
    )
    done = mypy(str(user), cwd=ROOT)
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 2, done.stdout
    assert "user.py:8:" in errors[0] and "implementation" in errors[0]
    assert "user.py:9:" in errors[1] and "implementation" in errors[1]
