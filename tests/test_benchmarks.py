"""The benchmark harness (benchmarks/) on the CPU: a smoke run through the Pallas
interpreter with strict JSON, clean errors for bad arguments, and no torch in the package."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks" / "bench.py"
sys.path.insert(0, str(ROOT))

from benchmarks import bench, cases  # noqa: E402


def _run(*args: str, extra_env: dict | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"} | {"JAX_PLATFORMS": "cpu"}
    return subprocess.run(
        [sys.executable, str(BENCH), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=env | (extra_env or {}),
    )


def _strict_json(text: str):
    def reject(constant):
        raise ValueError(f"non-standard JSON constant {constant}")

    return json.loads(text, parse_constant=reject)


def test_cpu_smoke_run_json(tmp_path):
    done = _run(
        "--implementation", "reference", "pallas", "cuda", "flashmla", "--interpret",
        "--cases", "decode:2:8:64,decode:1:16:71:holes",
        "--rotations", "2", "--rounds", "2", "--min-round-ms", "1",
        "--json", "--out", str(tmp_path),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    result = _strict_json(done.stdout)
    assert result == _strict_json((tmp_path / "bench.json").read_text())
    env = result["environment"]
    assert env["jax_backend"] == "cpu" and env["versions"]["jax"] and "git" in env
    assert result["settings"]["interpret"] is True
    rows = result["results"]
    names = ["reference", "pallas", "cuda", "flashmla"]
    assert [(r["case"], r["implementation"]) for r in rows] == [
        (case, name) for case in ("decode:2:8:64", "decode:1:16:71:holes") for name in names
    ]
    # The CPU has neither the CUDA kernels nor FlashMLA: reported with the reason, not raised.
    assert all(r["status"] == "unavailable" and r["reason"] for r in rows if r["implementation"] in names[2:])
    rows = [r for r in rows if r["implementation"] in names[:2]]
    for r in rows:
        assert r["status"] == "ok", r
        assert r["accurate"] is True and r["nonfinite"] == 0
        assert 0 < r["out_err"] <= 5e-3 and 0 <= r["lse_err"] <= 1e-2  # bf16 out: never exactly 0
        assert r["accuracy_tokens"] == r["tokens"]
        assert math.isfinite(r["us"]) and r["us"] > 0 and len(r["rounds_us"]) == 2
        assert r["tb_s"] > 0 and r["tflop_s"] > 0
    holes = rows[2]
    assert holes["rotations"] == 2 and holes["active_per_token"] <= 71  # holes are never counted
    assert rows[1]["schedule"]["block_h"] == 16  # the dispatch table's schedule is recorded
    assert "| decode T=2 H=8 K=64 | pallas |" in done.stderr  # the table


@pytest.mark.parametrize(
    "args, message",
    [
        (["--cases", "decode:1:0:64"], "H: expected 1..128 heads, got 0"),
        (["--cases", "decode:0:8:64"], "T: expected at least 1"),
        (["--cases", "decode:1:8"], "expected mode:T:H:K"),
        (["--cases", "decode:1:8:x"], "K must be an integer"),
        (["--cases", "verify:1:8:64"], "mode: expected one of"),
        (["--cases", "decode:1:8:64:holez"], "expected mode:T:H:K"),
        (["--cases", "decode:1:8:4:holes"], "at least 7 columns"),
        (["--cases", ","], "cases or presets"),
        (["--rounds", "0"], "--rounds: expected a positive integer, got 0"),
        (["--rotations", "-1"], "--rotations: expected a positive integer"),
        (["--pool-slots", "1000"], "multiple of 64"),
        (["--min-round-ms", "0"], "positive number"),
        (["--implementation", "triton"], "invalid choice"),
    ],
)
def test_bad_arguments_name_the_problem(args, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        bench.parser().parse_args(args)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_bad_case_from_the_command_line_has_no_traceback():
    done = _run("--interpret", "--cases", "decode:1:0:64")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "H: expected 1..128 heads, got 0" in done.stderr


def test_sweep_needs_pallas():
    assert bench.main(["--interpret", "--sweep", "--implementation", "reference"]) == 2


def test_cases_round_trip_and_defaults():
    for case in cases.default_cases():
        assert cases.parse_case(case.spec) == case
    full = cases.default_cases()
    assert len(full) == 4 * 5 * 2 + 2 and len(set(full)) == len(full)
    assert cases.parse_cases("decode:1:8:64,decode:1:8:64") == [cases.Case("decode", 1, 8, 64)]
    assert cases.parse_cases("k2048,holes") == full and cases.parse_cases("full") == full
    assert len(cases.parse_cases("quick")) == 9
    assert (
        cases.Case("decode", 128, 8, 2048).flops(2048) == 128 * 8 * 2 * 2 * 512 * 2048
    )  # 4.19 MFLOP x H per token
    assert cases.Case("decode", 1, 8, 2048).io_bytes(2048) == 2048 * 528 + 2 * 8 * 512 * 2


def test_hopper_presets_are_both_issues_matrices():
    decode = {
        (c.tokens, c.heads, c.candidates, c.holes)
        for c in cases.parse_cases("hopper-k2048,hopper-holes")
        if c.mode == "decode"
    }
    assert decode == {
        (b, h, k, k == 2176) for b in (1, 8, 32, 128) for h in (8, 16, 24, 32, 64, 128) for k in (2048, 2176)
    }
    prefill = [c for c in cases.parse_cases("hopper-holes") if c.mode == "prefill"]
    assert [(c.tokens, c.heads, c.candidates, c.holes) for c in prefill] == [
        (4096, h, 2176, True) for h in (16, 32, 64, 128)
    ]


def test_inputs_glm_rows_and_rotations():
    case = cases.Case("decode", 3, 8, 2176, holes=True)
    assert cases.default_rotations(case) > 10  # b=3: many index sets so calls miss L2
    assert cases.default_rotations(cases.Case("prefill", 4096, 64, 2176, True)) == cases.MIN_ROTATIONS
    inputs = cases.make_inputs(case, 1 << 14, rotations=4)
    indices, lens = np.asarray(inputs.indices), np.asarray(inputs.topk_lens)
    assert indices.shape == (4, 3, 2176) and lens.shape == (4, 3)
    assert (indices[..., 2051:] == -1).all() and (lens <= 2051).all()
    groups = indices[..., :2048].reshape(4, 3, 512, 4)
    present = groups[..., 0] >= 0
    assert (np.diff(groups[present], axis=-1) == 1).all()  # a pool group is 4 consecutive slots
    assert not (indices[0] == indices[1]).all()  # the rotations differ
    assert np.asarray(inputs.q).dtype.name == "bfloat16"


def test_package_import_pulls_no_torch(tmp_path):
    """``import jax_glm_nope`` (and every submodule, and the harness without a torch peer)
    must work where importing torch, triton or flash_mla fails."""
    for name in ("torch", "triton", "flash_mla"):
        (tmp_path / f"{name}.py").write_text(f"raise ImportError('{name} was imported')\n")
    code = (
        "import pkgutil, importlib, jax_glm_nope\n"
        "for m in pkgutil.walk_packages(jax_glm_nope.__path__, 'jax_glm_nope.'):\n"
        "    importlib.import_module(m.name)\n"
        "import benchmarks.bench\n"
    )
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
