"""Sparse MLA over 528-byte FP8 rows: the package's implementations against FlashMLA
and plain JAX, timed on the device, every result checked against float64.

    python benchmarks/bench.py --out results                       # the full matrix
    python benchmarks/bench.py --cases decode:128:64:2048 --sweep  # Pallas schedules
    python benchmarks/bench.py --implementation reference pallas --interpret \\
        --cases decode:1:8:64 --pool-slots 4096 --rotations 2 --rounds 1 --json   # CPU smoke

Method: docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import os
import sys
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # torch (FlashMLA) shares the GPU

if __package__ in (None, ""):  # run as a script: make `benchmarks` importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import jax  # noqa: E402
import numpy as np  # noqa: E402

import jax_glm_nope  # noqa: E402
from benchmarks import report, timing  # noqa: E402
from benchmarks.cases import (  # noqa: E402
    DEFAULT_POOL_SLOTS,
    SM_SCALE,
    Case,
    CaseError,
    Inputs,
    check_pool_slots,
    default_cases,
    make_inputs,
    make_pool,
    parse_cases,
)
from benchmarks.peers import FlashMLA, plain_jax, plain_jax_unsupported  # noqa: E402
from jax_glm_nope.device import DEFAULT_SM_COUNT as NUM_SMS  # noqa: E402
from jax_glm_nope.implementations.pallas import Schedule, choose_schedule  # noqa: E402
from jax_glm_nope.testing import LSE_TOL, OUT_RTOL, accuracy_errors, reference_f64  # noqa: E402

IMPLEMENTATIONS = ("pallas", "cuda", "flashinfer", "reference")  # the package's, by name
INVARIANT = ("cuda",)  # the implementations that take batch_invariant=True (--batch-invariant)
PROFILED = ("pallas", "cuda", "flashinfer")  # timed by their own kernels in the profiler
PEERS = ("flashmla", "plain_jax")
DEFAULT_IMPLEMENTATIONS = ("pallas", "cuda", "flashinfer", "flashmla", "plain_jax")
INTERPRET_POOL_SLOTS = 4096
MIN_GUESS_US = 10.0  # sizes the first timing loop: no call here is faster (launches alone)
ACCURACY_TOKENS = 64  # tokens per case checked against float64 (all when T is smaller)


@dataclasses.dataclass(frozen=True)
class Variant:
    """One thing to time on a case: an implementation, with a Pallas schedule in sweeps."""

    implementation: str
    schedule: Schedule | None = None
    sweep: bool = False
    batch_invariant: bool = False  # sparse_mla(..., batch_invariant=True)

    @property
    def label(self) -> str:
        if self.sweep:
            return f"{self.implementation} sweep"
        return f"{self.implementation} batch_invariant" if self.batch_invariant else self.implementation


# ----------------------------------------------------------------------------- arguments


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text}")
    return value


def _cases(text: str) -> list[Case]:
    try:
        return parse_cases(text)
    except CaseError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _pool_slots(text: str) -> int:
    try:
        return check_pool_slots(_positive_int(text))
    except CaseError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="benchmarks/bench.py",
        description=__doc__.splitlines()[0] + " " + __doc__.splitlines()[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Cases are mode:T:H:K[:holes] (mode decode or prefill; holes: GLM candidate rows). "
        "Presets: full = k2048 (decode b in 1,8,32,128 x H in 8,16,32,64,128 at K=2048) + holes (the same "
        "at K=2176 with holes, and prefill T=4096 x H in 32,64,128); quick = b in 1,128 x H in 8,64; "
        "hopper-k2048 / hopper-holes = b in 1,8,32,128 x H in 8,16,24,32,64,128 at K=2048 / "
        "at K=2176 with holes plus prefill T=4096 x H in "
        "16,32,64,128.",
    )
    p.add_argument(
        "--implementation",
        nargs="+",
        choices=IMPLEMENTATIONS + PEERS,
        default=list(DEFAULT_IMPLEMENTATIONS),
        metavar="NAME",
        help=f"any of {', '.join(IMPLEMENTATIONS + PEERS)} (default: {' '.join(DEFAULT_IMPLEMENTATIONS)}); "
        "one that cannot run here is reported with the reason",
    )
    p.add_argument(
        "--cases",
        type=_cases,
        default=None,
        help="comma list of cases and presets: full (default), quick, k2048, holes, hopper-k2048, "
        "hopper-holes",
    )
    p.add_argument("--sweep", action="store_true", help="also time Pallas schedules around the chosen one")
    p.add_argument(
        "--batch-invariant",
        action="store_true",
        help="also time cuda with batch_invariant=True (its cost beside the default)",
    )
    p.add_argument(
        "--no-whole-call",
        dest="whole_call",
        action="store_false",
        help="skip the whole call's span (XLA's defaults and command buffers); rows then report "
        "the kernels' span (pallas, cuda, flashinfer) or the loop (plain_jax)",
    )
    p.add_argument("--out", default=None, help="folder for bench.json and bench.png")
    p.add_argument("--json", action="store_true", help="print the JSON result on stdout (table on stderr)")
    p.add_argument("--interpret", action="store_true", help="Pallas in the interpreter (CPU smoke runs)")
    p.add_argument("--rounds", type=_positive_int, default=5, help="timed loop rounds per result (median)")
    p.add_argument(
        "--profile-calls",
        type=_positive_int,
        default=timing.PROFILE_CALLS,
        help="calls traced in the profiler per result of pallas, cuda, flashinfer, at least (median)",
    )
    p.add_argument(
        "--min-round-ms", type=_positive_float, default=timing.MIN_ROUND_S * 1e3, help="shortest round"
    )
    p.add_argument(
        "--rotations", type=_positive_int, default=None, help="index sets per case (default 4x L2)"
    )
    p.add_argument(
        "--pool-slots",
        type=_pool_slots,
        default=None,
        help=f"rows in the pool (default {DEFAULT_POOL_SLOTS}, {INTERPRET_POOL_SLOTS} with --interpret)",
    )
    p.add_argument("--wide-range", action="store_true", help="rows scaled by e^+-4 (wide-range data)")
    p.add_argument("--accuracy-tokens", type=_positive_int, default=ACCURACY_TOKENS)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--time-limit", type=_positive_float, default=None, help="start no case after this many s")
    return p


# ----------------------------------------------------------------------------- one case


def package_fn(name: str, interpret: bool, schedule, batch_invariant: bool, q, pool, indices, topk_lens):
    options = {"batch_invariant": True} if batch_invariant else {}
    if name == "pallas" and interpret:
        options["interpret"] = True
    if schedule is not None:
        options["schedule"] = schedule
    return jax_glm_nope.sparse_mla(q, pool, indices, SM_SCALE, topk_lens, implementation=name, **options)


def sweep_schedules(case: Case) -> list[Schedule]:
    """``choose_schedule``'s pick's neighbours, one knob at a time (``--sweep``)."""
    base = choose_schedule(case.tokens, case.heads, case.candidates)
    found = [
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
        found.append(dataclasses.replace(base, block_h=64, prefetch=False))
    if case.heads > 16 and base.block_h > 16:
        # 16-head blocks: more programs for the same heads, each one as small as the
        # 1-16-head kernel's (splits for one and for two programs per SM)
        tiles = -(-case.candidates // base.block_k)
        blocks = max(1, case.tokens) * -(-case.heads // 16)
        for waves in (1, 2):
            splits = max(1, min(tiles, waves * NUM_SMS // blocks))
            found.append(Schedule(16, base.block_k, splits, 8, 2))
    return [s for s in dict.fromkeys(found) if s != base and not (s.prefetch and s.candidates_major)]


class Reference:
    """float64 accuracy bound on the dequantized rows, for a sample of the tokens of the last
    index set (the one the timed loops end on)."""

    def __init__(self, case: Case, pool, inputs: Inputs, max_tokens: int):
        self.tokens = np.unique(np.linspace(0, case.tokens - 1, min(case.tokens, max_tokens)).astype(int))
        indices, lens = inputs.index_set(inputs.rotations - 1)
        indices = np.asarray(indices)[self.tokens]
        lens = None if lens is None else np.asarray(lens)[self.tokens]
        valid = (indices >= 0) & (indices < pool.shape[0])
        slots = np.unique(indices[valid])  # the reference reads only these rows
        local = np.where(valid, np.searchsorted(slots, np.where(valid, indices, 0)), -1).astype(np.int32)
        rows = np.asarray(pool[slots])
        q = np.asarray(inputs.q.astype(np.float32))[self.tokens]
        self.out, self.lse = reference_f64(q, rows, local, lens, SM_SCALE)

    def check(self, out, lse) -> dict:
        out = np.asarray(out, np.float32)[self.tokens]
        lse = np.asarray(lse, np.float32)[self.tokens]
        out_err, lse_err = accuracy_errors(out, lse, self.out, self.lse)
        out_err, lse_err = float(np.max(out_err)), float(np.max(lse_err))
        return {
            "out_err": out_err,
            "lse_err": lse_err,
            "accurate": bool(out_err <= OUT_RTOL and lse_err <= LSE_TOL),
            "accuracy_tokens": len(self.tokens),
            "nonfinite": int((~np.isfinite(out)).sum() + np.isnan(lse).sum()),
        }


def floor_us(case: Case, inputs: Inputs) -> float:
    """The H200's floor for a case: its bytes at 3.6 TB/s (a plain gather of random rows)
    or its FLOPs at 790 TFLOP/s (dense bf16), whichever is longer."""
    active = inputs.active_per_token
    return max(case.io_bytes(active) / 3.6e12, case.flops(active) / 790e12) * 1e6


def _failure(err: Exception) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0][:300] if text else ''}"


def run_variant(variant: Variant, case: Case, pool, inputs: Inputs, reference: Reference, args) -> dict:
    """One result row: status, time, bandwidth, FLOP rate and accuracy."""
    row = {"implementation": variant.label, "status": "ok", "reason": None, "schedule": None}
    whole = None
    idx0, lens0 = inputs.index_set(0)  # for the trace-time availability check
    name = variant.implementation
    options = timing.TimingOptions(
        rounds=args.rounds, min_round_s=args.min_round_ms / 1e3, profile_calls=args.profile_calls
    )
    if name == "pallas":
        schedule = variant.schedule or choose_schedule(case.tokens, case.heads, case.candidates)
        row["schedule"] = dataclasses.asdict(schedule)
    try:
        if name == "flashmla":
            peer = FlashMLA()
            reason = peer.unavailable_reason()
            if reason is None and (reason := peer.unsupported(case)) is not None:
                return row | {"status": "unsupported", "reason": reason}
            if reason is not None:
                return row | {"status": "unavailable", "reason": reason}
            call = peer.prepare(case, pool, inputs, SM_SCALE)
            got = peer.outputs(case, call, inputs.rotations - 1)
            measured = peer.time(call, inputs.rotations, options)
        else:
            if name == "plain_jax":
                if (reason := plain_jax_unsupported(case)) is not None:
                    return row | {"status": "unsupported", "reason": reason}
                fn = functools.partial(plain_jax, sm_scale=SM_SCALE)
            else:
                fn = functools.partial(
                    package_fn, name, args.interpret, variant.schedule, variant.batch_invariant
                )
                try:  # validation and availability are decided at trace time
                    jax.eval_shape(fn, inputs.q, pool, idx0, lens0)
                except ValueError as err:
                    return row | {"status": "unavailable", "reason": str(err)}
            guess = 0.0 if args.interpret else max(MIN_GUESS_US, 2 * floor_us(case, inputs))
            measured, got = timing.time_jax(
                fn,
                inputs.q,
                pool,
                inputs.indices,
                inputs.topk_lens,
                options,
                guess_us=guess,
                profile=name in PROFILED,
            )
            if args.whole_call and not args.interpret:
                whole = timing.time_call(
                    fn, inputs.q, pool, inputs.indices, inputs.topk_lens, profiled=name in PROFILED
                )
    except Exception as err:  # noqa: BLE001 - a kernel that fails to compile or run is a result
        return row | {"status": "failed", "reason": _failure(err)}
    row |= measured.as_dict()
    if whole is not None:
        # The headline is what a user pays: the whole call under command buffers (the
        # counterpart of the peer's CUDA graph); the kernels' own span stays beside it.
        row |= {
            "kernels_us": measured.us if name in PROFILED else None,
            "call_us": whole["command_buffers"]["us"],
            "call_default_us": whole["default"]["us"],
            "whole_call": whole,
        }
        if whole["command_buffers"]["us"] is not None:
            measured = dataclasses.replace(measured, timer="call", us=whole["command_buffers"]["us"])
            row |= {"timer": "call", "us": measured.us}
    if measured.us is None:  # ran and is checked, but its timer found nothing to time
        row |= {"status": "untimed", "reason": measured.error, "tb_s": None, "tflop_s": None}
    else:
        seconds = measured.us * 1e-6
        row["tb_s"] = case.io_bytes(inputs.active_per_token) / seconds / 1e12
        row["tflop_s"] = case.flops(inputs.active_per_token) / seconds / 1e12
    return row | reference.check(*got)


def _progress_text(row: dict) -> str:
    if row["status"] == "ok":
        if row["timer"] == "call":
            kernels = f", kernels {row['kernels_us']:.1f}" if row.get("kernels_us") is not None else ""
            default = row.get("call_default_us")
            default = f"{default:.1f}" if default is not None else "-"
            return f"{row['us']:.1f} us (whole call, command buffers; XLA defaults {default}{kernels})"
        loop = f", loop {row['loop_us']:.1f} us" if row["timer"] == "profiler" else ""
        return f"{row['us']:.1f} us ({row['timer']}{loop})"
    return f"{row['status']} ({row['reason']})"


def run_case(case: Case, pool, variants: list[Variant], args, progress) -> list[dict]:
    inputs = make_inputs(case, pool.shape[0], rotations=args.rotations, seed=args.seed)
    reference = Reference(case, pool, inputs, args.accuracy_tokens)
    facts = {
        "case": case.spec,
        "label": case.label,
        "mode": case.mode,
        "tokens": case.tokens,
        "heads": case.heads,
        "candidates": case.candidates,
        "holes": case.holes,
        "active_per_token": inputs.active_per_token,
        "rotations": inputs.rotations,
        "io_bytes": case.io_bytes(inputs.active_per_token),
        "flops": case.flops(inputs.active_per_token),
    }
    rows = []
    for variant in variants:
        schedules = [None]
        if variant.sweep:
            schedules = sweep_schedules(case)
        for schedule in schedules:
            one = dataclasses.replace(variant, schedule=schedule) if variant.sweep else variant
            row = facts | run_variant(one, case, pool, inputs, reference, args)
            progress(f"{case.label} {row['implementation']}: {_progress_text(row)}")
            rows.append(row)
    ok = [r for r in rows if r["status"] == "ok"]
    peers = {r["implementation"]: r["us"] for r in ok if r["implementation"] in PEERS}
    for row in rows:
        if row["status"] == "ok":
            row["vs"] = {p: us / row["us"] for p, us in peers.items() if p != row["implementation"]}
    return rows


# ----------------------------------------------------------------------------- the run


def untimed_everywhere(rows: list[dict], interpret: bool) -> str | None:
    """On a GPU, a case where the profiler timed none of the package's implementations that
    ran: the timer is broken for every case, so the run stops rather than spend the device
    on rows it cannot time."""
    profiled = [
        r for r in rows if r["implementation"].split()[0] in PROFILED and r["status"] in ("ok", "untimed")
    ]
    if interpret or not profiled or any(r["status"] == "ok" for r in profiled):
        return None
    names = ", ".join(sorted({r["implementation"] for r in profiled}))
    return f"the profiler timed none of {names} ({profiled[0]['reason']})"


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    say = functools.partial(print, file=sys.stderr, flush=True)
    if jax.default_backend() != "gpu" and not args.interpret:
        say(
            f"benchmarks/bench.py: timings need a CUDA GPU, and JAX's backend is {jax.default_backend()!r}; "
            "pass --interpret for a CPU smoke run (its numbers mean nothing)"
        )
        return 2
    cases = args.cases or default_cases()
    num_slots = args.pool_slots or (INTERPRET_POOL_SLOTS if args.interpret else DEFAULT_POOL_SLOTS)
    names = list(dict.fromkeys(args.implementation))
    variants = []
    for n in names:
        variants.append(Variant(n))
        if args.batch_invariant and n in INVARIANT:
            variants.append(Variant(n, batch_invariant=True))
    if args.sweep:
        if "pallas" not in names:
            say("benchmarks/bench.py: --sweep times Pallas schedules; add pallas to --implementation")
            return 2
        variants.insert(variants.index(Variant("pallas")) + 1, Variant("pallas", sweep=True))
    result = {
        "command": " ".join([os.path.relpath(sys.argv[0])] + (sys.argv[1:] if argv is None else argv)),
        "environment": report.environment(),
        "settings": {
            "implementations": names,
            "sweep": args.sweep,
            "batch_invariant": args.batch_invariant,
            "interpret": args.interpret,
            "pool_slots": num_slots,
            "pool_bytes": num_slots * jax_glm_nope.COMPACT.bytes_per_token,
            "wide_range": args.wide_range,
            "sm_scale": SM_SCALE,
            "rounds": args.rounds,
            "min_round_ms": args.min_round_ms,
            "profile_calls": args.profile_calls,
            "profiled": [n for n in names if n in PROFILED],
            "seed": args.seed,
        },
        "accuracy_bound": {"out_rel_l2": OUT_RTOL, "lse_abs_over_max_1_ref": LSE_TOL},
        "method": timing.__doc__,
        "results": [],
        "skipped": [],
    }
    if args.interpret:
        result["settings"]["note"] = "Pallas interpreter on the host: the times are not device times"
    json_path = None
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        json_path = os.path.join(args.out, "bench.json")
    say(f"pool: {num_slots} rows ({result['settings']['pool_bytes'] / 2**30:.2f} GiB) on {jax.devices()[0]}")
    pool = jax.block_until_ready(make_pool(num_slots, wide_range=args.wide_range, seed=args.seed))
    started = time.perf_counter()
    for case in cases:
        out_of_time = args.time_limit is not None and time.perf_counter() - started > args.time_limit
        if out_of_time or "stopped" in result:
            result["skipped"].append(case.spec)
            continue
        rows = run_case(case, pool, variants, args, say)
        result["results"] += rows
        if (reason := untimed_everywhere(rows, args.interpret)) is not None:
            result["stopped"] = reason
        if json_path:
            report.write_json(result, json_path)
    if result["skipped"]:
        why = f"stopped: {result['stopped']}" if "stopped" in result else "--time-limit"
        say(f"{why}: {len(result['skipped'])} cases not started: {','.join(result['skipped'])}")
    peers = [n for n in names if n in PEERS]
    text = report.table(result["results"], peers)
    if args.json:
        print(report.dumps(result))
        say(text)
    else:
        print(text)
    if args.out:
        try:
            title = f"sparse MLA over 528-byte FP8 rows, {result['environment']['device']}"
            report.plot(result["results"], os.path.join(args.out, "bench.png"), title)
        except ImportError as err:
            say(f"no plot: {err}")
    # Exit 1 when one of the package's implementations failed, missed the accuracy bound or,
    # on the GPU, went untimed (a peer's accuracy is reported, not enforced).
    bad = [
        r
        for r in result["results"]
        if r["implementation"] not in PEERS
        and (
            r["status"] == "failed"
            or not r.get("accurate", True)
            or (r["status"] == "untimed" and not args.interpret)
        )
    ]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
