"""Where the time between kernels of one call goes: a host-and-device trace of a call.

    python benchmarks/launch_gap.py --cases decode:8:64:2048,decode:128:64:2048 --out gap

For each case, one jitted ``sparse_mla`` call (implementation and XLA setting as given) is
run ``--calls`` times under the JAX profiler, each call waited for. For the median call it
prints the device events (kernel, start and end relative to the call's first kernel) and
every host event that overlaps the call's window, thread by thread (XLA's thunks, the FFI
handler, the CUDA driver calls CUPTI sees), so a gap on the device can be matched to what the
host was doing then. Method: docs/benchmarks.md, "The whole call".
"""

from __future__ import annotations

import argparse
import functools
import glob
import json
import os
import statistics
import sys
import tempfile

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import jax  # noqa: E402

import jax_glm_nope  # noqa: E402
from benchmarks import spans, timing  # noqa: E402
from benchmarks.cases import SM_SCALE, make_inputs, make_pool, parse_cases  # noqa: E402

HOST_MARGIN_NS = 30_000  # host events this long before the call's first kernel are shown too


def _call(implementation, q, pool, indices, topk_lens):
    return jax_glm_nope.sparse_mla(q, pool, indices, SM_SCALE, topk_lens, implementation=implementation)


def trace_call(fn, args, calls: int, options) -> dict:
    compiled = jax.jit(fn).lower(*args).compile(compiler_options=options)
    for _ in range(3):
        jax.block_until_ready(compiled(*args))
    with tempfile.TemporaryDirectory(prefix="jax_glm_nope_gap_") as log_dir:
        with jax.profiler.trace(log_dir):
            for _ in range(calls):
                jax.block_until_ready(compiled(*args))
        (path,) = glob.glob(os.path.join(log_dir, "**", "*.xplane.pb"), recursive=True)
        data = jax.profiler.ProfileData.from_file(path)
        planes = spans.device_events(data)
        device = max(planes.values(), key=len)
        found = spans.call_spans(device, calls, lambda name: True)
        median = statistics.median(found.spans_ns)
        pick = min(range(calls), key=lambda i: abs(found.spans_ns[i] - median))
        per_call = len(device) // calls
        events = sorted(device, key=lambda e: (e[1], e[2]))[pick * per_call : (pick + 1) * per_call]
        begin, end = events[0][1], max(e[2] for e in events)
        host = []
        for plane in data.planes:
            if plane.name.startswith(spans.GPU_PLANE_PREFIX):
                continue
            for line in plane.lines:
                for event in line.events:
                    if event.end_ns >= begin - HOST_MARGIN_NS and event.start_ns <= end:
                        host.append(
                            {
                                "plane": plane.name,
                                "line": line.name,
                                "name": event.name[:160],
                                "start_us": (event.start_ns - begin) / 1e3,
                                "duration_us": (event.end_ns - event.start_ns) / 1e3,
                            }
                        )
    host.sort(key=lambda e: e["start_us"])
    device_rows = [
        {"name": name[:120], "start_us": (start - begin) / 1e3, "duration_us": (stop - start) / 1e3}
        for name, start, stop in events
    ]
    return {"span_us": median / 1e3, "device": device_rows, "host": host}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="benchmarks/launch_gap.py", description=__doc__.splitlines()[0])
    p.add_argument("--cases", type=parse_cases, required=True)
    p.add_argument("--implementation", default="cuda")
    p.add_argument("--calls", type=int, default=10)
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    pool = jax.block_until_ready(make_pool(1 << 21))
    result = {}
    for case in args.cases:
        inputs = make_inputs(case, pool.shape[0], rotations=1)
        idx, lens = inputs.index_set(0)
        fn = functools.partial(_call, args.implementation)
        for setting, options in (("default", None), ("command_buffers", timing.COMMAND_BUFFERS)):
            found = trace_call(fn, (inputs.q, pool, idx, lens), args.calls, options)
            result[f"{case.label} {setting}"] = found
            print(f"== {case.label}, {args.implementation}, {setting}: span {found['span_us']:.1f} us")
            for row in found["device"]:
                print(f"  device {row['start_us']:8.2f} +{row['duration_us']:7.2f}  {row['name']}")
            for row in found["host"]:
                if row["duration_us"] < 200:  # the call's own work, not the trace's outer scopes
                    print(
                        f"  host   {row['start_us']:8.2f} +{row['duration_us']:7.2f}  "
                        f"[{row['line'][:24]}] {row['name'][:100]}"
                    )
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "launch_gap.json"), "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
