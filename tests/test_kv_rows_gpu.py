"""KV rows on a CUDA GPU, through the public API (marker ``gpu``).

- ``write_kv(..., implementation="cuda")`` (our arch-generic kernel) and ``"xla"`` (the
  scatter) store rows bit-identical to :func:`jax_glm_nope.testing.quantize_f64`: 528- and
  656-byte rows, f32/bf16/f16 latents, flat and paged pools, dropped slots, duplicates,
  no rows, in place with the pool donated (one call, and a jitted loop);
- our native ``dequantize`` reads rows back exactly as the jnp one does;
- XLA's GPU quantize (``jax_glm_nope.quantize``) is bit-identical too (XLA's GPU division
  is not IEEE by default; quant.py must not depend on it);
- on a GPU that is not SM120/SM121, ``implementation="flashinfer"`` is refused by the
  dispatch naming the device, and the raw FlashInfer targets answer ``Unimplemented``
  (an XlaRuntimeError naming sm_120a), after which the process still works.

FlashInfer's numerics on SM120 are in test_attention.py (``TestFlashInferGPU``). Uses
``JAX_GLM_NOPE_FFI_LIBRARY`` when set, else builds the library on first use (cached).
"""

from __future__ import annotations

import functools
import re

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import jax_glm_nope as jgn
from jax_glm_nope import device, layout
from jax_glm_nope import testing as jt
from jax_glm_nope.native import kv_rows, targets

pytestmark = pytest.mark.gpu

IMPLEMENTATIONS = ["cuda", "xla"]
DTYPES = {"float32": np.float32, "bfloat16": ml_dtypes.bfloat16, "float16": np.float16}
POISON = 0xAB
IS_SM120 = device.current().compute_capability in ((12, 0), (12, 1))


@pytest.fixture(scope="module")
def library():
    """The native library, loaded once (the build, on a first run, lands in this setup)."""
    return targets.load_library()


@pytest.fixture(params=IMPLEMENTATIONS)
def implementation(request):
    if request.param == "cuda":
        request.getfixturevalue("library")
    return request.param


def hostile_latent(seed: int, num_rows: int, dtype) -> np.ndarray:
    """Tiles over +-2^20 of magnitude, zero and -0.0 tiles, exact +-448 peaks, one
    outlier per tile, float32 subnormals; in ``dtype`` (f16: clipped to its range)."""
    rng = np.random.default_rng(seed)
    n = max(num_rows, 8)
    x = rng.standard_normal((n, layout.NUM_TILES, layout.TILE)).astype(np.float32)
    x *= np.exp2(rng.uniform(-20, 20, (n, layout.NUM_TILES, 1))).astype(np.float32)
    x = x.reshape(n, layout.HEAD_DIM)
    x[0] = 0.0  # every tile amax 0: scale 0, codes 0x00
    x[1, 128:256] = 0.0
    x[2, :128] = -0.0  # a -0.0 tile is a zero tile
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
    slots[3] = -1  # dropped
    slots[8] = -(2**31)
    slots[9] = num_slots  # one past the end: dropped
    slots[10] = 2**31 - 1
    slots[12] = slots[11]  # duplicates: one whole row is stored
    slots[30] = slots[20] = slots[11]
    slots[21] = 0
    return slots


def check_pool(got, pool, latent, slots, implementation):
    """``got`` is ``pool`` with the quantized rows at their slots. Where several rows
    name one slot both implementations keep the last, whole (candidates.last_writer_only):
    the H200's XLA scatter interleaved the bytes of duplicates before it did."""
    rows = jt.quantize_f64(np.asarray(latent, np.float32), layout.row_format(pool.shape[-1]))
    got = np.asarray(got).reshape(-1, pool.shape[-1])
    want = np.asarray(pool).reshape(-1, pool.shape[-1]).copy()
    writers: dict[int, list[int]] = {}
    for t, slot in enumerate(np.asarray(slots)):
        if 0 <= slot < len(want):
            writers.setdefault(int(slot), []).append(t)
    for slot, ts in writers.items():
        want[slot] = rows[ts[-1]]
    np.testing.assert_array_equal(got, want)


def write(implementation):
    return functools.partial(jgn.write_kv, implementation=implementation)


# ---------------------------------------------------------------- write_kv


