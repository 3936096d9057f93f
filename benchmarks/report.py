"""What a run leaves behind: a markdown table, a JSON file with an environment stamp,
and a plot (when matplotlib is installed)."""

from __future__ import annotations

import importlib.metadata
import json
import math
import os
import platform
import subprocess
import time

import jax

PACKAGES = ("jax", "jaxlib", "jax-cuda13-plugin", "jax-glm-nope", "numpy", "torch", "triton", "sgl-flash-mla")


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _command(*argv: str, cwd: str | None = None) -> str | None:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=30, cwd=cwd)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def environment() -> dict:
    """GPU, driver, package versions (read from metadata: nothing is imported) and git."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    gpu = _command("nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader")
    name, driver = (gpu.splitlines()[0].split(", ", 1) + [None])[:2] if gpu else (None, None)
    status = _command("git", "status", "--porcelain", "--untracked-files=no", cwd=root)
    return {
        "jax_backend": jax.default_backend(),
        "device": jax.devices()[0].device_kind,
        "gpu": name,
        "driver": driver,
        "versions": {"python": platform.python_version()} | {p: _version(p) for p in PACKAGES},
        "git": _command("git", "rev-parse", "HEAD", cwd=root),
        "git_dirty": None if status is None else bool(status),
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def strict(value):
    """JSON without NaN/Infinity: non-finite floats become None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: strict(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [strict(v) for v in value]
    return value


def write_json(result: dict, path: str) -> None:
    temporary = path + ".tmp"
    with open(temporary, "w") as f:
        json.dump(strict(result), f, indent=1, allow_nan=False)
        f.write("\n")
    os.replace(temporary, path)  # a run killed mid-write leaves the previous case's file


def dumps(result: dict) -> str:
    return json.dumps(strict(result), indent=1, allow_nan=False)


def schedule_text(schedule: dict | None) -> str:
    if not schedule:
        return "-"
    flags = ("+cm" if schedule.get("candidates_major") else "") + ("+pf" if schedule.get("prefetch") else "")
    return (
        f"h{schedule['block_h']} k{schedule['block_k']} s{schedule['num_splits']} "
        f"w{schedule['num_warps']} st{schedule['num_stages']}{flags}"
    )


def _number(value, spec: str) -> str:
    return "-" if value is None or not math.isfinite(value) else format(value, spec)


TIMERS = {"profiler": "profiler", "loop": "loop", "cuda_graph": "graph"}
REASON_CHARS = 200  # a reason's length in the table (the JSON keeps all of it)


def table(rows: list[dict], peers: list[str]) -> str:
    """One line per (case, implementation); ``us`` is the row's timer's (profiler: our kernels'
    span per call; loop: the jitted loop; graph: a CUDA graph), ``loop us`` the jitted loop's;
    ``vs X`` = X's time / this time (> 1: faster than X)."""
    head = ["case", "implementation", "schedule", "timer", "us", "loop us", "TB/s", "TFLOP/s"]
    head += [f"vs {p}" for p in peers] + ["out err", "lse err", "bound"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        if r["status"] not in ("ok", "untimed"):
            cells = [r["label"], r["implementation"], "-", "-", f"{r['status']}: {r['reason']}"]
            cells += ["-"] * (len(head) - len(cells))
        else:
            timed = r["status"] == "ok"
            cells = [
                r["label"],
                r["implementation"],
                schedule_text(r.get("schedule")),
                TIMERS.get(r["timer"], r["timer"]),
                _number(r["us"], ".1f") if timed else f"untimed: {r['reason'][:REASON_CHARS]}",
                _number(r.get("loop_us"), ".1f"),
                _number(r["tb_s"], ".2f"),
                _number(r["tflop_s"], ".1f"),
            ]
            vs = r.get("vs", {})
            cells += [_number(vs.get(p), ".2f") + ("x" if vs.get(p) else "") for p in peers]
            cells += [
                _number(r["out_err"], ".1e"),
                _number(r["lse_err"], ".1e"),
                "ok" if r["accurate"] else "**FAIL**",
            ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(rows: list[dict], path: str, title: str) -> None:
    """Bars of device time per case and implementation (log scale); needs matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    timed = [r for r in rows if r["status"] == "ok" and "sweep" not in r["implementation"]]
    labels = list(dict.fromkeys(r["label"] for r in timed))
    names = list(dict.fromkeys(r["implementation"] for r in timed))
    us = {(r["label"], r["implementation"]): r["us"] for r in timed}
    width = 0.8 / max(1, len(names))
    fig, ax = plt.subplots(figsize=(max(10, len(labels) * 0.5), 5))
    x = np.arange(len(labels))
    for n, name in enumerate(names):
        values = [us.get((label, name)) or np.nan for label in labels]
        ax.bar(x + (n - (len(names) - 1) / 2) * width, values, width, label=name)
    ax.set_yscale("log")
    ax.set_ylabel("device time per call (us)")
    ax.set_xticks(x, [label.replace("decode ", "").replace("prefill ", "P ") for label in labels])
    ax.tick_params(axis="x", rotation=75, labelsize=7)
    ax.legend()
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
