"""The FFI bridge on a CUDA GPU (docs/ffi.md).

On any GPU: the arch-generic targets write rows bit-identical to the numpy reference
and read them back as the jnp dequantizer does, in place when the pool is donated, and return
InvalidArgument for mis-sized buffers. On a GPU that is not SM120/SM121 the GLM
targets answer Unimplemented naming both architectures and the process stays
usable. On SM120/SM121 the GLM targets match the float64 reference on hostile cases.

Uses ``JAX_GLM_NOPE_FFI_LIBRARY`` when set, else builds the library on first use.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from attention_cases import assert_matches_reference, make_case
from numpy_ref import np_quantize, random_latent

from jax_glm_nope import layout, quant
from jax_glm_nope.bridge import (
    cuda_compute_capability,
    dequantize_ffi,
    sparse_mla_flashinfer,
    targets,
    write_kv_ffi,
)


def _cuda_devices():
    try:
        return jax.devices("cuda")
    except RuntimeError:
        return []


pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not _cuda_devices(), reason="needs a CUDA GPU"),
]

IS_SM120 = cuda_compute_capability() in ("12.0", "12.1")
POISON = 0xAB


@pytest.fixture(scope="module", autouse=True)
def library():
    return targets.load_library()


def hostile_latent(seed: int, num_rows: int, dtype) -> np.ndarray:
    """Tiles over six orders of magnitude, zero tiles, -0.0 tiles, exact 448 peaks,
    subnormals and lone outliers; returned in ``dtype``."""
    rng = np.random.default_rng(seed)
    x = random_latent(rng, max(num_rows, 8))
    x[0] = 0.0  # every tile amax 0: scale 0, codes 0x00
    x[1, 128:256] = 0.0
    x[2, :128] = -0.0  # -0.0 tile: still amax 0, so +0 codes
    x[3, 7] = 3.0e4  # one outlier sets its tile's scale
    x[4, 256:384] = 1.0e-40  # float32 subnormals
    x[5, 384:] = np.where(np.arange(128) % 2, 448.0, -448.0)
    x[6, :] = np.float32(2.0**-130)
    if dtype == np.float16:
        x = np.clip(x, -6.0e4, 6.0e4)
    return x[:num_rows].astype(dtype)


def hostile_slots(seed: int, num_tokens: int, num_slots: int) -> np.ndarray:
    rng = np.random.default_rng(seed + 1)
    slots = rng.permutation(num_slots)[:num_tokens].astype(np.int32)
    slots[3] = -1
    slots[8] = -(2**31)
    slots[9] = num_slots  # one past the end: dropped
    slots[10] = num_slots + 12345
    slots[12] = slots[11]  # duplicate: the later row wins
    slots[20] = 0
    return slots


def expected_pool(pool: np.ndarray, rows: np.ndarray, slots: np.ndarray) -> np.ndarray:
    out = pool.copy()
    for t, slot in enumerate(slots):  # sequential, so the last writer wins
        if 0 <= slot < pool.shape[0]:
            out[slot] = rows[t]
    return out


DTYPES = {"float32": np.float32, "bfloat16": ml_dtypes.bfloat16, "float16": np.float16}


@pytest.mark.parametrize("fmt", layout.FORMATS, ids=lambda f: f.name)
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_write_kv_bit_exact(fmt, dtype):
    num_slots, num_tokens = 301, 257
    latent = hostile_latent(7, num_tokens, DTYPES[dtype])
    slots = hostile_slots(7, num_tokens, num_slots)
    pool = np.full((num_slots, fmt.bytes_per_token), POISON, np.uint8)
    rows = np_quantize(latent.astype(np.float32), fmt)
    written = np.asarray(jax.jit(write_kv_ffi)(jnp.asarray(pool), jnp.asarray(latent), jnp.asarray(slots)))
    np.testing.assert_array_equal(written, expected_pool(pool, rows, slots))


def test_write_kv_in_place_with_donation():
    num_slots = 4096
    pool = jnp.full((num_slots, layout.COMPACT.bytes_per_token), POISON, jnp.uint8)
    before = pool.unsafe_buffer_pointer()
    latent = hostile_latent(3, 64, np.float32)
    slots = np.arange(64, dtype=np.int32) * 7
    step = jax.jit(write_kv_ffi, donate_argnums=0)
    out = step(pool, jnp.asarray(latent), jnp.asarray(slots))
    assert pool.is_deleted()
    assert out.unsafe_buffer_pointer() == before
    out2 = step(out, jnp.asarray(latent[::-1].copy()), jnp.asarray(slots + 1))
    assert out2.unsafe_buffer_pointer() == before
    rows = np_quantize(latent, layout.COMPACT)
    host = np.asarray(out2)
    np.testing.assert_array_equal(host[slots], rows)
    np.testing.assert_array_equal(host[slots + 1], rows[::-1])


def test_write_kv_in_a_jitted_loop():
    """Many writes inside one jitted loop: the aliased buffer threads through."""
    num_slots, steps, per_step = 512, 8, 16
    latent = hostile_latent(11, steps * per_step, np.float32).reshape(steps, per_step, 512)
    slots = np.arange(steps * per_step, dtype=np.int32).reshape(steps, per_step) * 3

    @jax.jit
    def run(pool, latent, slots):
        body = lambda i, p: write_kv_ffi(p, latent[i], slots[i])  # noqa: E731
        return jax.lax.fori_loop(0, steps, body, pool)

    pool = np.full((num_slots, 656), POISON, np.uint8)
    out = np.asarray(run(jnp.asarray(pool), jnp.asarray(latent), jnp.asarray(slots)))
    rows = np_quantize(latent.reshape(-1, 512), layout.PADDED)
    np.testing.assert_array_equal(out, expected_pool(pool, rows, slots.ravel()))


@pytest.mark.parametrize("fmt", layout.FORMATS, ids=lambda f: f.name)
def test_dequantize_matches_jnp(fmt):
    rows = np_quantize(hostile_latent(5, 200, np.float32), fmt)
    rows[17, :512] = 0x7F  # NaN codes
    rows[18, 512:516] = np.array([np.inf], "<f4").view(np.uint8)
    got = np.asarray(jax.jit(dequantize_ffi)(jnp.asarray(rows)))
    want = np.asarray(jax.jit(quant.dequantize_rows)(jnp.asarray(rows)))
    np.testing.assert_array_equal(got, want)  # NaN in the same places, all else equal


def test_generic_targets_reject_mis_sized_buffers():
    pool = jnp.zeros((16, 528), jnp.uint8)
    with pytest.raises(Exception, match="latent: expected"):
        jax.block_until_ready(
            targets.write_kv_call(pool, jnp.zeros((2, 256), jnp.float32), jnp.zeros((2,), jnp.int32))
        )
    with pytest.raises(Exception, match="rows: expected"):
        jax.block_until_ready(targets.dequantize_call(jnp.zeros((4, 600), jnp.uint8)))


def _small_attention(num_tokens):
    case = make_case(1, num_tokens, 8, 128)
    lens = jnp.full((num_tokens,), 128, jnp.int32)
    return case.q, case.pool, case.indices, lens, case.sm_scale


@pytest.mark.skipif(IS_SM120, reason="the clean error is for GPUs that are not SM120/SM121")
@pytest.mark.parametrize("num_tokens", [2, 80], ids=["decode", "prefill"])
def test_glm_targets_unimplemented_elsewhere(num_tokens):
    with pytest.raises(Exception) as info:
        jax.block_until_ready(jax.jit(sparse_mla_flashinfer, static_argnums=4)(*_small_attention(num_tokens)))
    message = str(info.value)
    assert "UNIMPLEMENTED" in message.upper()
    assert "sm_120a" in message and f"compute capability {cuda_compute_capability()}" in message
    # The process is still usable: a generic target runs and is right.
    latent = hostile_latent(2, 4, np.float32)
    pool = jax.jit(write_kv_ffi)(
        jnp.zeros((8, 528), jnp.uint8), jnp.asarray(latent), jnp.arange(4, dtype=jnp.int32)
    )
    np.testing.assert_array_equal(np.asarray(pool)[:4], np_quantize(latent, layout.COMPACT))


@pytest.mark.skipif(not IS_SM120, reason="FlashInfer's GLM53_NOPE kernels need SM120/SM121")
@pytest.mark.parametrize("fmt", layout.FORMATS, ids=lambda f: f.name)
@pytest.mark.parametrize("num_heads", [8, 24, 32, 64, 128])
@pytest.mark.parametrize("num_tokens", [1, 64, 65, 130])
def test_glm_matches_reference(fmt, num_heads, num_tokens):
    case = make_case(num_tokens * 1000 + num_heads, num_tokens, num_heads, 2051, fmt=fmt, with_lens=True)
    lens = case.topk_lens if case.topk_lens is not None else jnp.full((num_tokens,), 2051, jnp.int32)
    fn = jax.jit(sparse_mla_flashinfer, static_argnums=4)
    out, lse = fn(case.q, jnp.asarray(case.pool2d), case.indices, lens, case.sm_scale)
    assert_matches_reference(out, lse, case)
    out2, lse2 = fn(case.q, jnp.asarray(case.pool2d), case.indices, lens, case.sm_scale)
    np.testing.assert_array_equal(np.asarray(out2), np.asarray(out))  # same bits on repeat
    np.testing.assert_array_equal(np.asarray(lse2), np.asarray(lse))
