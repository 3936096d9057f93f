"""write_kv: bit-identical rows, dropped slots, 2-D/3-D pools, in place when donated."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jax_glm_nope as jgn
from jax_glm_nope.testing import quantize_f64 as np_quantize
from jax_glm_nope.testing import random_latent


@pytest.mark.parametrize("fmt", [jgn.COMPACT, jgn.PADDED])
@pytest.mark.parametrize("pool_shape", [(50,), (7, 7)])  # slots, or pages x odd page size
def test_write_kv_stores_quantized_rows_and_drops_bad_slots(fmt, pool_shape):
    rng = np.random.default_rng(4)
    pool = rng.integers(0, 256, (*pool_shape, fmt.bytes_per_token), dtype=np.uint8)  # garbage
    num_slots = int(np.prod(pool_shape))
    latent = random_latent(rng, 8)
    slots = np.array([3, -1, 48, num_slots, 0, -49, 17, num_slots + 100], np.int32)
    out = np.asarray(
        jgn.write_kv(jnp.asarray(pool), jnp.asarray(latent), jnp.asarray(slots), implementation="xla")
    )
    assert out.shape == pool.shape
    flat_in, flat_out = pool.reshape(num_slots, -1), out.reshape(num_slots, -1)
    rows = np_quantize(latent, fmt)
    written = {int(s): t for t, s in enumerate(slots) if 0 <= s < num_slots}
    for slot in range(num_slots):
        want = rows[written[slot]] if slot in written else flat_in[slot]
        np.testing.assert_array_equal(flat_out[slot], want, err_msg=f"slot {slot}")
    assert set(written) == {3, 48, 0, 17}


def test_write_kv_bf16_latent_matches_quantize():
    rng = np.random.default_rng(5)
    latent = jnp.asarray(random_latent(rng, 4)).astype(jnp.bfloat16)
    pool = jnp.zeros((9, 528), jnp.uint8)
    out = jgn.write_kv(pool, latent, jnp.arange(4, dtype=jnp.int32) * 2)
    np.testing.assert_array_equal(np.asarray(out)[0:8:2], np.asarray(jgn.quantize(latent)))


def test_write_kv_in_place_when_pool_donated():
    rng = np.random.default_rng(6)
    pool = jnp.asarray(rng.integers(0, 256, (64, 16, 656), dtype=np.uint8))
    latent = jnp.asarray(random_latent(rng, 3))
    slots = jnp.asarray([5, 700, 1023], jnp.int32)
    step = jax.jit(functools.partial(jgn.write_kv, implementation="xla"), donate_argnums=0)
    before = pool.unsafe_buffer_pointer()
    out = step(pool, latent, slots)
    assert pool.is_deleted()  # donated
    assert out.unsafe_buffer_pointer() == before  # same buffer, updated in place
    np.testing.assert_array_equal(
        np.asarray(out).reshape(-1, 656)[700], np_quantize(np.asarray(latent), jgn.PADDED)[1]
    )


def test_write_kv_auto_on_cpu_is_the_scatter():
    pool = jnp.zeros((4, 528), jnp.uint8)
    latent = jnp.ones((1, 512), jnp.float32)
    a = jgn.write_kv(pool, latent, jnp.asarray([2], jnp.int32))
    b = jgn.write_kv(pool, latent, jnp.asarray([2], jnp.int32), implementation="xla")
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_write_kv_zero_tokens_and_numpy_pool():
    pool = np.zeros((8, 528), np.uint8)
    out = jgn.write_kv(pool, jnp.zeros((0, 512)), jnp.zeros((0,), jnp.int32))
    assert out.shape == (8, 528) and not np.asarray(out).any()
    out = jgn.write_kv(pool, jnp.ones((2, 512)), jnp.array([1, 2], jnp.int32))  # numpy pool
    np.testing.assert_array_equal(np.asarray(out)[1:3], np_quantize(np.ones((2, 512)), jgn.COMPACT))


def test_write_kv_cuda_on_cpu_names_the_device():
    with pytest.raises(ValueError, match="implementation='cuda' cannot serve this call on cpu"):
        jgn.write_kv(
            jnp.zeros((4, 528), jnp.uint8),
            jnp.ones((1, 512)),
            jnp.asarray([2], jnp.int32),
            implementation="cuda",
        )
