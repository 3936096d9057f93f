"""Device time per call of the package's own kernels, read from the JAX profiler.

A trace (``jax.profiler.trace``) covers whole runs of the timing loop: N calls of one
implementation. Its GPU plane's stream lines hold every device event as (name, start,
end) in ns (``device_events``). ``call_spans`` keeps the package's kernels
(``is_our_kernel``), splits them into the N calls in launch order and takes, per call,
the first start to the last end: two kernels that overlap under programmatic dependent
launch (the attention kernel and its split combine) count once, and XLA's own kernels
(the loop's index-set slice, pads, the Pallas split merge) not at all.
"""

from __future__ import annotations

import collections
import dataclasses
import glob
import os
import re
import statistics
import tempfile
from collections.abc import Callable, Iterable, Sequence

import jax

Event = tuple[str, float, float]  # (kernel or copy name, start ns, end ns)

# The kernels behind jax_glm_nope.sparse_mla: the sm_90a kernels (sparse_mla_*_kernel and
# combine_kernel), FlashInfer's GLM53_NOPE kernels (sparse_mla_decode_*, sparse_mla_prefill_*)
# and the Pallas kernel, whose Triton function takes the pallas_call's name
# (sparse_mla_fp8_rows). Names come demangled or mangled; both contain these words.
OUR_KERNEL = re.compile(r"sparse_mla|combine_kernel")
# What XLA launches itself: fusions, copies, its own Triton and cuBLAS kernels. Never ours,
# whatever else the name contains.
XLA_KERNEL = re.compile(r"^(fusion|loop_|input_|wrapped_|copy|memcpy|memset|triton_|nvjet|cutlass)", re.I)
GPU_PLANE_PREFIX = "/device:GPU:"
STREAM_LINE_PREFIX = "Stream #"  # CUPTI's lines, one per CUDA stream (not the derived "XLA Ops" ones)


class SpanError(ValueError):
    """The device events do not give one span per call (the message says why)."""


class NoKernelEvents(SpanError):
    """The trace holds none of the package's kernels (on the CPU, or a kernel name the
    predicate does not know)."""


def is_our_kernel(name: str) -> bool:
    return OUR_KERNEL.search(name) is not None and XLA_KERNEL.match(name) is None


@dataclasses.dataclass(frozen=True)
class CallSpans:
    spans_ns: tuple[float, ...]  # per call: first start to last end of our kernels
    kernels: tuple[str, ...]  # one call's kernels, in launch order
    other_ns: tuple[float, ...]  # per call but the last: XLA's device events from its start to the next's

    @property
    def median_us(self) -> float:
        return statistics.median(self.spans_ns) / 1e3

    def summary(self) -> dict:
        return {
            "calls": len(self.spans_ns),
            "kernels": list(self.kernels),
            "span_min_us": min(self.spans_ns) / 1e3,
            "span_max_us": max(self.spans_ns) / 1e3,
            "other_us": statistics.median(self.other_ns) / 1e3 if self.other_ns else None,
        }


def _most_frequent(events: Sequence[Event], count: int = 5) -> str:
    names = collections.Counter(name for name, _, _ in events).most_common(count)
    return ", ".join(f"{name[:80]} x{n}" for name, n in names) or "none"


def call_spans(
    events: Iterable[Event], num_calls: int, is_ours: Callable[[str], bool] = is_our_kernel
) -> CallSpans:
    """The span of our kernels in each of ``num_calls`` consecutive calls.

    ``events`` are one device's (name, start_ns, end_ns), any order, any line. Every call
    must launch the same sequence of our kernels: the i-th call is the i-th run of that
    sequence in start order (a dependent launch starts after its primary starts, so the
    order of starts is the order of launches)."""
    events = sorted(events, key=lambda e: (e[1], e[2]))
    ours = [e for e in events if is_ours(e[0])]
    if not ours:
        raise NoKernelEvents(
            f"no kernel of the package among the {len(events)} device events (most frequent: "
            f"{_most_frequent(events)})"
        )
    if num_calls < 1 or len(ours) % num_calls:
        raise SpanError(
            f"{len(ours)} kernels of the package for {num_calls} calls: not a whole number per call "
            f"({_most_frequent(ours)})"
        )
    per_call = len(ours) // num_calls
    calls = [ours[i : i + per_call] for i in range(0, len(ours), per_call)]
    kernels = tuple(name for name, _, _ in calls[0])
    for i, call in enumerate(calls):
        if tuple(name for name, _, _ in call) != kernels:
            raise SpanError(
                f"call {i} launches {[n for n, _, _ in call]}, call 0 {list(kernels)}: the calls differ"
            )
    spans = tuple(max(end for _, _, end in call) - call[0][1] for call in calls)
    starts = [call[0][1] for call in calls]
    others = [e for e in events if not is_ours(e[0])]
    other = tuple(
        sum(end - start for _, start, end in others if begin <= start < next_begin)
        for begin, next_begin in zip(starts, starts[1:], strict=False)
    )
    return CallSpans(spans, kernels, other)


