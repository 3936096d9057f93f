"""The product's face carries no history: the README, docs/, the package and ffi/ name no
device run of the lab ("run 40"), no tracker entry ("issue 22", "#22"), no contract outside
the tree ("SPEC") and no path into the lab's results. Numbers live in docs/results/ and
the page made from it; the lab (research/) keeps the history and may be pointed to."""

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
FACE = ["README.md", "docs", "jax_glm_nope", "ffi"]
pytestmark = pytest.mark.skipif(not (ROOT / "docs").is_dir(), reason="not a checkout (no docs/)")
DATA = {".json", ".png"}  # results data: the benchmark's own JSON, as written
THIRD_PARTY = ROOT / "ffi" / "third_party"  # vendored headers, kept byte for byte as released

FORBIDDEN = {
    "a run number": re.compile(r"\b[Rr]uns? \d+(?:\s*-\s*\d+)?\b(?!-[A-Za-z])(?! (?:heads|tokens|rows)\b)"),
    "a tracker number": re.compile(r"\b[Ii]ssues? #?\d+|(?<![\w/])#\d+\b"),
    "a contract outside the tree": re.compile(r"\bSPEC\b"),
    "a path into the lab's results": re.compile(r"research/results"),
}


def face_files() -> list[pathlib.Path]:
    files = []
    for entry in FACE:
        path = ROOT / entry
        candidates = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        files += [
            p
            for p in candidates
            if p.suffix not in DATA and "__pycache__" not in p.parts and not p.is_relative_to(THIRD_PARTY)
        ]
    return files


def offences(text: str) -> list[tuple[int, str, str]]:
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for what, pattern in FORBIDDEN.items():
            if match := pattern.search(line):
                found.append((number, what, match.group(0)))
    return found


def test_the_face_is_read_from_the_tree():
    files = {p.relative_to(ROOT).as_posix() for p in face_files()}
    assert {"README.md", "docs/semantics.md", "jax_glm_nope/api.py", "ffi/README.md"} <= files


@pytest.mark.parametrize("path", face_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_product_carries_no_run_or_tracker_numbers(path):
    found = offences(path.read_text(errors="replace"))
    assert not found, "\n".join(f"{path.relative_to(ROOT)}:{n}: {what}: {text!r}" for n, what, text in found)


@pytest.mark.parametrize(
    "line",
    [
        "measured in run 40 of the notebook",
        "runs 26-27",
        "Issue 22's bars",
        "see #22",
        "SPEC's peers table",
        "`research/results/h200_run40/`",
    ],
)
def test_each_kind_of_history_is_caught(line):
    assert offences(line)


@pytest.mark.parametrize(
    "line",
    [
        "heads-major runs 16-row MMAs",
        "the kernel runs 33 heads per CTA",
        "openxla/xla#37181 (an upstream bug)",
        "the lab's notes: research/README.md",
        "PartitionSpec(None, *spec)",
    ],
)
def test_the_present_passes(line):
    assert not offences(line)
