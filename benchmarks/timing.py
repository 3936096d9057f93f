"""Device time per call, measured the same way for every implementation of a kind.

JAX (``time_jax``): one jitted ``lax.fori_loop`` makes ``n x R`` calls (whole passes
over the R index sets of ``cases.Inputs``), call ``i`` reading set ``i % R``; q, the
pool and the index sets are arguments of the jitted function, never closure
constants, and each call's output is the loop carry, so XLA can neither hoist nor
drop a call. Per call the loop also selects its index set (a dynamic slice of
``[R, T, K]`` int32). ``n`` is sized from a lower bound on the call's time and checked
by running the loop, so that one loop (a round) lasts at least ``min_round_s`` (20 ms).
After a warm-up run of that loop, the loop time is the median over rounds of round
time / calls, host dispatch of the one executable per round included (tens of
microseconds in 20 ms), and XLA's per-iteration cost (the loop, the slice, launch gaps).

The package's kernels (``timer="profiler"``, the time reported for pallas, cuda and
flashinfer): the same compiled loop runs again under ``jax.profiler.trace`` until at
least ``profile_calls`` calls are traced; per call, the span from the first start to
the last end of the package's own kernels on the GPU (``spans.py``: kernels overlapping
under programmatic dependent launch count once, XLA's own kernels not at all); the
median over the traced calls. When the trace holds none of those kernels (a CPU, or a
kernel name ``spans.is_our_kernel`` does not know) the time is None and the row says
why: no other timer stands in. The reference and plain JAX, made of XLA's kernels
only, keep the loop time (``timer="loop"``).

The whole call (``time_call``, what a user pays): one jitted call of the implementation,
compiled once under XLA's defaults and once with XLA command buffers
(``COMMAND_BUFFERS``: the counterpart of a peer's CUDA graph), run ``calls`` times, each
waited for; per call, the span from the first start to the last end of *every* device
event of the call (XLA's glue included: the pad and broadcast before our kernels, any
merge after, launch gaps between them), and beside it the span of the package's own
kernels in the same calls. Medians over the calls.

torch (``time_torch``, ``timer="cuda_graph"``): the R calls are captured in a CUDA
graph and replayed as ``triton.testing.do_bench_cudagraph`` does (a graph of
``min_round_s`` of calls, median of its ten replays; ``rounds`` does not apply), with
the capture confined to the capturing thread, so a torch kernel is never a Python
launch timed against a device loop.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import statistics
import time
from collections.abc import Callable

import jax
import jax.numpy as jnp

from benchmarks import spans

MIN_ROUND_S = 0.02
PROFILE_CALLS = 20  # traced calls per profiled result, at least (whole loop runs)
MAX_CALLS = 1 << 16  # per round, whatever the calibration says
MAX_ROUND_FACTOR = 10  # a first loop longer than this many min_round_s is shortened


@dataclasses.dataclass(frozen=True)
class TimingOptions:
    rounds: int = 5
    min_round_s: float = MIN_ROUND_S
    profile_calls: int = PROFILE_CALLS


@dataclasses.dataclass(frozen=True)
class Timing:
    timer: str  # "profiler", "loop" or "cuda_graph" (module docstring)
    us: float | None  # the timer's median device time per call; None: ``error`` says why
    rounds_us: tuple[float, ...]  # per-call time of every loop round (or graph replay)
    calls_per_round: int | None  # calls per loop round or per graph replay
    loop_us: float | None = None  # JAX: the jitted loop's median, whichever the timer
    error: str | None = None  # why the timer measured nothing
    profile: dict | None = None  # the profiler's calls, kernels, min/max spans, XLA's time per call

    def as_dict(self) -> dict:
        return {
            "timer": self.timer,
            "us": self.us,
            "loop_us": self.loop_us,
            "rounds_us": list(self.rounds_us),
            "calls_per_round": self.calls_per_round,
            "timer_error": self.error,
            "profile": self.profile,
        }


@functools.partial(jax.jit, static_argnums=(0, 1))
def _loop(fn: Callable, num_calls: int, q, pool, indices, topk_lens):
    rotations = indices.shape[0]

    def call(i):
        r = i % rotations
        idx = jax.lax.dynamic_index_in_dim(indices, r, keepdims=False)
        lens = None if topk_lens is None else jax.lax.dynamic_index_in_dim(topk_lens, r, keepdims=False)
        return fn(q, pool, idx, lens)

    init = jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), jax.eval_shape(call, 0))
    return jax.lax.fori_loop(0, num_calls, lambda i, _: call(i), init)


def time_jax(
    fn: Callable,
    q,
    pool,
    indices,
    topk_lens,
    options: TimingOptions,
    *,
    guess_us: float = 0.0,
    profile: bool = False,
):
    """``fn(q, pool, indices [T, K], topk_lens [T] | None) -> (out, lse)``, hashable
    (a module-level function or a ``functools.partial`` of one), traced under jit.

    ``guess_us`` (a lower bound on the time per call, 0 when unknown) sizes the first
    loop, so that usually one compile serves both warm-up and rounds; a loop that runs
    shorter than ``min_round_s`` is recompiled longer. ``profile``: the time is the span
    of the package's kernels per call in the profiler (the loop's time beside it).
    Returns the ``Timing`` and the outputs of the timed loop's last call, which read the
    last index set (every loop makes whole passes over the R sets): the accuracy check is
    made on what was timed."""
    rotations = int(indices.shape[0])
    max_passes = max(1, MAX_CALLS // rotations)
    outputs = None

    def run(passes: int) -> float:
        nonlocal outputs
        start = time.perf_counter()
        outputs = jax.block_until_ready(_loop(fn, passes * rotations, q, pool, indices, topk_lens))
        return time.perf_counter() - start

    passes = 1 if guess_us <= 0 else math.ceil(options.min_round_s / (guess_us * 1e-6 * rotations))
    passes = min(max_passes, passes)
    run(passes)  # compile and warm up
    elapsed = run(passes)
    for _ in range(3):  # resize a loop far off the target (aim at 1.5x min_round_s), recompiled
        too_short = elapsed < options.min_round_s and passes < max_passes
        too_long = elapsed > MAX_ROUND_FACTOR * options.min_round_s and passes > 1
        if not (too_short or too_long):
            break
        passes = min(max_passes, max(1, math.ceil(passes * 1.5 * options.min_round_s / max(elapsed, 1e-9))))
        run(passes)
        elapsed = run(passes)
    num_calls = passes * rotations
    rounds = tuple(run(passes) / num_calls * 1e6 for _ in range(options.rounds))
    loop_us = statistics.median(rounds)
    if not profile:
        return Timing("loop", loop_us, rounds, num_calls, loop_us=loop_us), outputs
    runs = max(1, math.ceil(options.profile_calls / num_calls))
    try:
        found = spans.profile_runs(lambda: run(passes), runs, num_calls)
    except Exception as err:  # noqa: BLE001 - the row says why there is no time
        reason = str(err) if isinstance(err, spans.SpanError) else f"profiler: {type(err).__name__}: {err}"
        return Timing("profiler", None, rounds, num_calls, loop_us=loop_us, error=reason), outputs
    timing = Timing("profiler", found.median_us, rounds, num_calls, loop_us=loop_us, profile=found.summary())
    return timing, outputs


# XLA command buffers for every fusion and custom call, however short the sequence: the
# call is recorded once as a CUDA graph and replayed (docs/serving.md).
COMMAND_BUFFERS = {"xla_gpu_enable_command_buffer": "FUSION,CUSTOM_CALL", "xla_gpu_graph_min_graph_size": 1}
CALLS = 20  # whole calls traced per setting (median)


def time_call(
    fn: Callable, q, pool, indices, topk_lens, *, calls: int = CALLS, profiled: bool = True
) -> dict:
    """The whole call's device span under XLA's defaults and under command buffers.

    ``fn(q, pool, indices [T, K], topk_lens [T] | None)``; ``indices`` / ``topk_lens`` hold
    R index sets (``[R, T, K]``), call ``i`` reads set ``i % R``. Returns
    ``{"default": {...}, "command_buffers": {...}}``, each with ``us`` (the median span of
    every device event of a call), ``kernels_us`` (the package's kernels alone, when
    ``profiled``), ``events`` (one call's events in order: name and median duration in us)
    and ``error`` (why there is no time, else None)."""
    rotations = int(indices.shape[0])
    sets = [
        (indices[r], None if topk_lens is None else topk_lens[r]) for r in range(rotations)
    ]  # on the device before the trace: no copy inside a call
    jitted = jax.jit(fn)
    found = {}
    for setting, options in (("default", None), ("command_buffers", COMMAND_BUFFERS)):
        compiled = jitted.lower(q, pool, *sets[0]).compile(compiler_options=options)

        def run(n: int, compiled=compiled):
            for i in range(n):
                jax.block_until_ready(compiled(q, pool, *sets[i % rotations]))

        run(max(3, rotations))  # warm up (command buffers are recorded on the first calls)
        row = {"us": None, "kernels_us": None, "events": None, "error": None}
        try:
            planes = spans.traced_events(lambda: run(calls))
            every = spans.trace_spans(planes, calls, is_ours=lambda name: True)
            row |= {"us": every.median_us, "events": spans.kernel_durations(planes, calls)}
            if profiled:
                row["kernels_us"] = spans.trace_spans(planes, calls).median_us
        except Exception as err:  # noqa: BLE001 - the row says why there is no time
            row["error"] = str(err) if isinstance(err, spans.SpanError) else f"{type(err).__name__}: {err}"
        found[setting] = row
    return found


GRAPH_REPLAYS = 10  # replays of the timed graph (triton.testing.do_bench_cudagraph's count)


def time_torch(calls: list[Callable[[], object]], options: TimingOptions) -> Timing:
    """The calls (one per index set) replayed in a CUDA graph; time per call.

    ``triton.testing.do_bench_cudagraph``'s method, with the capture confined to this
    thread (``capture_error_mode="thread_local"``): under torch's default (global) mode
    a CUDA call from one of JAX's runtime threads during the capture invalidates it and
    leaves the process's context unusable."""
    import torch

    def all_sets():
        for call in calls:
            call()

    def captured(repeats: int):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, capture_error_mode="thread_local"):
            for _ in range(repeats):
                all_sets()
        torch.cuda.synchronize()
        return graph

    def replay_ms(graph) -> float:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        torch.cuda.synchronize()
        return start.elapsed_time(end)

    with torch.cuda.stream(torch.cuda.Stream()):
        all_sets()  # warm-up, outside any capture
        torch.cuda.synchronize()
        once = max(replay_ms(captured(1)), 1e-3)
        repeats = max(1, int(options.min_round_s * 1e3 / once))
        graph = captured(repeats)
        rounds = tuple(replay_ms(graph) * 1e3 / (repeats * len(calls)) for _ in range(GRAPH_REPLAYS))
    return Timing("cuda_graph", statistics.median(rounds), rounds, repeats * len(calls))
