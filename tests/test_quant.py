"""Row formats, quantize/dequantize/repack: bit-identical to the numpy reference."""

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jax_glm_nope as jgn
from jax_glm_nope import layout
from jax_glm_nope.testing import dequantize_f64 as np_dequantize
from jax_glm_nope.testing import quantize_f64 as np_quantize
from jax_glm_nope.testing import random_latent


def test_row_formats_name_every_byte_range():
    assert (jgn.COMPACT.bytes_per_token, jgn.PADDED.bytes_per_token) == (528, 656)
    for fmt in (jgn.COMPACT, jgn.PADDED):
        assert fmt.codes_offset == 0 and fmt.scales_offset == 512 and fmt.scales_end == 528
        assert fmt.reserved_offset == 528
    assert jgn.COMPACT.reserved_bytes == 0 and jgn.PADDED.reserved_bytes == 128
    assert jgn.row_format(528) is jgn.COMPACT and jgn.row_format(656) is jgn.PADDED


@pytest.mark.parametrize("size", [0, 512, 527, 529, 655, 657, 1024])
def test_row_format_rejects_other_sizes(size):
    with pytest.raises(ValueError, match="row_bytes"):
        jgn.row_format(size)


# Tiles spanning 1e-30..1e30 (normal fp32 range, away from denormal scales), zero
# tiles, and single-spike tiles.
tile_scales = st.one_of(st.just(0.0), st.floats(1e-30, 1e30), st.floats(-1e30, -1e-30))


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    rows=st.integers(1, 6),
    scales=st.lists(tile_scales, min_size=4, max_size=4),
    padded=st.booleans(),
    spike=st.booleans(),
)
def test_quantize_matches_numpy_bit_for_bit(seed, rows, scales, padded, spike):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, 512)).astype(np.float32)
    x = (x.reshape(rows, 4, 128) * np.asarray(scales, np.float32)[None, :, None]).reshape(rows, 512)
    if spike:
        x[:, 7] = np.float32(3.0e4)
    fmt = jgn.PADDED if padded else jgn.COMPACT
    got = np.asarray(jgn.quantize(jnp.asarray(x), fmt))
    want = np_quantize(x, fmt)
    np.testing.assert_array_equal(got, want)
    values = np.asarray(jgn.dequantize(got))
    assert not np.isnan(values).any()
    # dequantize: e4m3 value times the fp32 scale, rounded to fp32 like numpy does
    codes = got[:, :512].copy().view(ml_dtypes.float8_e4m3fn).astype(np.float32)
    scales32 = got[:, 512:528].copy().view("<f4")
    np.testing.assert_array_equal(
        values, (codes.reshape(rows, 4, 128) * scales32[:, :, None]).reshape(rows, 512)
    )


def test_quantize_bf16_input_and_error_bound():
    rng = np.random.default_rng(1)
    x = jnp.asarray(random_latent(rng, 16)).astype(jnp.bfloat16)
    rows = np.asarray(jgn.quantize(x, jgn.COMPACT))
    np.testing.assert_array_equal(rows, np_quantize(np.asarray(x.astype(jnp.float32)), jgn.COMPACT))
    x64 = np.asarray(x.astype(jnp.float32), np.float64)
    err = np.abs(np_dequantize(rows) - x64).reshape(16, 4, 128)
    amax = np.abs(x64).reshape(16, 4, 128).max(-1, keepdims=True)
    assert (err <= amax / 28 * (1 + 1e-5)).all()  # half an e4m3 step (16/448) at the top binade
    scales = rows[:, 512:528].copy().view("<f4")
    np.testing.assert_array_equal(scales, (amax[..., 0] / 448).astype(np.float32))


def test_zero_tiles_store_zero_scale_and_codes():
    x = np.zeros((2, 512), np.float32)
    x[1, 128:256] = 5.0
    rows = np.asarray(jgn.quantize(jnp.asarray(x), jgn.PADDED))
    scales = rows[:, 512:528].copy().view("<f4")
    assert scales[0].tolist() == [0, 0, 0, 0] and scales[1, 0] == 0 and scales[1, 1] == np.float32(5 / 448)
    assert (rows[0] == 0).all() and (rows[1, :128] == 0).all() and (rows[1, 528:] == 0).all()
    assert not np.isnan(np.asarray(jgn.dequantize(rows))).any()


@pytest.mark.parametrize("shape", [(37, 528), (5, 7, 528), (37, 656), (3, 64, 656)])
def test_repack_round_trip_is_lossless(shape):
    rng = np.random.default_rng(2)
    pool = rng.integers(0, 256, shape, dtype=np.uint8)
    other = jgn.PADDED if shape[-1] == 528 else jgn.COMPACT
    moved = np.asarray(jgn.repack(jnp.asarray(pool), other))
    assert moved.shape == shape[:-1] + (other.bytes_per_token,)
    np.testing.assert_array_equal(moved[..., :528], pool[..., :528])
    if other is jgn.PADDED:
        assert (moved[..., 528:] == 0).all()
    back = np.asarray(jgn.repack(jnp.asarray(moved), shape[-1]))
    if shape[-1] == 528:
        np.testing.assert_array_equal(back, pool)
    else:  # 656 -> 528 -> 656 keeps the values, zeroes the reserved bytes
        np.testing.assert_array_equal(back[..., :528], pool[..., :528])
        assert (back[..., 528:] == 0).all()
    np.testing.assert_array_equal(
        np.asarray(jgn.dequantize(jnp.asarray(moved.reshape(-1, moved.shape[-1])))),
        np.asarray(jgn.dequantize(jnp.asarray(pool.reshape(-1, shape[-1])))),
    )


