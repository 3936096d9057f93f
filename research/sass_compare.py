"""Compare the SASS of the kernels in two CUDA objects, function by function.

Each object's SASS is dumped with ``cuobjdump -sass`` (``CUOBJDUMP``, else the one on
``PATH``; the ``nvidia-cuda-cuobjdump`` and ``nvidia-cuda-nvdisasm`` wheels provide them)
and split into functions. A function's name is demangled and normalised: ``--rename
OLD=NEW`` maps a kernel's old name to its new one, and ``--drop-bool`` removes a trailing
``false`` template argument (a compile-time variant flag that was removed; its ``true``
instantiations keep their names). Bodies are
compared line by line, instructions and their encodings, so "same" means byte-identical
code.

    python research/sass_compare.py before.o after.o \\
        --rename sparse_mla_kernel=sparse_mla_block_shared_kernel --drop-bool

Prints one line per kernel (same / differs / only before / only after) and exits 1 when a
kernel of the second object differs from, or is missing in, the first.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys


def sass(path: str) -> str:
    tool = os.environ.get("CUOBJDUMP") or shutil.which("cuobjdump")
    if not tool:
        sys.exit("cuobjdump not found: set CUOBJDUMP (wheels nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm)")
    return subprocess.run([tool, "-sass", path], capture_output=True, text=True, check=True).stdout


def demangle(names: list[str]) -> list[str]:
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def functions(text: str) -> dict[str, list[str]]:
    parts = re.split(r"^\s*Function : (\S+)\s*$", text, flags=re.M)
    mangled = parts[1::2]
    bodies = [[line.strip() for line in body.splitlines() if line.strip()] for body in parts[2::2]]
    return dict(zip(demangle(mangled), bodies, strict=True))


def normalise(name: str, renames: dict[str, str], drop_bool: bool) -> str:
    if name.endswith(")"):  # the parameter list (its struct may change)
        depth = 0
        for i in range(len(name) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(name[i], 0)
            if depth == 0:
                name = name[:i]
                break
    name = re.sub(r"^void ", "", name)
    name = name.replace("jax_glm_nope::sm90::", "")
    if drop_bool:  # the instantiation with the flag off keeps the kernel's plain name
        name = re.sub(r"(, )?false>", ">", name).replace("<>", "")
    base = name.split("<")[0]
    if base in renames:
        name = renames[base] + name[len(base) :]
    return name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rename", action="append", default=[], help="OLD=NEW kernel name")
    parser.add_argument("--drop-bool", action="store_true", help="drop trailing false template arguments")
    parser.add_argument("--diff", action="store_true", help="print a unified diff of differing kernels")
    args = parser.parse_args(argv)
    renames = dict(r.split("=", 1) for r in args.rename)
    sides = []
    for path in (args.before, args.after):
        sides.append(
            {normalise(n, renames, args.drop_bool): body for n, body in functions(sass(path)).items()}
        )
    before, after = sides
    failed = False
    for name in sorted(set(before) | set(after)):
        if name not in after:
            print(f"only before  {name}")
            continue
        if name not in before:
            print(f"only after   {name}")
            failed = True
            continue
        same = before[name] == after[name]
        failed |= not same
        print(f"{'same' if same else 'DIFFERS':12} {name}  ({len(after[name]) // 2} instructions)")
        if not same and args.diff:
            sys.stdout.writelines(
                line + "\n" for line in difflib.unified_diff(before[name], after[name], lineterm="", n=2)
            )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
