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


# The keywords and argument types of the public API as mypy reads them: numpy arrays where
# jax arrays are accepted, the typed keywords (a truthy non-bool is an error), no precision=,
# and what lowering_for, export_disabled_checks and the dispatch query give.
KEYWORDS_SCRIPT = (
    "import numpy as np\n"
    "import ml_dtypes\n"
    "import jax_glm_nope as jgn\n"
    "q = np.zeros((1, 1, 512), ml_dtypes.bfloat16)\n"
    "pool = np.zeros((4, 528), np.uint8)\n"
    "indices = np.zeros((1, 1), np.int32)\n"
    "out, lse = jgn.sparse_mla(q, pool, indices, 1 / 16, np.ones(1, np.int32), batch_invariant=True)\n"
    "jgn.sparse_mla(q, pool, indices, 1 / 16, implementation='pallas', interpret=True, schedule=None)\n"
    "jgn.write_kv(pool, np.zeros((1, 512), np.float32), np.zeros(1, np.int32))\n"
    "jgn.dequantize(pool)\n"
    "jgn.pad_candidates(indices), jgn.mask_holes(indices, 4), jgn.stacked_slots(indices, 1, 8)\n"
    "jgn.block_tables_to_slots(indices, indices[0], indices[0], 4)\n"
    "jgn.to_slots(indices, indices, indices[0])\n"
    "H200 = jgn.Device('cuda', 'NVIDIA H200', (9, 0), 132)\n"
    "with jgn.lowering_for(H200) as record:\n"
    "    reveal_type(record)\n"
    "reveal_type(jgn.export_disabled_checks())\n"
    "reveal_type(jgn.sparse_mla_implementation(1, 8, 2048, device=H200).implementation)\n"
    "reveal_type(jgn.ragged_inputs(indices[0], indices[0], indices, req_to_token=indices).indices)\n"
    "jgn.sparse_mla(q, pool, indices, 1 / 16, batch_invariant='no')\n"
    "jgn.sparse_mla(q, pool, indices, 1 / 16, interpret=1)\n"
    "jgn.sparse_mla(q, pool, indices, 1 / 16, precision='highest')\n"
    "jgn.write_kv(pool, q[:, 0], indices[:, 0], fast=True)\n"
)


@pytest.fixture(scope="module")
def mypy_errors(tmp_path_factory) -> dict[str, list[str]]:
    """``mypy jax_glm_nope`` and two user scripts in one run (most of mypy's time is
    reading jax), its error lines by file: ``"package"``, ``"user"`` or ``"keywords"``
    (whose ``reveal_type`` notes are under ``"keywords notes"``)."""
    folder = tmp_path_factory.mktemp("typing")
    user, keywords = folder / "user.py", folder / "keywords.py"
    user.write_text(USER_SCRIPT)
    keywords.write_text(KEYWORDS_SCRIPT)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "jax_glm_nope", str(user), str(keywords)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert "error: " in done.stdout or done.returncode == 0, done.stdout + done.stderr  # mypy ran
    errors: dict[str, list[str]] = {"package": [], "user": [], "keywords": [], "keywords notes": []}
    for line in done.stdout.splitlines():
        if ": error:" in line:
            if line.startswith(str(user)):
                errors["user"].append(line)
            elif line.startswith(str(keywords)):
                errors["keywords"].append(line)
            else:
                errors["package"].append(line)
        elif line.startswith(str(keywords)) and "Revealed type" in line:
            errors["keywords notes"].append(line)
    return errors


def test_the_package_is_mypy_clean(mypy_errors):
    assert mypy_errors["package"] == []


def test_mypy_rejects_an_unknown_implementation_and_sees_the_formats(mypy_errors):
    errors = mypy_errors["user"]
    assert len(errors) == 2, errors
    assert "user.py:8:" in errors[0] and "implementation" in errors[0]
    assert "user.py:9:" in errors[1] and "implementation" in errors[1]


def test_mypy_reads_the_keywords_and_array_types(mypy_errors):
    errors = mypy_errors["keywords"]
    lines = [int(error.split(":")[1]) for error in errors]
    assert lines == [20, 21, 22, 23], errors  # numpy arrays and the typed keywords pass
    assert '"batch_invariant"' in errors[0] and '"bool"' in errors[0]
    assert '"interpret"' in errors[1] and '"bool"' in errors[1]
    assert '"precision"' in errors[2] and '"fast"' in errors[3]
    notes = [note.split("Revealed type is ", 1)[1] for note in mypy_errors["keywords notes"]]
    expected = ["jax_glm_nope.device.Device", "list[jax.", "str", "Array"]  # mypy's spelling varies
    assert len(notes) == len(expected) and all(
        want in note for want, note in zip(expected, notes, strict=True)
    ), notes
    assert notes[1].endswith('.DisabledSafetyCheck]"') and not any("Any" in note for note in notes), notes
