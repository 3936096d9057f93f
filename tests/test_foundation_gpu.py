"""The jnp foundation on a CUDA GPU: bit-identical quantization (XLA's GPU division
is div.full.f32, 1 ulp off in a quarter of cases; quant.py must not depend on it),
in-place writes, and the reference backend. Skipped without a CUDA device."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from attention_cases import assert_matches_reference, make_case
from numpy_ref import np_quantize, random_latent

import jax_glm_nope as jgn

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not any(d.platform == "gpu" for d in jax.devices()), reason="needs a CUDA GPU"),
]


@pytest.mark.parametrize("fmt", [jgn.COMPACT, jgn.PADDED])
def test_quantize_on_gpu_is_bit_identical(fmt):
    rng = np.random.default_rng(11)
    x = random_latent(rng, 4096, (1e-20, 1e20))
    x[:7, :128] = 0.0  # zero tiles
    x[7:20] = np.round(x[7:20] * 16) / 16  # values near exact quotients
    got = np.asarray(jax.jit(jgn.quantize, static_argnums=1)(jnp.asarray(x), fmt))
    np.testing.assert_array_equal(got, np_quantize(x, fmt))


def test_write_kv_xla_on_gpu_in_place_and_exact():
    rng = np.random.default_rng(12)
    pool = jnp.asarray(rng.integers(0, 256, (128, 64, 656), dtype=np.uint8))
    latent = random_latent(rng, 256)
    slots = rng.permutation(128 * 64)[:256].astype(np.int32)
    slots[:5] = [-1, -9, 128 * 64, 10**6, 3]
    step = jax.jit(functools.partial(jgn.write_kv, backend="xla"), donate_argnums=0)
    before = pool.unsafe_buffer_pointer()
    out = step(pool, jnp.asarray(latent), jnp.asarray(slots))
    assert out.unsafe_buffer_pointer() == before
    flat = np.asarray(out).reshape(-1, 656)
    rows = np_quantize(latent, jgn.PADDED)
    for t in range(4, 256):
        np.testing.assert_array_equal(flat[slots[t]], rows[t])


def test_reference_backend_on_gpu():
    case = make_case(13, 65, 16, 2051, num_slots=4096, with_lens=True)
    out, lse = jgn.sparse_mla(
        case.q, case.pool, case.indices, case.sm_scale, case.topk_lens, backend="reference"
    )
    assert_matches_reference(out, lse, case)
