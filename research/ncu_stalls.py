"""Where a kernel's warps wait, from an ncu source-page export.

    ncu --import report.ncu-rep --page source --csv --print-source sass -k regex:sparse_mla > s.csv
    python research/ncu_stalls.py s.csv [--chunk 80]

Prints the stall reasons over all samples, samples and executed instructions by opcode,
the 25 instructions with the most samples (with their top reasons), and per chunk of
consecutive SASS instructions the share of samples against the share of instructions
(a chunk with many more samples than instructions is where latency is exposed).
``research/sm90_profile.sh`` writes these exports for each profiled case.
"""

from __future__ import annotations

import argparse
import collections
import csv


def load(path: str) -> tuple[list[str], list[dict]]:
    """The first kernel's rows of the export (it repeats its header per kernel)."""
    rows = list(csv.reader(open(path, newline="")))
    starts = [k for k, r in enumerate(rows) if r and r[0] == "Address"]
    header = rows[starts[0]]
    end = starts[1] if len(starts) > 1 else len(rows)
    return header, [
        dict(zip(header, r, strict=True)) for r in rows[starts[0] + 1 : end] if len(r) == len(header)
    ]


def num(text: str) -> float:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def opcode(source: str) -> str:
    words = source.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0] if words else "?"


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("csv")
    p.add_argument("--chunk", type=int, default=80, help="SASS instructions per region line")
    args = p.parse_args(argv)
    header, data = load(args.csv)
    samples = "Warp Stall Sampling (All Samples)"
    reasons = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]
    total = sum(num(d[samples]) for d in data) or 1.0
    executed = sum(num(d["Instructions Executed"]) for d in data) or 1.0
    print(f"samples {total:.0f}, warp instructions executed {executed:.0f}")
    by_reason = collections.Counter()
    for d in data:
        for r in reasons:
            by_reason[r] += num(d[r])
    for r, v in by_reason.most_common(12):
        print(f"  {r[6:]:22s} {100 * v / total:5.1f}%")
    by_op, ops = collections.Counter(), collections.Counter()
    for d in data:
        o = opcode(d["Source"]).split(".")[0]
        by_op[o] += num(d[samples])
        ops[o] += num(d["Instructions Executed"])
    print("by opcode: samples, instructions")
    for o, v in by_op.most_common(16):
        print(f"  {o:10s} {100 * v / total:5.1f}%  {100 * ops[o] / executed:5.1f}%")
    print("top instructions:")
    for d in sorted(data, key=lambda d: -num(d[samples]))[:25]:
        s = num(d[samples])
        top = sorted(((num(d[r]), r) for r in reasons), reverse=True)[:3]
        why = " ".join(f"{r[6:]}={100 * v / max(s, 1):.0f}%" for v, r in top)
        print(f"  {100 * s / total:5.1f}% {d['Source'].strip()[:58]:58s} {why}")
    print(f"by region ({args.chunk} instructions each): samples, instructions, top opcodes")
    for k in range(0, len(data), args.chunk):
        seg = data[k : k + args.chunk]
        s = sum(num(d[samples]) for d in seg)
        n = sum(num(d["Instructions Executed"]) for d in seg)
        mix = collections.Counter()
        for d in seg:
            mix[opcode(d["Source"]).split(".")[0]] += num(d["Instructions Executed"])
        top = " ".join(f"{o}:{100 * v / max(n, 1):.0f}" for o, v in mix.most_common(4))
        print(f"  {k:5d} {100 * s / total:5.1f}% {100 * n / executed:5.1f}%  {top}")


if __name__ == "__main__":
    main()
