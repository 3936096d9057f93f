"""A device's results page, made from its results file.

    python -m benchmarks.page docs/results/h200.json docs/h200_results.md           # write the page
    python -m benchmarks.page --check docs/results/h200.json docs/h200_results.md   # exit 1 if stale
    python -m benchmarks.page --collect RESULTS BENCH_JSON... [--suite-log LOG] [--revision REV]

A results file holds what one device measured for the code as it is:

- ``device``: the device's name, the page's title;
- ``checks``: rows of ``{"what", "result", "revision"}``, the correctness runs;
- ``runs``: ``benchmarks/bench.py``'s JSON files, each with its command and environment
  stamp, optionally ``revision`` (the tree that ran, where the device copy's git could not
  say).

``--collect`` puts the given JSON files in place of the kept runs of the same cases (and,
with ``--suite-log``, the GPU suite's check row in place of the kept one, from that log's
pytest summary); everything else stays.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys

from benchmarks.report import schedule_text

SUITE = (
    "every test marked `gpu` (the attention suite through the public API, KV rows, batch invariance, "
    "pools past 2 GiB)"
)
INVARIANT_SUFFIX = " batch_invariant"  # bench.py --batch-invariant's rows: "cuda batch_invariant"
OUT_OPTION = r"--out \S+ "  # where the device wrote the JSON: not part of the command's meaning
CASES_TITLES = {
    "k2048": "K = 2048 (decode)",
    "holes": "K = 2176 with GLM's holes (decode), and prefill",
    "full": "K = 2048 and K = 2176 with holes",
}


def _us(value: float | None) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{value:.1f}"


def _option(command: str, name: str) -> str | None:
    match = re.search(rf"{name} (\S+)", command)
    return match.group(1) if match else None


def revision(run: dict) -> str:
    env = run.get("environment", {})
    rev = run.get("revision") or (env.get("git") or "?")[:7] + ("+dirty" if env.get("git_dirty") else "")
    return rev


def _order(row: dict) -> tuple:
    return (row["mode"] != "decode", row["candidates"], row["tokens"], row["heads"])


def _cases(rows: list[dict]) -> list[str]:
    return [r["label"] for r in sorted({r["label"]: r for r in rows}.values(), key=_order)]


def _peers(rows: list[dict]) -> list[str]:
    return list(dict.fromkeys(p for r in rows for p in (r.get("vs") or {})))


def _heading(run: dict) -> list[str]:
    command = run["command"]
    cases = _option(command, "--cases") or "full"
    title = CASES_TITLES.get(cases, cases.replace(",", ", "))
    if run["settings"].get("sweep"):
        title = "Pallas: the schedule table against a sweep of schedules"
    elif run["settings"].get("batch_invariant"):
        title = "`batch_invariant=True` beside the default"
    if not any(r.get("timer") == "call" for r in run["results"]):
        title += ", kernels only"
    env = run["environment"]
    return [
        f"### {title}",
        "",
        f"`{re.sub(OUT_OPTION, '', command)}` at {revision(run)}, {env.get('time', '?')[:10]} "
        f"(jax {env['versions'].get('jax')}, driver {env.get('driver')}).",
        "",
    ]


def side_by_side(run: dict) -> list[str]:
    """One row per case: each implementation's time (us), ours against each peer, the
    worst output error of ours; rows that did not run are named below the table."""
    rows = [r for r in run["results"] if "sweep" not in r["implementation"]]
    names = list(dict.fromkeys(r["implementation"] for r in rows))
    peers = _peers(rows)
    ours = [n for n in names if n not in peers]
    by = {(r["label"], r["implementation"]): r for r in rows}
    # Whole-call rows (bench.py's default): the headline is the call under command buffers;
    # XLA's defaults and the package's kernels alone stand beside it.
    defaults = [
        n
        for n in names
        if any(r.get("call_default_us") is not None for r in rows if r["implementation"] == n)
    ]
    kernels = [
        n for n in names if any(r.get("kernels_us") is not None for r in rows if r["implementation"] == n)
    ]
    head = ["case"] + [f"`{n}`" for n in names]
    head += [f"`{n}` XLA defaults" for n in defaults] + [f"`{n}` kernels" for n in kernels]
    head += [f"`{o}` vs `{p}`" for o in ours for p in peers]
    invariant = [n for n in names if n.endswith(INVARIANT_SUFFIX) and n[: -len(INVARIANT_SUFFIX)] in names]
    head += [f"`{n}` cost" for n in invariant]
    head += ["out error (ours, worst)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    missing: dict[tuple[str, str], list[str]] = {}
    for label in _cases(rows):
        cells = [label]
        for n in names:
            r = by.get((label, n))
            ok = r is not None and r["status"] == "ok"
            cells.append(_us(r["us"]) if ok else "-")
            if r is not None and not ok:
                missing.setdefault((n, f"{r['status']}: {r['reason']}"), []).append(label)
        for key, columns in (("call_default_us", defaults), ("kernels_us", kernels)):
            for n in columns:
                r = by.get((label, n)) or {}
                cells.append(_us(r.get(key)) if r.get("status") == "ok" else "-")
        for o in ours:
            for p in peers:
                ratio = (by.get((label, o)) or {}).get("vs", {}).get(p)
                cells.append(f"{ratio:.2f}x" if ratio else "-")
        for n in invariant:
            slow, fast = (by.get((label, x)) or {} for x in (n, n[: -len(INVARIANT_SUFFIX)]))
            ok = slow.get("status") == fast.get("status") == "ok"
            cells.append(f"{slow['us'] / fast['us']:.2f}x" if ok else "-")
        errors = [by[label, o]["out_err"] for o in ours if by.get((label, o), {}).get("out_err") is not None]
        cells.append(f"{max(errors):.1e}" if errors else "-")
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    for (name, why), labels in missing.items():
        lines.append(f"- `{name}` at {', '.join(labels)}: {why}")
    lines.append(accuracy(run, names, peers))
    return lines


def accuracy(run: dict, names: list[str], peers: list[str]) -> str:
    bound = run["accuracy_bound"]["out_rel_l2"]
    parts = []
    for n in names:
        mine = [r for r in run["results"] if r["implementation"] == n and r.get("out_err") is not None]
        if not mine:
            continue
        errors = [r["out_err"] for r in mine]
        verdict = "every row within" if all(r.get("accurate") for r in mine) else "**outside**"
        parts.append(
            f"`{n}` {verdict} the accuracy bound (out relative L2 {min(errors):.1e}-{max(errors):.1e} "
            f"against {bound:g})"
        )
    return "- " + "; ".join(parts) + "." if parts else ""


def sweep(run: dict) -> list[str]:
    """Per case: the schedule the table picked when it ran, and the fastest of the sweep."""
    head = ["case", "schedule then", "us", "fastest schedule", "us", "its out error"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    rows = [r for r in run["results"] if r["status"] == "ok" and r["implementation"].startswith("pallas")]
    changed = []
    for label in _cases(rows):
        tried = [r for r in rows if r["label"] == label]
        picked = next((r for r in tried if r["implementation"] == "pallas"), None)
        best = fastest(tried)
        if picked is not None and picked["schedule"] != best["schedule"]:
            changed.append(label)
        lines.append(
            f"| {label} | {schedule_text(picked and picked['schedule'])} | {_us(picked and picked['us'])} "
            f"| {schedule_text(best['schedule'])} | {_us(best['us'])} | {best['out_err']:.1e} |"
        )
    lines.append("")
    lines.append(
        f"- {len(rows)} schedules timed; the schedule table (`choose_schedule`) picks the fastest "
        "for each case (tests/test_results_page.py checks it against this file)."
    )
    if changed:
        lines.append(
            f"- The table changed to the fastest at {', '.join(changed)} after this sweep; a "
            "side-by-side table above that ran before it times the schedule then."
        )
    return lines


def fastest(rows: list[dict]) -> dict:
    return min(rows, key=lambda r: r["us"])


def render(results: dict) -> str:
    """The page (markdown) for one results file."""
    lines = [
        f"# Measured on the {results['device']}",
        "",
        f"<!-- Generated by `python -m benchmarks.page docs/results/{results['name']}.json "
        f"docs/{results['name']}_results.md` from that file; edit the data, not this page. -->",
        "",
        "Numbers for the code as it is, through the public API. Times are device time per call in",
        "microseconds. For the package and plain JAX, the whole jitted call as a user pays it: the JAX",
        "profiler's span from the call's first device event to its last, XLA's glue (pads, broadcasts,",
        "merges, launch gaps) included, under XLA command buffers; beside it the same call under XLA's",
        "defaults and the package's kernels alone. FlashMLA (`sgl-flash-mla`, `V32_NO_ROPE` on the same",
        "528-byte rows, heads padded to 64) runs in a CUDA graph. `vs` is the peer's time over ours",
        "(> 1: ours is faster). A table whose heading says *kernels only* predates the whole-call timer:",
        "its times leave XLA's glue out and are not what a user pays. Method, cases and the accuracy",
        "check of every row: docs/benchmarks.md. The whole",
        "file, with TB/s, TFLOP/s, lse errors and the loop-timed numbers: "
        f"`docs/results/{results['name']}.json`. One command produces all of it on the GPU:",
        "`OUT=out bash scripts/h200_check.sh` (docs/benchmarks.md).",
        "",
        "## Correctness",
        "",
        "| what | result | revision |",
        "|---|---|---|",
    ]
    lines += [f"| {c['what']} | {c['result']} | {c['revision']} |" for c in results["checks"]]
    lines += ["", "## Speed", ""]
    for run in results["runs"]:
        lines += _heading(run)
        lines += sweep(run) if run["settings"].get("sweep") else side_by_side(run)
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def suite_summary(log: str) -> str | None:
    """The pytest summary line of a GPU suite log ("159 passed, 31 skipped in 334.2s")."""
    found = re.findall(r"^=*\s*(\d+ (?:passed|failed).*?(?:in [\d.]+s)?)\s*=*$", log, re.MULTILINE)
    return found[-1].strip() if found else None


def kind(run: dict) -> tuple:
    """What a run measured: its cases and whether it swept schedules."""
    cases = ",".join(sorted((_option(run["command"], "--cases") or "full").split(",")))
    return (cases, bool(run.get("settings", {}).get("sweep")))


def collect(results: dict, runs: list[dict], *, suite_log: str | None, rev: str | None) -> dict:
    """``results`` with ``runs`` in place of the kept runs of the same kind (new kinds are
    added) and, given a suite log, its suite row."""
    new = [dict(run, revision=rev) if rev else run for run in runs]
    fresh = {kind(run): run for run in new}
    kept = [fresh.pop(kind(run), run) for run in results.get("runs", [])]
    runs = kept + list(fresh.values())
    checks = list(results.get("checks", []))
    if suite_log is not None:
        summary = suite_summary(suite_log) or "no pytest summary in the log"
        checks = [c for c in checks if c["what"] != SUITE]
        ran = rev or (revision(new[0]) if new else "?")
        checks.insert(0, {"what": SUITE, "result": summary, "revision": ran})
    return dict(results, checks=checks, runs=runs)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.page", description=__doc__.splitlines()[0])
    p.add_argument("results", help="the device's results file (docs/results/<device>.json)")
    p.add_argument("files", nargs="*", help="the page to write, or with --collect the bench.json files")
    p.add_argument("--check", action="store_true", help="exit 1 when the page is stale")
    p.add_argument("--collect", action="store_true", help="put bench.json files into the results file")
    p.add_argument("--suite-log", help="with --collect: the GPU suite's log, for the suite row")
    p.add_argument("--revision", help="with --collect: the revision that ran (when the copy's git is stale)")
    args = p.parse_args(argv)
    with open(args.results) as f:
        results = json.load(f)
    if args.collect:
        runs = []
        for path in args.files:
            with open(path) as f:
                runs.append(json.load(f))
        log = None
        if args.suite_log:
            with open(args.suite_log, errors="replace") as f:
                log = f.read()
        with open(args.results, "w") as f:
            json.dump(collect(results, runs, suite_log=log, rev=args.revision), f, indent=1)
            f.write("\n")
        return 0
    if len(args.files) != 1:
        p.error("give the page to write (or to check)")
    text = render(results)
    if args.check:
        with open(args.files[0]) as f:
            if f.read() != text:
                print(
                    f"{args.files[0]} is not what {args.results} makes: run python -m benchmarks.page "
                    f"{args.results} {args.files[0]}",
                    file=sys.stderr,
                )
                return 1
        return 0
    with open(args.files[0], "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
