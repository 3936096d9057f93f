"""``batch_invariant=True`` on Hopper, through the public API: a token's ``out`` and ``lse``
bits are the same whether it is computed alone, inside a batch of 8 or inside a batch of
128 (other tokens, other positions), at 8, 16, 64 and 128 heads, for
``implementation="cuda"`` and for the automatic choice. Wide-range data (per-row
magnitudes spread by e^+-4, tile-scale ratios up to 2^24, negative and zero scales,
attention sinks) and hostile candidate rows (holes at the start, middle and end, rows of
only holes, out-of-range ids, duplicates, ``topk_lens``), K = 2048 and 2176.

GPU only (compute capability 9.0); on other machines every case is collected and skipped.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

import jax_glm_nope as jgn
from jax_glm_nope import testing

pytestmark = [pytest.mark.gpu, pytest.mark.sm90]

NUM_TOKENS = 128
NUM_SLOTS = 1 << 14
TOKENS = (0, 1, 5, 37, 64, 126, 127)  # first, only-holes rows (t % 7 == 1), middle, last


def attend(case, rows, implementation):
    """``sparse_mla`` over the tokens ``rows`` of ``case``, in that order."""
    rows = np.asarray(rows)
    out, lse = jgn.sparse_mla(
        jnp.asarray(case.q[rows]),
        jnp.asarray(case.pool),
        jnp.asarray(case.indices[rows]),
        case.sm_scale,
        jnp.asarray(case.topk_lens[rows]),
        implementation=implementation,
        batch_invariant=True,
    )
    return np.asarray(out).view(np.uint16), np.asarray(lse).view(np.uint32)


@pytest.mark.parametrize("implementation", ["cuda", None], ids=["cuda", "auto"])
@pytest.mark.parametrize("num_candidates", [2048, 2176])
@pytest.mark.parametrize("num_heads", [8, 16, 64, 128])
def test_a_tokens_bits_do_not_depend_on_its_batch(num_heads, num_candidates, implementation):
    case = testing.make_case(
        1000 + num_heads + num_candidates,
        NUM_TOKENS,
        num_heads,
        num_candidates,
        num_slots=NUM_SLOTS,
        wide=True,
        with_lens=True,
    )
    out_all, lse_all = attend(case, np.arange(NUM_TOKENS), implementation)
    lse_values = lse_all.view(np.float32)
    assert np.isfinite(lse_values).mean() > 0.3, "the data should give finite results"
    assert (lse_values == -np.inf).any(), "and some tokens with no active candidate"
    rng = np.random.default_rng(num_heads)
    for token in TOKENS:
        out_one, lse_one = attend(case, [token], implementation)
        others = rng.choice(np.delete(np.arange(NUM_TOKENS), token), 7, replace=False)
        batch = np.insert(others, 3, token)  # the token at position 3 among 7 others
        out_eight, lse_eight = attend(case, batch, implementation)
        for label, out, lse in (("alone", out_one[0], lse_one[0]), ("in 8", out_eight[3], lse_eight[3])):
            assert np.array_equal(lse, lse_all[token]), f"token {token} {label}: lse bits differ from T=128"
            assert np.array_equal(out, out_all[token]), f"token {token} {label}: out bits differ from T=128"
