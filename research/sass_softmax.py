"""The scorer warpgroup's softmax in the pipelined heads-major kernel, counted in SASS
instructions along the path one warp executes per block.

    nvcc -cubin -arch=sm_90a -I ffi research/sm90/lean_sass.cu -o lean.cubin
    nvdisasm -c lean.cubin > lean.sass           # or: cuobjdump -sass lean.cubin > lean.sass
    python research/sass_softmax.py lean.sass hp_kernel_old hp_kernel_lean --take 0x4f10

The scorer's block loop is the backward branch whose body holds the score MMAs (HGMMA
64x64), the value MMAs (HGMMA 64x128) and the exponentials (MUFU.EX2): warpgroup 1's loop
has no score MMA. The softmax section runs from the loop's head (the previous iteration
ends on the next block's scores, so the head is the first instruction after the last
score wait) to the first mbarrier wait after it (the P' buffer's "empty" wait). It
includes O's rescale (skipped while the factor is 1) and the value operands U (HMUL2).

The count follows one path: unconditional branches are taken, conditional ones fall
through unless their address is listed in --take. The script prints every conditional
forward branch with the instructions it skips, so the path can be chosen from the
listing (e.g. take the branches that skip O's rescale, and the one that skips the slow
path). Accepts nvdisasm (`BRA `(.L_x_N)`) and cuobjdump (`BRA 0x...`) output.
"""

from __future__ import annotations

import argparse
import collections
import re

LINE = re.compile(r"\s+/\*([0-9a-f]+)\*/\s+(.*?)\s*;")
LABEL = re.compile(r"^(\.L_\w+):")
TARGET = re.compile(r"BRA(?:\.\w+)*\s+(?:`\((\.L_\w+)\)|(0x[0-9a-f]+))")


def functions(text: str) -> dict[str, list[tuple[int, str]]]:
    """Every function's (address, instruction), branch targets resolved to addresses."""
    out: dict[str, list[tuple[int, str]]] = {}
    name = None
    pending: list[str] = []
    labels: dict[str, int] = {}
    for raw in text.splitlines():
        header = re.search(r"(?:Function : |^\.text\.)(\S+?):?$", raw.strip())
        if header and not raw.strip().startswith("/*"):
            name = header.group(1)
            out[name] = []
            continue
        label = LABEL.match(raw.strip())
        if label:
            pending.append(label.group(1))
            continue
        m = LINE.match(raw)
        if m and name is not None:
            address = int(m.group(1), 16)
            for lab in pending:
                labels[lab] = address
            pending = []
            out[name].append((address, m.group(2)))
    for name, body in out.items():
        resolved = []
        for address, text in body:
            t = TARGET.search(text)
            if t and t.group(1):
                text = text.replace(f"`({t.group(1)})", hex(labels.get(t.group(1), -1)))
            resolved.append((address, text))
        out[name] = resolved
    return out


def target(text: str) -> int | None:
    t = TARGET.search(text)
    return int(t.group(2), 16) if t and t.group(2) else None


def opcode(text: str) -> str:
    return re.sub(r"^@!?U?P\w+\s+", "", text).split()[0]


def scorer_loop(body: list[tuple[int, str]]) -> tuple[int, int]:
    """Indices (head, back branch) of the scorer's block loop."""
    index = {a: i for i, (a, _) in enumerate(body)}
    for i, (address, text) in enumerate(body):
        t = target(text)
        if t is None or t >= address or t not in index:
            continue
        span = [x for _, x in body[index[t] : i + 1]]
        if (
            any("HGMMA.64x64x16" in x for x in span)
            and any("HGMMA.64x128x16" in x for x in span)
            and any("MUFU.EX2" in x for x in span)
        ):
            return index[t], i
    raise SystemExit("no loop with score MMAs, value MMAs and MUFU.EX2")


def section(body, head: int) -> tuple[int, int]:
    end = next(i for i in range(head, len(body)) if "SYNCS.PHASECHK" in body[i][1])
    return head, end


def walk(body, start: int, end: int, take: set[int]) -> list[tuple[int, str]]:
    index = {a: i for i, (a, _) in enumerate(body)}
    path, i, steps = [], start, 0
    while start <= i < end and steps < 100000:
        address, text = body[i]
        path.append((address, text))
        steps += 1
        t = target(text)
        conditional = text.startswith("@")
        if t is not None and "BRA.DIV" not in text and (not conditional or address in take):
            i = index[t]
        else:
            i += 1
    return path


def report(name: str, body, take: set[int]) -> None:
    head, back = scorer_loop(body)
    start, end = section(body, head)
    static = body[start:end]
    path = walk(body, start, end, take)
    classes = collections.Counter(opcode(t).split(".")[0] for _, t in path)
    top = ", ".join(f"{op} {n}" for op, n in classes.most_common(14))
    print(
        f"{name}: loop {back - head + 1} instructions; softmax section "
        f"{body[start][0]:#x}-{body[end][0]:#x}: {len(static)} static, {len(path)} on the path"
    )
    print(f"    path classes: {top}")
    for address, text in static:
        t = target(text)
        if t is not None and text.startswith("@") and "BRA.DIV" not in text:
            skipped = sum(1 for a, _ in static if address < a < t) if t > address else None
            what = f"skips {skipped}" if skipped is not None else "backward"
            mark = "taken" if address in take else "falls through"
            print(f"    {address:#x}: {text[:40]:40s} -> {t:#x} ({what}; {mark})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sass", help="nvdisasm -c or cuobjdump -sass output")
    parser.add_argument("kernels", nargs="+", help="parts of the kernels' mangled names")
    parser.add_argument("--take", default="", help="comma-separated addresses of conditional branches taken")
    args = parser.parse_args()
    take = {int(x, 16) for x in args.take.split(",") if x}
    funcs = functions(open(args.sass).read())
    for part in args.kernels:
        name = next((n for n in funcs if part in n), None)
        if name is None:
            raise SystemExit(f"no function named like {part!r}")
        report(part, funcs[name], take)


if __name__ == "__main__":
    main()
