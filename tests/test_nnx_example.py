"""examples/nnx_layer.py: the Flax NNX layer writes where the block table says and
attends the float64 reference's answer, with the pool donated."""

from __future__ import annotations

import os
import sys

import jax.numpy as jnp
import numpy as np
import pytest

pytest.importorskip("flax")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))

import nnx_layer  # noqa: E402
from flax import nnx  # noqa: E402

import jax_glm_nope as jgn  # noqa: E402
from jax_glm_nope import testing  # noqa: E402

HIDDEN, HEADS, PAGE_SIZE, NUM_PAGES = 128, 4, 8, 6
BLOCK_TABLES = np.array([[4, 1, -1], [0, 5, 2]], np.int32)


def run_prefill_and_decode(layer, pool):
    """Request 0 prefills 10 tokens and request 1 13, then each decodes one."""
    positions = np.concatenate([np.arange(10), np.arange(13)]).astype(np.int32)
    token_req = np.repeat([0, 1], [10, 13]).astype(np.int32)
    rng = np.random.default_rng(0)
    # per-token magnitudes spread by e^+-4: latents that are not tame
    x = rng.standard_normal((positions.size, HIDDEN)) * np.exp(rng.uniform(-4, 4, (positions.size, 1)))
    calls = [(x.astype(np.float32), positions, token_req)]
    calls.append(
        (
            rng.standard_normal((2, HIDDEN)).astype(np.float32),
            np.array([10, 13], np.int32),
            np.array([0, 1], np.int32),
        )
    )
    results = []
    for x, positions, token_req in calls:
        candidates = nnx_layer.causal_candidates(jnp.asarray(positions), 12)
        before = pool
        y, pool = nnx_layer.step(layer, pool, x, BLOCK_TABLES, positions, token_req, candidates)
        assert before.is_deleted()  # donated: the write happened in place
        results.append(
            (x, positions, token_req, candidates, y, np.asarray(jnp.copy(pool)))
        )  # a copy: the next call donates pool
    return results


def test_layer_writes_rows_at_the_block_tables_slots_and_matches_the_f64_reference():
    layer = nnx_layer.GLMSparseMLA(HIDDEN, HEADS, q_lora_rank=64, rngs=nnx.Rngs(0))
    assert layer.sm_scale == 1 / 16
    (pool,) = jgn.allocate_pools(1, NUM_PAGES, PAGE_SIZE)
    written = np.zeros(NUM_PAGES * PAGE_SIZE, bool)
    for x, positions, token_req, candidates, y, pool_now in run_prefill_and_decode(layer, pool):
        q_abs, latent = layer.queries_and_latent(jnp.asarray(x))
        slots = np.asarray(jgn.block_tables_to_slots(BLOCK_TABLES, positions, token_req, PAGE_SIZE))
        assert (slots >= 0).all() and len(set(slots.tolist())) == len(slots)
        rows = pool_now.reshape(-1, pool_now.shape[-1])
        np.testing.assert_array_equal(rows[slots], np.asarray(jgn.quantize(latent)))  # bit for bit
        written[slots] = True
        assert not rows[~written].any()  # nothing else touched
        indices = np.asarray(
            jgn.block_tables_to_candidate_slots(BLOCK_TABLES, candidates, token_req, PAGE_SIZE)
        )
        topk_lens = np.full(len(indices), indices.shape[1], np.int32)
        ref_out, ref_lse = testing.reference_f64(q_abs, rows, indices, topk_lens, 1 / 16)
        assert np.isfinite(ref_lse).all()  # every token attends at least itself
        y_ref = np.asarray(layer.output(jnp.asarray(ref_out, jnp.float32)), np.float64)
        err = np.linalg.norm(np.asarray(y, np.float64) - y_ref, axis=1) / np.linalg.norm(y_ref, axis=1)
        assert err.max() < 1e-2, err.max()  # bfloat16 attention output, through W_uv and o_proj
    assert written.sum() == 25


def test_the_demo_prefills_decodes_and_writes_one_row_per_token(capsys):
    nnx_layer.main()
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("prefill: y (40, 256)")  # two requests x 20 prompt tokens, hidden 256
    norms = [float(line.rsplit("= ", 1)[1]) for line in lines if line.startswith("decode position")]
    assert len(norms) == 4 and all(np.isfinite(n) and n > 0 for n in norms)
    # 2 x 20 prompt tokens + 2 x 4 decoded, each in its own slot of 8 pages x 16
    assert lines[-1] == "rows written: 48 of 128 slots (528 B each)"
