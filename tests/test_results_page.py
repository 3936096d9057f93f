"""The results page is made from the kept results file, and the schedule table agrees
with the sweep that file holds."""

import dataclasses
import json
import os

import pytest

from benchmarks import page
from jax_glm_nope.implementations.pallas import choose_schedule

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEVICES = ["h200", "h100"]
SWEPT = ["h200"]  # the device whose sweep the schedule table was measured on
pytestmark = pytest.mark.skipif(not os.path.isdir(os.path.join(ROOT, "docs")), reason="not a checkout")


def _results(name: str) -> dict:
    with open(os.path.join(ROOT, "docs", "results", f"{name}.json")) as f:
        return json.load(f)


@pytest.mark.parametrize("name", DEVICES)
def test_the_committed_page_is_what_its_results_file_makes(name):
    with open(os.path.join(ROOT, "docs", f"{name}_results.md")) as f:
        committed = f.read()
    assert committed == page.render(_results(name)), (
        f"docs/{name}_results.md is stale: "
        f"python -m benchmarks.page docs/results/{name}.json docs/{name}_results.md"
    )


@pytest.mark.parametrize("name", DEVICES)
def test_every_run_is_stamped(name):
    results = _results(name)
    assert results["name"] == name and results["runs"]
    assert results["checks"][0]["what"] == page.SUITE  # the row the one GPU command's suite log replaces
    for run in results["runs"]:
        env = run["environment"]
        assert env["device"] == results["device"] and env["versions"]["jax"] and env["time"]
        assert page.revision(run) != "?"
        assert run["results"] and all(r["status"] == "ok" or r["reason"] for r in run["results"])


@pytest.mark.parametrize("name", SWEPT)
def test_the_schedule_table_picks_the_fastest_swept_schedule(name):
    results = _results(name)
    sweeps = [run for run in results["runs"] if run["settings"].get("sweep")]
    assert sweeps, "the results file holds the sweep that justifies the single-token schedules"
    for run in sweeps:
        rows = [r for r in run["results"] if r["status"] == "ok" and r["implementation"].startswith("pallas")]
        for label in {r["label"] for r in rows}:
            best = page.fastest([r for r in rows if r["label"] == label])
            chosen = choose_schedule(best["tokens"], best["heads"], best["candidates"])
            assert dataclasses.asdict(chosen) == best["schedule"], label


def test_collect_replaces_the_runs_of_the_same_cases_and_the_suite_row_and_keeps_the_rest():
    other = {"what": "export round trip", "result": "passed", "revision": "abc1234"}
    suite = {"what": page.SUITE, "result": "old", "revision": "0"}
    old = {"name": "x", "device": "GPU", "checks": [suite, other]}
    run = {"command": "bench.py --cases k2048", "environment": {"git": "f" * 40, "git_dirty": False}}
    log = "....\n=========== 159 passed, 31 skipped in 334.20s (0:05:34) ===========\n"
    holes = {"command": "bench.py --cases holes", "environment": {}, "revision": "1"}
    k2048 = dict(run, revision="0")
    new = page.collect(dict(old, runs=[k2048, holes]), [run], suite_log=log, rev=None)
    assert new["runs"] == [run, holes] and new["device"] == "GPU"
    assert new["checks"] == [
        {"what": page.SUITE, "result": "159 passed, 31 skipped in 334.20s (0:05:34)", "revision": "fffffff"},
        other,
    ]
    pinned = page.collect(old, [run], suite_log="no summary", rev="1234567")
    assert pinned["runs"] == [dict(run, revision="1234567")]
    assert pinned["checks"][0]["result"] == "no pytest summary in the log"


def test_the_command_checks_and_writes(tmp_path):
    results = os.path.join(ROOT, "docs", "results", "h200.json")
    stale = tmp_path / "page.md"
    stale.write_text("old\n")
    assert page.main(["--check", results, str(stale)]) == 1
    assert page.main([results, str(stale)]) == 0
    assert page.main(["--check", results, str(stale)]) == 0


def test_batch_invariant_rows_get_their_cost_beside_the_default():
    def row(name, us, status="ok"):
        return {
            "label": "decode T=1 H=8 K=64", "implementation": name, "status": status, "us": us,
            "out_err": 1e-3, "accurate": True, "mode": "decode", "tokens": 1, "heads": 8, "candidates": 64,
            "reason": "r",
        }  # fmt: skip

    run = {
        "command": "bench.py --implementation cuda --batch-invariant --cases decode:1:8:64",
        "settings": {"batch_invariant": True},
        "environment": {"git": "f" * 40, "versions": {}},
        "accuracy_bound": {"out_rel_l2": 5e-3},
        "results": [row("cuda", 10.0), row("cuda batch_invariant", 16.0)],
    }
    lines = page.side_by_side(run)
    assert "`cuda batch_invariant` cost" in lines[0] and "| 1.60x |" in lines[2]
    # rows timed by the kernels' span alone (no whole-call timer) say so in the heading
    assert page._heading(run)[0] == "### `batch_invariant=True` beside the default, kernels only"
    for r in run["results"]:
        r["timer"] = "call"
    assert page._heading(run)[0] == "### `batch_invariant=True` beside the default"
    run["results"][1] = row("cuda batch_invariant", None, status="failed")
    assert page.side_by_side(run)[2].endswith("| - | - | 1.0e-03 |")
