"""``jax-glm-nope bench``: the Pallas kernel against FlashMLA and plain JAX, on a GPU.

Every case is timed on the same bytes: one pool of quantized rows (larger than L2),
``ROTATIONS`` different random index sets per case so consecutive calls miss L2, and
the same ``q``. Device time: one jitted function runs the ``ROTATIONS`` calls back to
back; ``--reps`` such functions are enqueued without waiting (the host stays ahead of
the GPU), and the wall time to drain them over the number of calls is the time per
call, median over ``--rounds`` rounds. ``--reps`` is raised until a round lasts at
least ``MIN_ROUND_S`` (20 ms), so a 30 us call is not timed over 1 ms of work.
FlashMLA (SM90 ``V32_NO_ROPE`` sparse decode, heads padded to 64 as engines do)
receives the very same JAX buffers through DLPack and is timed with CUDA events over
the same rotation (at b=1 it reads 40-60 us against SPEC 8's 22.7 us: every call is
launched from Python, which may be what is measured).

Reported per case: microseconds, TB/s of gathered rows (T*K*528 bytes), TFLOP/s
(2*T*H*K*1024) and the ratios to the peers. Writes JSON and a PNG plot.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # torch shares the GPU

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from . import layout  # noqa: E402
from .candidates import active_candidates  # noqa: E402
from .pallas import Schedule, choose_schedule, sparse_mla_pallas  # noqa: E402
from .quant import dequantize_rows, quantize_rows  # noqa: E402
from .reference import sparse_mla_reference  # noqa: E402

ROTATIONS = 8  # index sets per case: consecutive calls gather different rows
POOL_SLOTS = 1 << 21  # 2M rows x 528 B = 1.1 GB, ~18x the H200's 60 MB L2
SM_SCALE = 1.0 / math.sqrt(layout.HEAD_DIM + 64)
GLM_VALID = 2051  # 512 pools of 4 tokens + a 3-token tail (SPEC 0)


@dataclasses.dataclass(frozen=True)
class Case:
    mode: str  # "decode" or "prefill"
    tokens: int
    heads: int
    candidates: int
    holes: bool  # GLM row shape: missing pool groups and a -1 padded tail

    @property
    def label(self) -> str:
        tail = " holes" if self.holes else ""
        return f"{self.mode} T={self.tokens} H={self.heads} K={self.candidates}{tail}"

    @property
    def gathered_bytes(self) -> int:
        return self.tokens * self.candidates * layout.KERNEL_ROW_BYTES

    @property
    def flops(self) -> int:
        return 2 * self.tokens * self.heads * self.candidates * 2 * layout.HEAD_DIM


def default_cases(quick: bool = False) -> list[Case]:
    batches = (1, 128) if quick else (1, 8, 32, 128)
    heads = (8, 64) if quick else (8, 16, 32, 64, 128)
    cases = [Case("decode", b, h, 2048, False) for b in batches for h in heads]
    cases += [Case("decode", b, h, 2176, True) for b in batches for h in heads]
    cases += [Case("prefill", 4096, h, 2176, True) for h in ((64,) if quick else (32, 64))]
    return cases


# ----------------------------------------------------------------------------- inputs


def make_pool(num_slots: int, seed: int = 0) -> jax.Array:
    """A COMPACT pool of random rows, tiles spanning two orders of magnitude."""
    key = jax.random.PRNGKey(seed)
    chunk = 1 << 18
    parts = []
    for start in range(0, num_slots, chunk):
        k1, k2, key = jax.random.split(key, 3)
        rows = min(chunk, num_slots - start)
        latent = jax.random.normal(k1, (rows, layout.NUM_TILES, layout.TILE))
        tile_scale = jnp.exp(jax.random.uniform(k2, (rows, layout.NUM_TILES, 1), minval=-2.3, maxval=2.3))
        parts.append(quantize_rows((latent * tile_scale).reshape(rows, layout.HEAD_DIM), layout.COMPACT))
    return jnp.concatenate(parts)


def make_indices(case: Case, num_slots: int, seed: int) -> tuple[jax.Array, jax.Array]:
    """``indices [T, K]`` and ``topk_lens [T]``; with holes, the GLM kpool row shape."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(1, num_slots, (case.tokens, case.candidates), dtype=np.int64).astype(np.int32)
    lens = np.full(case.tokens, case.candidates, np.int32)
    if case.holes:
        valid = min(GLM_VALID, case.candidates)
        idx[:, valid:] = -1  # padding columns
        for t in range(case.tokens):  # one or two missing pool groups per token
            for group in rng.integers(0, valid // 4, 1 + t % 2):
                idx[t, 4 * group : 4 * group + 4] = -1
        lens[:] = valid
    return jnp.asarray(idx), jnp.asarray(lens)


def make_q(case: Case, seed: int) -> jax.Array:
    q = jax.random.normal(jax.random.PRNGKey(seed), (case.tokens, case.heads, layout.HEAD_DIM))
    return q.astype(jnp.bfloat16)


# ----------------------------------------------------------------------------- implementations


def plain_jax(q, pool, indices, topk_lens, sm_scale):
    """What model code writes today: ``jnp.take`` the rows, dequantize, two einsums."""
    active = active_candidates(indices, topk_lens, pool.shape[0])
    keys = dequantize_rows(jnp.take(pool, jnp.where(active, indices, 0), axis=0)).astype(jnp.bfloat16)
    keys = jnp.where(active[..., None], keys, 0)
    scores = jnp.einsum("thd,tkd->thk", q, keys, preferred_element_type=jnp.float32) * sm_scale
    scores = jnp.where(active[:, None, :], scores, -jnp.inf)
    lse = jax.nn.logsumexp(scores, axis=-1)
    probs = jnp.exp(scores - jnp.where(jnp.isfinite(lse), lse, 0)[..., None]).astype(jnp.bfloat16)
    out = jnp.einsum("thk,tkd->thd", probs, keys, preferred_element_type=jnp.float32)
    return out.astype(jnp.bfloat16), lse


def pallas_impl(schedule: Schedule | None = None, interpret: bool = False):
    """The Pallas backend with a fixed schedule (``None``: the dispatch table's).

    ``interpret`` (``--interpret``) smoke-tests this harness on a CPU; its numbers mean nothing.
    """

    def run(q, pool, indices, topk_lens, sm_scale):
        return sparse_mla_pallas(
            q, pool, indices, topk_lens, sm_scale, schedule=schedule, interpret=interpret
        )

    return run


MIN_ROUND_S = 0.02
MAX_REPS = 500


def time_jax(impl, q, pool, index_sets, *, reps: int, rounds: int) -> float:
    """Median device time per call, in microseconds (see the module docstring)."""

    @jax.jit
    def many(q, pool, sets):
        return [impl(q, pool, idx, lens, SM_SCALE) for idx, lens in sets]

    jax.block_until_ready(many(q, pool, index_sets))  # compile and warm up
    # Rounds of at least MIN_ROUND_S, so microsecond-scale calls (b=1) are not timed over
    # a millisecond of work, where launch latency and clock ramp-up dominate.
    start = time.perf_counter()
    jax.block_until_ready(many(q, pool, index_sets))
    reps = max(reps, min(MAX_REPS, math.ceil(MIN_ROUND_S / (time.perf_counter() - start))))
    per_call = []
    for _ in range(rounds):
        start = time.perf_counter()
        results = [many(q, pool, index_sets) for _ in range(reps)]
        jax.block_until_ready(results)
        per_call.append((time.perf_counter() - start) / (reps * len(index_sets)))
        del results
    return statistics.median(per_call) * 1e6


class FlashMLA:
    """FlashMLA's SM90 sparse decode on the same buffers (SPEC 8), or why it cannot run."""

    PAGE = 64
    HEADS = (64, 128)

    def __init__(self):
        self.reason = None
        try:
            import flash_mla  # noqa: F401
            import torch  # noqa: F401
        except Exception as err:  # noqa: BLE001 - any import failure means "not available"
            self.reason = f"flash_mla not importable: {err}"

    def time(self, case: Case, q, pool, index_sets, *, reps: int, rounds: int) -> float | None:
        import flash_mla
        import torch

        padded = 64 if case.heads <= 64 else 128
        if case.candidates % 64:
            return None
        qp = jnp.pad(q, ((0, 0), (0, padded - case.heads), (0, 0))).reshape(case.tokens, 1, padded, -1)
        tq = torch.from_dlpack(jax.block_until_ready(qp))
        num_slots = pool.shape[0] // self.PAGE * self.PAGE
        cache = torch.from_dlpack(pool)[:num_slots].view(-1, self.PAGE, 1, layout.KERNEL_ROW_BYTES)
        tsets = []
        for idx, lens in index_sets:
            # FlashMLA's V32 kernels take no topk_length and treat only -1 as a hole.
            idx = jnp.where(active_candidates(idx, lens, num_slots), idx, -1)
            tsets.append(torch.from_dlpack(jax.block_until_ready(idx.reshape(case.tokens, 1, -1))))
        meta = flash_mla.get_mla_metadata()[0]

        def call(tidx):
            return flash_mla.flash_mla_with_kvcache(
                tq,
                cache,
                None,
                None,
                layout.HEAD_DIM,
                meta,
                softmax_scale=SM_SCALE,
                is_fp8_kvcache=True,
                indices=tidx,
                use_legacy=True,
                kv_format="V32_NO_ROPE",
            )

        for tidx in tsets:
            call(tidx)
        torch.cuda.synchronize()
        start = time.perf_counter()
        for tidx in tsets:
            call(tidx)
        torch.cuda.synchronize()
        reps = max(reps, min(MAX_REPS, math.ceil(MIN_ROUND_S / (time.perf_counter() - start))))
        per_call = []
        for _ in range(rounds):
            begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            begin.record()
            for _ in range(reps):
                for tidx in tsets:
                    call(tidx)
            end.record()
            torch.cuda.synchronize()
            per_call.append(begin.elapsed_time(end) / (reps * len(tsets)))
        return statistics.median(per_call) * 1e3


# ----------------------------------------------------------------------------- accuracy


def accuracy(out, lse, reference) -> tuple[float, float]:
    """Worst per-token relative L2 error of ``out`` and worst ``|lse - ref|`` against
    ``reference``: the jnp reference (float32 at HIGHEST precision) on the same inputs."""
    ref_out, ref_lse = reference
    ref_out = np.asarray(ref_out, np.float32)
    out = np.asarray(out, np.float32)
    num = np.linalg.norm((out - ref_out).reshape(len(out), -1), axis=1)
    den = np.maximum(np.linalg.norm(ref_out.reshape(len(out), -1), axis=1), 1e-30)
    finite = np.isfinite(np.asarray(ref_lse))
    lse_err = np.abs(np.asarray(lse) - np.asarray(ref_lse))[finite]
    return float(np.max(num / den)), float(lse_err.max() if lse_err.size else 0.0)


# ----------------------------------------------------------------------------- the run


def sweep_schedules(case: Case) -> list[Schedule]:
    """``choose_schedule``'s pick and its neighbours, one knob at a time (``--sweep``)."""
    base = choose_schedule(case.tokens, case.heads, case.candidates)
    found = [base]
    found += [
        dataclasses.replace(base, candidates_major=m, num_warps=w, prefetch=False)
        for m in (False, True)
        for w in (4, 8)
    ]
    for factor in (0.5, 1, 2):
        splits = max(1, int(base.num_splits * factor))
        found += [dataclasses.replace(base, num_splits=splits, prefetch=p) for p in (False, True)]
    if case.heads > 16:
        found += [dataclasses.replace(base, block_h=32, block_k=32), dataclasses.replace(base, block_h=32)]
    if case.heads > 32:
        found += [dataclasses.replace(base, block_h=64, prefetch=False)]
    return list(dict.fromkeys(s for s in found if not (s.prefetch and s.candidates_major)))


class Progress:
    """A progress bar (``rich`` when installed, else one line per step)."""

    def __init__(self, total: int):
        self.total, self.done = total, 0
        try:
            from rich.progress import Progress as RichProgress

            self.bar = RichProgress(transient=False)
            self.bar.start()
            self.task = self.bar.add_task("bench", total=total)
        except ImportError:
            self.bar = None

    def step(self, label: str):
        self.done += 1
        if self.bar is not None:
            self.bar.update(self.task, advance=1, description=label)
        else:
            print(f"[{self.done}/{self.total}] {label}", file=sys.stderr, flush=True)

    def close(self):
        if self.bar is not None:
            self.bar.stop()


def environment() -> dict:
    def git_rev():
        try:
            return (
                subprocess.run(
                    ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False
                ).stdout.strip()
                or None
            )
        except OSError:
            return None

    versions = {"jax": jax.__version__, "python": platform.python_version()}
    for name in ("jaxlib", "torch", "triton", "flash_mla"):
        try:
            module = __import__(name)
            versions[name] = getattr(module, "__version__", "?")
        except Exception:  # noqa: BLE001
            versions[name] = None
    return {
        "device": str(jax.devices()[0].device_kind),
        "versions": versions,
        "git": git_rev(),
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def run_case(case: Case, pool, flashmla: FlashMLA | None, args, schedules) -> dict:
    index_sets = [make_indices(case, pool.shape[0], seed=100 + r) for r in range(ROTATIONS)]
    q = make_q(case, seed=7)
    row = {
        "case": dataclasses.asdict(case),
        "label": case.label,
        "gathered_bytes": case.gathered_bytes,
        "flops": case.flops,
    }
    chosen = choose_schedule(case.tokens, case.heads, case.candidates)
    row["schedule"] = dataclasses.asdict(chosen)
    idx0, lens0 = index_sets[0]
    reference = sparse_mla_reference(q, pool, idx0, lens0, SM_SCALE)

    def measure(sched: Schedule) -> tuple[tuple[float, float], float]:
        """(accuracy on the first index set, device time per call) of one schedule."""
        impl = pallas_impl(sched, args.interpret)
        got = jax.jit(impl, static_argnums=4)(q, pool, idx0, lens0, SM_SCALE)
        timing = time_jax(impl, q, pool, index_sets, reps=args.reps, rounds=args.rounds)
        return accuracy(*got, reference), timing

    measured = {chosen: measure(chosen)}
    for sched in schedules:
        if sched in measured:
            continue
        try:
            measured[sched] = measure(sched)
        except Exception as err:  # noqa: BLE001 - a schedule that does not compile is reported
            row.setdefault("failed", []).append(f"{sched}: {type(err).__name__}: {str(err)[:300]}")
    (row["rel_l2_max"], row["lse_err_max"]), pallas_us = measured[chosen]
    if schedules:
        row["sweep"] = [
            {"schedule": dataclasses.asdict(s), "us": t, "rel_l2_max": e[0], "lse_err_max": e[1]}
            for s, (e, t) in measured.items()
        ]
        best = min(measured, key=lambda s: measured[s][1])
        row["best_schedule"], row["best_us"] = dataclasses.asdict(best), measured[best][1]
    row["pallas_us"] = pallas_us
    if not args.no_jax and case.mode == "decode":  # prefill would materialize T*K*1 KiB of keys
        row["jax_us"] = time_jax(plain_jax, q, pool, index_sets, reps=args.reps, rounds=args.rounds)
    if flashmla is not None and flashmla.reason is None and case.mode == "decode":
        row["flashmla_us"] = flashmla.time(case, q, pool, index_sets, reps=args.reps, rounds=args.rounds)
    row["pallas_tb_s"] = case.gathered_bytes / (pallas_us * 1e-6) / 1e12
    row["pallas_tflop_s"] = case.flops / (pallas_us * 1e-6) / 1e12
    return row


def ratio(peer_us: float | None, ours_us: float) -> str:
    """How many times faster than the peer (> 1: Pallas wins)."""
    return "-" if peer_us is None else f"{peer_us / ours_us:.2f}x"


def schedule_flags(s: dict) -> str:
    return (" cm" if s.get("candidates_major") else "") + (" pf" if s.get("prefetch") else "")


def table(rows: list[dict]) -> str:
    head = (
        "| case | schedule (h,k,splits,warps,stages; cm: candidates-major, pf: gather ahead) "
        "| Pallas us | TB/s | TFLOP/s | plain JAX us "
        "| FlashMLA (64/128 heads) us | vs JAX | vs FlashMLA | rel L2 | lse err |"
    )
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        s = r["schedule"]
        jax_us, fm_us = r.get("jax_us"), r.get("flashmla_us")
        fmt = lambda v, spec=".1f": "-" if v is None else format(v, spec)  # noqa: E731
        lines.append(
            f"| {r['label']} | {s['block_h']},{s['block_k']},{s['num_splits']},{s['num_warps']},"
            f"{s['num_stages']}{schedule_flags(s)} | {r['pallas_us']:.1f} | {r['pallas_tb_s']:.2f} "
            f"| {r['pallas_tflop_s']:.1f} "
            f"| {fmt(jax_us)} | {fmt(fm_us)} | {ratio(jax_us, r['pallas_us'])} "
            f"| {ratio(fm_us, r['pallas_us'])} | {r['rel_l2_max']:.1e} "
            f"| {r['lse_err_max']:.1e} |"
        )
    return "\n".join(lines)


def plot(rows: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [r["label"].replace("decode ", "").replace("prefill ", "P ") for r in rows]
    x = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(max(10, len(rows) * 0.45), 5))
    for offset, key, name in (
        (-0.27, "pallas_us", "Pallas"),
        (0.0, "jax_us", "plain JAX"),
        (0.27, "flashmla_us", "FlashMLA (heads padded)"),
    ):
        values = [r.get(key) or np.nan for r in rows]
        ax.bar(x + offset, values, 0.27, label=name)
    ax.set_yscale("log")
    ax.set_ylabel("device time per call (us)")
    ax.set_xticks(x, labels, rotation=75, fontsize=7)
    ax.legend()
    ax.set_title(f"sparse MLA over 528-byte FP8 rows, {jax.devices()[0].device_kind}")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="jax-glm-nope bench", description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="bench_results", help="folder for bench.json and bench.png")
    parser.add_argument("--quick", action="store_true", help="a few cases only")
    parser.add_argument(
        "--cases",
        default=None,
        help="comma list of mode:T:H:K[:holes], e.g. decode:128:8:2048,prefill:4096:64:2176:holes",
    )
    parser.add_argument("--sweep", action="store_true", help="also time schedules around the chosen one")
    parser.add_argument("--sweep-first", type=int, default=None, help="sweep only the first N cases")
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-jax", action="store_true", help="skip plain JAX")
    parser.add_argument("--no-flashmla", action="store_true", help="skip FlashMLA")
    parser.add_argument("--pool-slots", type=int, default=POOL_SLOTS)
    parser.add_argument(
        "--time-limit",
        type=float,
        default=float("inf"),
        help="stop starting new cases after this many seconds",
    )
    parser.add_argument("--interpret", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if jax.default_backend() != "gpu" and not args.interpret:
        print(f"bench needs a CUDA GPU; JAX's backend is {jax.default_backend()!r}", file=sys.stderr)
        return 2
    if args.cases:
        cases = []
        for spec in args.cases.split(","):
            mode, t, h, k, *rest = spec.split(":")
            cases.append(Case(mode, int(t), int(h), int(k), bool(rest and rest[0] == "holes")))
    else:
        cases = default_cases(args.quick)
    os.makedirs(args.out, exist_ok=True)
    flashmla = None if args.no_flashmla else FlashMLA()
    result = {
        "environment": environment(),
        "method": __doc__,
        "command": " ".join(sys.argv),
        "flashmla": None if flashmla is None else (flashmla.reason or "ok"),
        "rows": [],
    }
    pool = jax.block_until_ready(make_pool(args.pool_slots))
    progress = Progress(len(cases))
    started = time.perf_counter()
    for number, case in enumerate(cases):
        if time.perf_counter() - started > args.time_limit:
            result.setdefault("skipped", []).append(case.label)
            continue
        sweep = args.sweep and (args.sweep_first is None or number < args.sweep_first)
        schedules = sweep_schedules(case) if sweep else []
        result["rows"].append(run_case(case, pool, flashmla, args, schedules))
        progress.step(case.label)
        with open(os.path.join(args.out, "bench.json"), "w") as f:
            json.dump(result, f, indent=1, default=str)
    progress.close()
    with open(os.path.join(args.out, "bench.json"), "w") as f:
        json.dump(result, f, indent=1, default=str)
    print(table(result["rows"]))
    try:
        plot(result["rows"], os.path.join(args.out, "bench.png"))
    except ImportError as err:
        print(f"no plot: {err}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