@pytest.mark.parametrize("fmt", layout.FORMATS, ids=lambda f: f.name)
@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("pool_shape", [(301,), (43, 7)], ids=["flat", "paged"])
def test_write_kv_bit_exact(implementation, fmt, dtype, pool_shape):
    num_slots, num_tokens = int(np.prod(pool_shape)), 257
    latent = hostile_latent(7, num_tokens, DTYPES[dtype])
    slots = hostile_slots(7, num_tokens, num_slots)
    pool = np.full((*pool_shape, fmt.bytes_per_token), POISON, np.uint8)
    got = jax.jit(write(implementation))(jnp.asarray(pool), jnp.asarray(latent), jnp.asarray(slots))
    assert got.shape == pool.shape and got.dtype == jnp.uint8
    check_pool(got, pool, latent, slots, implementation)
    eager = write(implementation)(jnp.asarray(pool), jnp.asarray(latent), jnp.asarray(slots))
    np.testing.assert_array_equal(np.asarray(eager), np.asarray(got))


@pytest.mark.parametrize("fmt", layout.FORMATS, ids=lambda f: f.name)
def test_write_kv_every_row_dropped_or_none(implementation, fmt):
    pool = np.random.default_rng(1).integers(0, 256, (64, fmt.bytes_per_token), dtype=np.uint8)
    latent = hostile_latent(1, 5, np.float32)
    dropped = np.array([-1, 64, -(2**31), 2**31 - 1, 1000], np.int32)
    got = jax.jit(write(implementation))(jnp.asarray(pool), jnp.asarray(latent), jnp.asarray(dropped))
    np.testing.assert_array_equal(np.asarray(got), pool)
    for fn in (write(implementation), jax.jit(write(implementation))):  # T = 0
        got = fn(jnp.asarray(pool), jnp.zeros((0, 512), jnp.bfloat16), jnp.zeros((0,), jnp.int32))
        np.testing.assert_array_equal(np.asarray(got), pool)


def test_cuda_duplicates_keep_the_last_row(library):
    """Many rows to one slot, from parallel blocks: the last one, whole."""
    latent = hostile_latent(9, 200, np.float32)
    slots = np.full((200,), 5, np.int32)
    slots[::7] = 3
    pool = jnp.zeros((8, 528), jnp.uint8)
    got = np.asarray(jax.jit(write("cuda"))(pool, jnp.asarray(latent), jnp.asarray(slots)))
    rows = jt.quantize_f64(latent)
    np.testing.assert_array_equal(got[5], rows[199])
    np.testing.assert_array_equal(got[3], rows[196])


def test_write_kv_in_place_with_donation(implementation):
    pool = jnp.full((4096, layout.COMPACT.bytes_per_token), POISON, jnp.uint8)
    before = pool.unsafe_buffer_pointer()
    latent = hostile_latent(3, 64, np.float32)
    slots = np.arange(64, dtype=np.int32) * 7
    step = jax.jit(write(implementation), donate_argnums=0)
    out = step(pool, jnp.asarray(latent), jnp.asarray(slots))
    assert pool.is_deleted() and out.unsafe_buffer_pointer() == before
    out2 = step(out, jnp.asarray(latent[::-1].copy()), jnp.asarray(slots + 1))
    assert out2.unsafe_buffer_pointer() == before
    host = np.asarray(out2)
    rows = jt.quantize_f64(latent)
    np.testing.assert_array_equal(host[slots], rows)
    np.testing.assert_array_equal(host[slots + 1], rows[::-1])


@pytest.mark.parametrize("fmt", layout.FORMATS, ids=lambda f: f.name)
def test_write_kv_in_place_inside_a_jitted_loop(implementation, fmt):
    """Many writes in one jitted loop over a donated, paged pool: the aliased buffer
    threads through every step and comes back as the same buffer."""
    steps, per_step = 8, 16
    latent = hostile_latent(11, steps * per_step, ml_dtypes.bfloat16).reshape(steps, per_step, 512)
    slots = (np.arange(steps * per_step, dtype=np.int32) * 3).reshape(steps, per_step)
    slots[2, 0] = -1
    slots[5, 3] = slots[1, 3]  # a later step overwrites an earlier one

    @functools.partial(jax.jit, donate_argnums=0)
    def run(pool, latent, slots):
        body = lambda i, p: jgn.write_kv(p, latent[i], slots[i], implementation=implementation)  # noqa: E731
        return jax.lax.fori_loop(0, steps, body, pool)

    host_pool = np.full((64, 8, fmt.bytes_per_token), POISON, np.uint8)
    pool = jnp.asarray(host_pool)
    before = pool.unsafe_buffer_pointer()
    out = run(pool, jnp.asarray(latent), jnp.asarray(slots))
    assert pool.is_deleted() and out.unsafe_buffer_pointer() == before
    check_pool(out, host_pool, latent.reshape(-1, 512), slots.ravel(), "cuda")  # steps are sequential


# ---------------------------------------------------------------- dequantize and quantize


