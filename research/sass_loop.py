"""The main loop of our sm_90a attention kernels, counted in SASS instructions.

    cuobjdump -sass OUT/sm90_selftest > sass.txt     # after research/build.sh OUT selftest
    python research/sass_loop.py sass.txt sparse_mla_heads_major_kernel sparse_mla_lean_kernel

The kernels of 33-128 heads are bound by instruction issue (research/notes/dims_pair_kernel.md, runs
34-35), so a loop's instruction count is an offline proxy for its time at the same issue
rate. The loop is the block loop: from the target of the backward branch that follows the
last value MMA (HGMMA 64x128) to that branch. Printed per kernel: the static count, the
forward branches inside it (the regions a warp may skip) and the opcode classes that
matter (HGMMA, uniform datapath, FMUL, FSEL, LDS). The common path, what a warp executes
per block once its running maximum settles, is the static count less the skipped regions
that are rare (O's rescale) or taken by only some warps (the scale table by one warp of
four): the notebook states which regions it subtracts.
"""

from __future__ import annotations

import argparse
import collections
import re

INSTRUCTION = re.compile(r"\s+/\*([0-9a-f]+)\*/\s+(.*?);")
BRANCH = re.compile(r"BRA (0x[0-9a-f]+)")


def kernel_sass(text: str, name: str) -> list[tuple[int, str]]:
    """(address, instruction) of the first function whose mangled name contains `name`."""
    match = re.search(
        r"Function : (\S*" + re.escape(name) + r"\S*)\n(.*?)(?=\n\s+Function : |\Z)", text, re.S
    )
    if match is None:
        raise SystemExit(f"no function named like {name!r} in the SASS")
    found = (INSTRUCTION.match(line) for line in match.group(2).splitlines())
    return [(int(m.group(1), 16), m.group(2).strip()) for m in found if m]


def main_loop(sass: list[tuple[int, str]]) -> list[tuple[int, str]]:
    values = [i for i, (_, text) in enumerate(sass) if "HGMMA.64x128x16" in text]
    if not values:
        raise SystemExit("no value MMA (HGMMA 64x128x16) in this kernel")
    back = next(i for i in range(values[-1], len(sass)) if BRANCH.search(sass[i][1]))
    target = int(BRANCH.search(sass[back][1]).group(1), 16)
    start = next(i for i, (address, _) in enumerate(sass) if address == target)
    return sass[start : back + 1]


def opcode(text: str) -> str:
    return re.sub(r"^@!?U?P\w+\s+", "", text).split()[0]


def report(name: str, loop: list[tuple[int, str]]) -> None:
    first, last = loop[0][0], loop[-1][0]
    classes = collections.Counter(opcode(text).split(".")[0] for _, text in loop)
    uniform = sum(n for op, n in classes.items() if op.startswith("U"))
    print(
        f"{name}: loop {len(loop)} instructions ({first:#x}-{last:#x}); HGMMA {classes['HGMMA']}, "
        f"uniform {uniform}, FMUL {classes['FMUL']}, FSEL {classes['FSEL']}, LDS {classes['LDS']}"
    )
    for address, text in loop:
        match = BRANCH.search(text)
        if match and "BRA.DIV" not in text:
            target = int(match.group(1), 16)
            if address < target <= last:
                print(f"    {address:#x}: {text[:36]:36s} skips {(target - address) // 16 - 1} instructions")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sass", help="cuobjdump -sass output")
    parser.add_argument("kernels", nargs="+", help="parts of the kernels' mangled names")
    args = parser.parse_args()
    text = open(args.sass).read()
    for name in args.kernels:
        report(name, main_loop(kernel_sass(text, name)))


if __name__ == "__main__":
    main()
