"""Static types: the implementation Literals, a clean ``mypy jax_glm_nope``, and what mypy
tells a user of the public API."""

import subprocess
import sys
import typing
from pathlib import Path

import pytest

from jax_glm_nope import dispatch

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "operation, literal",
    [("sparse_mla", dispatch.SparseMlaImplementation), ("write_kv", dispatch.WriteKvImplementation)],
)
def test_literal_lists_the_dispatch_table(operation, literal):
    assert typing.get_args(literal) == dispatch.names(operation)


USER_SCRIPT = (
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


@pytest.fixture(scope="module")
def mypy_errors(tmp_path_factory) -> dict[str, list[str]]:
    """``mypy jax_glm_nope`` and a user's script in one run (most of mypy's time is
    reading jax), its error lines by file: ``"package"`` or ``"user"``."""
    user = tmp_path_factory.mktemp("typing") / "user.py"
    user.write_text(USER_SCRIPT)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "jax_glm_nope", str(user)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert "error: " in done.stdout or done.returncode == 0, done.stdout + done.stderr  # mypy ran
    errors: dict[str, list[str]] = {"package": [], "user": []}
    for line in done.stdout.splitlines():
        if ": error:" in line:
            errors["user" if line.startswith(str(user)) else "package"].append(line)
    return errors


def test_the_package_is_mypy_clean(mypy_errors):
    assert mypy_errors["package"] == []


def test_mypy_rejects_an_unknown_implementation_and_sees_the_formats(mypy_errors):
    errors = mypy_errors["user"]
    assert len(errors) == 2, errors
    assert "user.py:8:" in errors[0] and "implementation" in errors[0]
    assert "user.py:9:" in errors[1] and "implementation" in errors[1]
