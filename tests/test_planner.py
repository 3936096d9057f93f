"""Capacity planner: defined ratios, strict JSON, integer arguments."""

import dataclasses
import json

import numpy as np
import pytest

import jax_glm_nope as jgn
from jax_glm_nope import planner


@pytest.mark.parametrize(
    "memory, kw",
    [
        (1, {}),
        (2**20, dict(page_size=4096)),
        (12 * 689 * 64 - 1, {}),
    ],  # last: one byte short of a PADDED page
)
def test_ratio_is_none_when_no_padded_page_fits(memory, kw):
    rows = jgn.capacity(memory, **kw)
    padded = next(r for r in rows if r.row_bytes == 656)
    assert padded.cached_tokens == 0
    assert [r.vs_padded for r in rows] == [None, None, None]
    # strict JSON (no NaN/Infinity tokens) for every field
    json.dumps([dataclasses.asdict(r) for r in rows], allow_nan=False)


def test_ratio_is_defined_once_a_padded_page_fits():
    rows = {r.row_bytes: r for r in jgn.capacity(12 * 689 * 64)}  # exactly one PADDED page
    assert rows[656].pages == 1 and rows[656].vs_padded == 1.0
    assert rows[528].vs_padded == rows[528].cached_tokens / 64
    assert rows[1024].vs_padded == 0.0  # no BF16 page fits: 0 tokens, a defined ratio


@pytest.mark.parametrize("memory", [np.int64(80 << 30), np.uint64(80 << 30), np.int32(2**30)])
def test_numpy_integers_are_accepted(memory):
    assert jgn.capacity(memory) == jgn.capacity(int(memory))


@pytest.mark.parametrize("name", ["memory_bytes", "tp", "page_size", "context"])
@pytest.mark.parametrize("bad", [80.0, True, "80GiB", np.float64(8.0)])
def test_non_integers_are_type_errors(name, bad):
    kw = dict(memory_bytes=80 << 30)
    kw[name] = bad
    with pytest.raises(TypeError, match=f"{name}: expected"):
        jgn.capacity(**kw)


@pytest.mark.parametrize("name", ["memory_bytes", "tp", "page_size", "context"])
def test_values_below_one_are_value_errors(name):
    kw = dict(memory_bytes=80 << 30)
    kw[name] = 0
    with pytest.raises(ValueError, match=f"{name}: expected an int >= 1, got 0"):
        jgn.capacity(**kw)


def test_huge_sizes_are_exact_not_overflowing():
    memory = 10**400
    rows = {r.row_bytes: r for r in jgn.capacity(memory, page_size=10**20, context=10**30)}
    assert rows[656].pages == memory // (10**20 * 12 * 689)
    assert rows[656].requests == rows[656].pages // 10**10
    json.dumps([dataclasses.asdict(r) for r in rows.values()], allow_nan=False)


@pytest.mark.parametrize(
    "text, value",
    [
        ("80GiB", 80 * 2**30),
        ("141GB", 141 * 10**9),
        ("141 gb", 141 * 10**9),
        ("512MiB", 2**29),
        ("1000B", 1000),
        ("1.5TiB", int(1.5 * 2**40)),
        ("1e9B", 10**9),
        ("2.5e3KiB", 2560000),
        ("1" + "0" * 400 + "B", 10**400),
        ("1.1GB", 1_100_000_000),  # exact decimal arithmetic, not 1.1 * 1e9 in binary
    ],
)
def test_parse_bytes(text, value):
    assert planner.parse_bytes(text) == value


@pytest.mark.parametrize("text", ["80", "1e9", "0.5", "1" + "0" * 400])
def test_plain_numbers_need_a_unit(text):
    with pytest.raises(ValueError, match="memory: .* has no unit") as info:
        planner.parse_bytes(text)
    # the message's own suggestion parses
    suggestion = f"{text}B"
    assert suggestion in str(info.value)
    planner.parse_bytes(suggestion)


@pytest.mark.parametrize("text", ["lots", "80XB", "-5GiB", "GiB", "1e9999999999B", "nanB", "infGiB"])
def test_bad_sizes_name_memory(text):
    with pytest.raises(ValueError, match="memory: expected a size") as info:
        planner.parse_bytes(text)
    for example in ("80GiB", "141GB", "1e9B"):  # every example the message offers is accepted
        assert example in str(info.value)
        planner.parse_bytes(example)