def test_quantize_is_jittable_and_layout_constants_used():
    rng = np.random.default_rng(3)
    x = jnp.asarray(random_latent(rng, 4))
    jitted = jax.jit(jgn.quantize, static_argnums=1)(x, jgn.COMPACT)
    np.testing.assert_array_equal(np.asarray(jitted), np_quantize(np.asarray(x), layout.COMPACT))


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    lead=st.lists(st.integers(1, 9), min_size=1, max_size=2),
    start_padded=st.booleans(),
)
def test_repack_property_lossless_both_ways(seed, lead, start_padded):
    """Any bytes, any 2-D/3-D pool: 656 -> 528 keeps the first 528 bytes, 528 -> 656 -> 528
    is the identity, and no value changes on the way."""
    rng = np.random.default_rng(seed)
    start, other = (jgn.PADDED, jgn.COMPACT) if start_padded else (jgn.COMPACT, jgn.PADDED)
    pool = rng.integers(0, 256, (*lead, start.bytes_per_token), dtype=np.uint8)
    moved = np.asarray(jgn.repack(jnp.asarray(pool), other))
    np.testing.assert_array_equal(moved[..., :528], pool[..., :528])
    assert (moved[..., 528:] == 0).all()
    compact = pool[..., :528] if start_padded else pool
    np.testing.assert_array_equal(np.asarray(jgn.repack(jgn.repack(jnp.asarray(compact), 656), 528)), compact)


@pytest.mark.parametrize("fmt", [jgn.COMPACT, jgn.PADDED])
def test_quantize_no_rows(fmt):
    latent = jnp.zeros((0, 512), jnp.float32)
    rows = jgn.quantize(latent, fmt)
    assert rows.shape == (0, fmt.bytes_per_token) and rows.dtype == jnp.uint8
    assert jax.jit(jgn.quantize, static_argnums=1)(latent.astype(jnp.bfloat16), fmt).shape == rows.shape
    assert jgn.dequantize(rows).shape == (0, 512)


@pytest.mark.parametrize("shape", [(8, 528), (2, 4, 656)])
def test_write_kv_no_rows_leaves_the_pool_as_it_was(shape):
    pool = jnp.asarray(np.random.default_rng(4).integers(0, 256, shape, dtype=np.uint8))
    got = jgn.write_kv(pool, jnp.zeros((0, 512), jnp.bfloat16), jnp.zeros((0,), jnp.int32))
    assert got.shape == shape
    np.testing.assert_array_equal(np.asarray(got), np.asarray(pool))


# float32 subnormals: XLA's CPU flushes them in float arithmetic; quantize must not.
SMALLEST_NORMAL_SCALE_AMAX = 448 * 2.0**-126  # below this amax, s = amax / 448 is subnormal


def subnormal_tiles(rng, rows):
    """Tiles whose scale is a float32 subnormal: normal values, subnormal values, mixtures."""
    x = rng.standard_normal((rows, 4, 128)).astype(np.float32)
    magnitudes = np.asarray([1e-37, 3e-39, 1e-41, 2.0**-149 * 449], np.float32)  # tile amax scale
    x = x / np.abs(x).max(-1, keepdims=True) * magnitudes[None, :, None]
    x[0, 0, 5] = -0.0
    x[0, 1, :64] = np.float32(2.0**-149)  # the smallest subnormal, many times
    if rows > 1:
        x[1, 2, :] = 0.0
        x[1, 2, 7] = -(2.0**-149)  # amax 2^-149: scale rounds to 0, an all-zero tile
        x[1, 3, :] = np.float32(SMALLEST_NORMAL_SCALE_AMAX) * (1 - 2**-23)  # just below the edge
    return x.reshape(rows, 512)


@pytest.mark.parametrize("fmt", [jgn.COMPACT, jgn.PADDED])
def test_quantize_keeps_subnormal_scales_bit_for_bit(fmt):
    x = subnormal_tiles(np.random.default_rng(5), 3)
    scales = np_quantize(x, fmt)[:, 512:528].copy().view("<f4")
    assert (scales[0] != 0).all() and (scales[0] < 2.0**-126).all()  # the case under test
    got = np.asarray(jgn.quantize(jnp.asarray(x), fmt))
    np.testing.assert_array_equal(got, np_quantize(x, fmt))
    jitted = np.asarray(jax.jit(jgn.quantize, static_argnums=1)(jnp.asarray(x), fmt))
    np.testing.assert_array_equal(jitted, got)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    scales=st.lists(st.floats(2.0**-149, 2.0**-110, width=32), min_size=4, max_size=4),
    spike=st.booleans(),
)
def test_quantize_subnormal_range_matches_numpy(seed, scales, spike):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 4, 128)).astype(np.float32) * np.asarray(scales, np.float32)[None, :, None]
    x = x.reshape(2, 512)
    if spike:
        x[:, 3] = np.float32(scales[0]) * 40
    np.testing.assert_array_equal(np.asarray(jgn.quantize(jnp.asarray(x))), np_quantize(x, jgn.COMPACT))
