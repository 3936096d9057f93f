"""The product's face carries no history: the README, docs/, the package and ffi/ name no
device run of the lab ("run 40"), no tracker entry ("issue 22", "#22"), no contract outside
the tree ("SPEC") and no path into the lab's results. Numbers live in docs/results/ and
the page made from it; the lab (research/) keeps the history. Nothing that ships (the
package, ffi/, docs/, the tests, scripts, benchmarks, examples, the README) points into the
lab other than its index, research/README.md: its notes, scripts and results are not there
for a reader of the product."""

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


# Everything that ships or is read beside the product, for pointers into the lab.
SHIPPED = [*FACE, "tests", "scripts", "benchmarks", "examples", "CHANGELOG.md", "pyproject.toml"]
LAB_POINTER = re.compile(r"research/(?!README\.md)[\w.*<-]")


def face_files(entries=FACE) -> list[pathlib.Path]:
    files = []
    for entry in entries:
        path = ROOT / entry
        candidates = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        files += [
            p
            for p in candidates
            if p.suffix not in DATA and "__pycache__" not in p.parts and not p.is_relative_to(THIRD_PARTY)
        ]
    return files


def lab_pointers(text: str) -> list[tuple[int, str]]:
    return [(n, m.group(0)) for n, line in enumerate(text.splitlines(), 1) if (m := LAB_POINTER.search(line))]


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


@pytest.mark.parametrize(
    "path",
    [p for p in face_files(SHIPPED) if p != pathlib.Path(__file__).resolve()],
    ids=lambda p: p.relative_to(ROOT).as_posix(),
)
def test_nothing_that_ships_points_into_the_lab(path):
    found = lab_pointers(path.read_text(errors="replace"))
    assert not found, "\n".join(f"{path.relative_to(ROOT)}:{n}: {text!r}" for n, text in found)


@pytest.mark.parametrize(
    "line",
    [
        "the history: research/pallas.md",
        "(research/notes/lean_heads_major.md)",
        "`research/sm90_profile.sh`",
        "research/sm90/selftest/selftest.cu",
        "the runs in research/results/h200_run40/",
        "research/<note>.md",
    ],
)
def test_each_pointer_into_the_lab_is_caught(line):
    assert lab_pointers(line)


@pytest.mark.parametrize(
    "line",
    ["the lab's index: research/README.md", "the lab in `research/`", "ffi/ and research/ side by side"],
)
def test_the_lab_may_be_named(line):
    assert not lab_pointers(line)


LAB = ROOT / "research"
LAB_FILE_LINES = 600  # one microbenchmark, one program's part or one study per file


@pytest.mark.skipif(not LAB.is_dir(), reason="not a checkout (no lab)")
def test_the_lab_is_in_small_files():
    """The lab keeps one microbenchmark, one part of a program or one study's note per file:
    none grows into a monolith (its results, data rather than code or prose, aside)."""
    results = LAB / "results"
    large = {
        path.relative_to(ROOT).as_posix(): lines
        for path in sorted(LAB.rglob("*"))
        if path.is_file() and not path.is_relative_to(results) and "__pycache__" not in path.parts
        if (lines := len(path.read_text(errors="replace").splitlines())) > LAB_FILE_LINES
    }
    assert not large, large


# A status that a later run makes false: the docs describe the present, so a check or a
# cost that was run or measured says what came of it.
NOT_YET = re.compile(r"\bnot yet (?:run|measured|timed|verified)\b", re.IGNORECASE)


def test_the_docs_say_what_came_of_each_check():
    stale = [
        (p.relative_to(ROOT).as_posix(), n, line.strip())
        for p in face_files(["README.md", "docs"])
        if p.suffix == ".md"
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if NOT_YET.search(line)
    ]
    assert stale == []


def test_each_script_the_verification_table_names_is_reported_as_run_where_a_results_page_has_it():
    results = " ".join((ROOT / "docs" / name).read_text() for name in ("h200_results.md", "h100_results.md"))
    for line in (ROOT / "docs" / "ffi.md").read_text().splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) != 3 or not line.startswith("|"):
            continue
        for script in re.findall(r"`(scripts/[\w.]+)", cells[1]):
            if script in results:
                assert "verified" in cells[2], (script, cells[2])