@pytest.mark.parametrize("fmt", layout.FORMATS, ids=lambda f: f.name)
def test_native_dequantize_matches_jnp(library, fmt):
    rows = jt.quantize_f64(hostile_latent(5, 200, np.float32), fmt)
    rows[17, :512] = 0x7F  # NaN codes
    rows[18, 512:528] = np.array([np.inf, -np.inf, np.nan, -1.5], "<f4").view(np.uint8)
    rows[19, 512:528] = np.array([-2.0, 0.0, -0.0, 1e-40], "<f4").view(np.uint8)  # negative, zero, subnormal
    if fmt is layout.PADDED:
        rows[:, 528:] = POISON  # reserved bytes are never read
    got = np.asarray(jax.jit(kv_rows.dequantize)(jnp.asarray(rows)))
    want = np.asarray(jax.jit(jgn.dequantize)(jnp.asarray(rows)))
    assert got.shape == (200, 512) and got.dtype == np.float32
    np.testing.assert_array_equal(got, want)  # NaN in the same places, all else equal
    np.testing.assert_array_equal(np.asarray(kv_rows.dequantize(jnp.asarray(rows[:0]))), np.zeros((0, 512)))


@pytest.mark.parametrize("fmt", layout.FORMATS, ids=lambda f: f.name)
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_xla_quantize_on_gpu_is_bit_identical(fmt, dtype):
    latent = hostile_latent(12, 4096, DTYPES[dtype])
    latent[7:20] = (np.round(latent[7:20].astype(np.float32) * 16) / 16).astype(
        DTYPES[dtype]
    )  # near exact quotients
    got = np.asarray(jax.jit(jgn.quantize, static_argnums=1)(jnp.asarray(latent), fmt))
    np.testing.assert_array_equal(got, jt.quantize_f64(latent, fmt))


def test_generic_targets_reject_mis_sized_buffers(library):
    pool = jnp.zeros((16, 528), jnp.uint8)
    with pytest.raises(jax.errors.JaxRuntimeError, match="latent: expected"):
        jax.block_until_ready(
            targets.write_kv_call(pool, jnp.zeros((2, 256), jnp.float32), jnp.zeros((2,), jnp.int32))
        )
    with pytest.raises(jax.errors.JaxRuntimeError, match="rows: expected"):
        jax.block_until_ready(targets.dequantize_call(jnp.zeros((4, 600), jnp.uint8)))


# ---------------------------------------------------------------- FlashInfer off SM120


def _small_attention(num_tokens):
    case = jt.make_case(1, num_tokens, 8, 128)
    lens = jnp.full((num_tokens,), 128, jnp.int32)
    return jnp.asarray(case.q), jnp.asarray(case.pool), jnp.asarray(case.indices), lens


@pytest.mark.skipif(IS_SM120, reason="FlashInfer's kernels run here")
def test_flashinfer_refused_by_the_dispatch_naming_the_device():
    here = device.current()
    q, pool, indices, _ = _small_attention(2)
    with pytest.raises(ValueError) as info:
        jgn.sparse_mla(q, pool, indices, 0.1, implementation="flashinfer")
    message = str(info.value)
    major, minor = here.compute_capability
    assert f"implementation='flashinfer' cannot serve this call on {here.describe()}" in message
    assert (
        f"{here.kind}, compute capability {major}.{minor}" in message
    )  # e.g. NVIDIA H200, compute capability 9.0
    assert "SM120/SM121" in message


@pytest.mark.skipif(IS_SM120, reason="FlashInfer's kernels run here")
@pytest.mark.parametrize("num_tokens", [2, 80], ids=["decode", "prefill"])
def test_flashinfer_targets_answer_unimplemented_and_the_process_goes_on(library, num_tokens):
    call = targets.flashinfer_decode_call if num_tokens <= 64 else targets.flashinfer_prefill_call
    with pytest.raises(jax.errors.JaxRuntimeError) as info:  # XlaRuntimeError is this class
        jax.block_until_ready(jax.jit(call, static_argnums=4)(*_small_attention(num_tokens), 0.1))
    message = str(info.value)
    major, minor = device.current().compute_capability
    assert re.search("unimplemented", message, re.IGNORECASE), message
    assert "sm_120a" in message and f"compute capability {major}.{minor}" in message, message
    # The process still works: our target runs, exactly, and so does plain XLA.
    latent = hostile_latent(2, 4, np.float32)
    pool = jax.jit(write("cuda"))(
        jnp.zeros((8, 528), jnp.uint8), jnp.asarray(latent), jnp.arange(4, dtype=jnp.int32)
    )
    np.testing.assert_array_equal(np.asarray(pool)[:4], jt.quantize_f64(latent))
    assert float(jnp.sum(jnp.arange(10.0))) == 45.0
