"""examples/quickstart.py is the README's API example: the README shows it verbatim,
it runs, and what it computes matches a dense float64 attention written here from the
contract (numpy only: the vLLM slot rule, the row format's oracle, a softmax over every
slot of the pool with the candidates as a mask)."""

from __future__ import annotations

import pathlib
import re
import runpy

import numpy as np
import pytest

from jax_glm_nope.testing import assert_accurate, dequantize_f64, quantize_f64

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "examples" / "quickstart.py"


def _core(text: str) -> str:
    """The script without its module docstring."""
    match = re.match(r'\s*""".*?"""\n+', text, re.S)
    assert match, "examples/quickstart.py starts with its docstring"
    return text[match.end() :]


def test_the_readme_shows_the_quickstart_verbatim():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert _core(SCRIPT.read_text()) in blocks, "README's API block differs from examples/quickstart.py"


@pytest.fixture(scope="module")
def quickstart():
    return runpy.run_path(str(SCRIPT), run_name="__main__")


def _slot(block_tables, page_size, request, position):
    """The vLLM rule, one entry at a time; -1 for anything invalid."""
    if request < 0 or request >= block_tables.shape[0] or position < 0:
        return -1
    block = position // page_size
    if block >= block_tables.shape[1] or block_tables[request, block] < 0:
        return -1
    return int(block_tables[request, block]) * page_size + position % page_size


def test_quickstart_matches_a_dense_float64_attention(quickstart):
    g = quickstart
    block_tables, page_size = np.asarray(g["block_tables"]), g["PAGE_SIZE"]
    num_slots = g["NUM_PAGES"] * page_size
    pools = np.zeros((g["NUM_LAYERS"], num_slots, 528), np.uint8)
    written = set()
    for positions, token_req, candidate_positions, latents, queries, outs, lses in g["steps"]:
        positions, token_req = np.asarray(positions), np.asarray(token_req)
        slots = [_slot(block_tables, page_size, r, p) for r, p in zip(token_req, positions, strict=True)]
        assert all(s >= 0 for s in slots) and not written & set(slots), "each step writes its own new slots"
        written |= set(slots)
        for layer in range(g["NUM_LAYERS"]):
            pools[layer, slots] = quantize_f64(np.asarray(latents[layer]))
            values = dequantize_f64(pools[layer])  # [num_slots, 512] float64
            q = np.asarray(queries[layer]).astype(np.float64)  # [T, H, 512]
            mask = np.zeros((len(positions), num_slots), bool)
            for t, (r, row) in enumerate(zip(token_req, np.asarray(candidate_positions), strict=True)):
                for p in row:
                    if (s := _slot(block_tables, page_size, r, p)) >= 0:
                        mask[t, s] = True
            scores = np.einsum("thd,sd->ths", q, values) / 16
            scores = np.where(mask[:, None], scores, -np.inf)
            peak = scores.max(-1, keepdims=True)
            weights = np.exp(scores - peak)
            want_out = np.einsum("ths,sd->thd", weights / weights.sum(-1, keepdims=True), values)
            want_lse = peak[..., 0] + np.log(weights.sum(-1))
            assert_accurate(
                np.asarray(outs[layer], np.float64),
                np.asarray(lses[layer]),
                want_out,
                want_lse,
                label=f"layer {layer}, {len(positions)} tokens",
            )
    for layer, pool in enumerate(g["pools"]):
        np.testing.assert_array_equal(np.asarray(pool).reshape(num_slots, 528), pools[layer])
    assert len(written) == 2 * 12 + 2 * 3
