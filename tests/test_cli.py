"""Capacity planner and the jax-glm-nope CLI."""

import json
import subprocess
import sys

import pytest

import jax_glm_nope as jgn
from jax_glm_nope import layout, planner


def test_capacity_arithmetic_by_hand():
    memory = 80 * 2**30
    rows = {r.row_bytes: r for r in jgn.capacity(memory, page_size=64, context=131072)}
    for row_bytes, r in rows.items():
        per_token = 12 * (row_bytes + 33)  # 11 sparse-MLA + 1 MTP layers, indexer 132 B per 4 tokens
        assert r.bytes_per_token == per_token
        assert r.pages == memory // (64 * per_token)
        assert r.cached_tokens == r.pages * 64
        assert r.requests == r.pages // (131072 // 64)
    assert rows[528].cached_tokens > rows[656].cached_tokens > rows[1024].cached_tokens
    # rows alone give 656/528 = 1.242x; with the indexer keys 689/561
    assert abs(rows[528].vs_padded - (656 + 33) / (528 + 33)) < 1e-4
    assert layout.PADDED.bytes_per_token / layout.COMPACT.bytes_per_token == pytest.approx(1.2424, abs=1e-4)


def test_page_rounding_counts_whole_pages():
    # a context of 65 tokens takes two pages of 64
    (compact, *_) = jgn.capacity(10 * 64 * 12 * 561, page_size=64, context=65)
    assert compact.pages == 10 and compact.requests == 5


@pytest.mark.parametrize(
    "text, value",
    [
        ("80GiB", 80 * 2**30),
        ("141GB", 141 * 10**9),
        ("512MiB", 2**29),
        ("1000", 1000),
        ("1.5TiB", int(1.5 * 2**40)),
    ],
)
def test_parse_bytes(text, value):
    assert planner.parse_bytes(text) == value


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "jax_glm_nope.cli", *args], capture_output=True, text=True, timeout=120
    )


def test_cli_capacity_json_matches_library():
    done = run_cli(
        "capacity", "--memory", "80GiB", "--tp", "8", "--page-size", "64", "--context", "131072", "--json"
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["heads_per_device"] == 8
    lib = jgn.capacity(80 * 2**30, tp=8)
    assert [r["cached_tokens"] for r in data["rows"]] == [r.cached_tokens for r in lib]


def test_cli_capacity_table_and_errors():
    done = run_cli("capacity", "--memory", "80GiB")
    assert done.returncode == 0 and "COMPACT fp8" in done.stdout and "BF16 latent" in done.stdout
    bad = run_cli("capacity", "--memory", "lots")
    assert bad.returncode == 2 and "memory: expected a size" in bad.stderr


def test_cli_info_lists_backends():
    done = run_cli("info")
    assert done.returncode == 0, done.stderr
    assert "reference  ready" in done.stdout and "auto" in done.stdout and "jax " in done.stdout