def kernel_durations(planes: dict[str, list[Event]], num_calls: int) -> list[tuple[str, float]]:
    """Every device event of a call in launch order, with its median duration (us) over the
    ``num_calls`` calls (each launching the same sequence)."""
    events = sorted(max(planes.values(), key=len), key=lambda e: (e[1], e[2]))
    per_call = len(events) // num_calls
    calls = [events[i * per_call : (i + 1) * per_call] for i in range(num_calls)]
    return [
        (calls[0][k][0], statistics.median((c[k][2] - c[k][1]) / 1e3 for c in calls)) for k in range(per_call)
    ]


def device_events(data) -> dict[str, list[Event]]:
    """A ``jax.profiler.ProfileData``'s GPU planes -> their stream lines' events."""
    found = {}
    for plane in data.planes:
        if plane.name.startswith(GPU_PLANE_PREFIX):
            found[plane.name] = [
                (event.name, event.start_ns, event.end_ns)
                for line in plane.lines
                if line.name.startswith(STREAM_LINE_PREFIX)
                for event in line.events
            ]
    return found


def trace_spans(
    planes: dict[str, list[Event]], num_calls: int, is_ours: Callable[[str], bool] = is_our_kernel
) -> CallSpans:
    """``call_spans`` on the one GPU plane that holds our kernels."""
    if not any(planes.values()):
        where = ", ".join(planes) or f"no {GPU_PLANE_PREFIX}N plane"
        raise NoKernelEvents(
            f"no GPU kernel events in the profile ({where}; JAX's backend is {jax.default_backend()!r})"
        )
    serving = [name for name, events in planes.items() if any(is_ours(e[0]) for e in events)]
    if len(serving) > 1:
        raise SpanError(f"kernels of the package on several GPUs ({', '.join(serving)}): one device only")
    if not serving:
        everything = [e for events in planes.values() for e in events]
        raise NoKernelEvents(
            f"no kernel of the package among the {len(everything)} GPU kernel events of "
            f"{', '.join(planes)} (most frequent: {_most_frequent(everything)})"
        )
    return call_spans(planes[serving[0]], num_calls, is_ours)


def traced_events(run: Callable[[], object]) -> dict[str, list[Event]]:
    """``device_events`` of a trace of ``run()`` (compiled, warm, and waited for)."""
    with tempfile.TemporaryDirectory(prefix="jax_glm_nope_trace_") as log_dir:
        with jax.profiler.trace(log_dir):
            jax.block_until_ready(run())
        paths = glob.glob(os.path.join(log_dir, "**", "*.xplane.pb"), recursive=True)
        if len(paths) != 1:
            raise SpanError(f"expected one *.xplane.pb in the trace folder, found {len(paths)}")
        return device_events(jax.profiler.ProfileData.from_file(paths[0]))


def profile_runs(run: Callable[[], object], runs: int, calls_per_run: int) -> CallSpans:
    """Trace ``runs`` runs of ``run`` (each making ``calls_per_run`` calls; compiled, warm,
    and nothing of it still running) and return the calls' spans. Raises ``SpanError``
    (``NoKernelEvents`` when the trace holds none of our kernels) or the profiler's own error."""

    def all_runs():
        for _ in range(runs):
            jax.block_until_ready(run())

    return trace_spans(traced_events(all_runs), runs * calls_per_run)
