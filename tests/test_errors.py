"""SPEC 7: every public function rejects bad input at its boundary, naming the argument."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jax_glm_nope as jgn

Q = jnp.zeros((2, 8, 512), jnp.bfloat16)
POOL = jnp.zeros((16, 528), jnp.uint8)
IDX = jnp.zeros((2, 4), jnp.int32)


def call(**kw):
    args = dict(q=Q, pool=POOL, indices=IDX, sm_scale=0.1)
    args.update(kw)
    return jgn.sparse_mla(**args)


@pytest.mark.parametrize(
    "kw, err, pattern",
    [
        (dict(q=Q.astype(jnp.float32)), TypeError, "q: expected dtype bfloat16, got float32"),
        (dict(q=jnp.zeros((2, 512), jnp.bfloat16)), ValueError, r"q: expected shape \[T, H, 512\]"),
        (dict(q=jnp.zeros((2, 8, 576), jnp.bfloat16)), ValueError, "q: expected head dim 512"),
        (dict(q=jnp.zeros((2, 0, 512), jnp.bfloat16)), ValueError, "q: expected 1 <= H <= 128"),
        (dict(q=jnp.zeros((2, 129, 512), jnp.bfloat16)), ValueError, "H=129"),
        (dict(q=[[0.0]]), TypeError, "q: expected an array"),
        (dict(pool=POOL.astype(jnp.int8)), TypeError, "pool: expected dtype uint8, got int8"),
        (dict(pool=jnp.zeros((16, 512), jnp.uint8)), ValueError, "pool: row_bytes: expected one of"),
        (dict(pool=jnp.zeros((528,), jnp.uint8)), ValueError, "pool: expected shape"),
        (dict(pool=jnp.zeros((0, 528), jnp.uint8)), ValueError, "pool: expected at least one slot"),
        (
            dict(indices=IDX.astype(jnp.int64) if jax.config.jax_enable_x64 else IDX.astype(jnp.int16)),
            TypeError,
            "indices: expected dtype int32",
        ),
        (dict(indices=jnp.zeros((3, 4), jnp.int32)), ValueError, r"indices: expected 2 rows \(T of q\)"),
        (dict(indices=jnp.zeros((2, 0), jnp.int32)), ValueError, "indices: expected K >= 1"),
        (dict(indices=jnp.zeros((2,), jnp.int32)), ValueError, r"indices: expected shape \[T, K\]"),
        (dict(sm_scale=jnp.float32(0.1)), TypeError, "sm_scale: expected a Python float"),
        (dict(sm_scale=float("nan")), ValueError, "sm_scale: expected a finite float"),
        (dict(sm_scale=True), TypeError, "sm_scale"),
        (dict(topk_lens=jnp.zeros((3,), jnp.int32)), ValueError, r"topk_lens: expected shape \(2,\)"),
        (dict(topk_lens=jnp.zeros((2,), jnp.float32)), TypeError, "topk_lens: expected dtype int32"),
        (dict(implementation="nope"), ValueError, "implementation: expected None or one of"),
        (
            dict(implementation="reference", interpret=True),
            TypeError,
            "option 'interpret' is not accepted by implementation='reference'",
        ),
        (dict(implementation="pallas", interpret="yes"), TypeError, "interpret: expected a bool, got str"),
    ],
)
def test_sparse_mla_rejects(kw, err, pattern):
    with pytest.raises(err, match=pattern):
        call(**kw)


def test_errors_raise_at_trace_time():
    with pytest.raises(ValueError, match="q: expected head dim 512"):
        jax.jit(lambda q: jgn.sparse_mla(q, POOL, IDX, 0.1)).lower(jnp.zeros((2, 8, 64), jnp.bfloat16))


def test_too_many_tokens():
    q = jax.ShapeDtypeStruct((65537, 1, 512), jnp.bfloat16)
    idx = jax.ShapeDtypeStruct((65537, 1), jnp.int32)
    with pytest.raises(ValueError, match="q: expected at most 65536 tokens"):
        jax.eval_shape(lambda q, i: jgn.sparse_mla(q, POOL, i, 0.1), q, idx)


def test_unavailable_backend_names_the_reason():
    # On this CPU machine the GPU backends cannot run: the error says why, no fallback.
    if jax.default_backend() != "cpu":
        pytest.skip("CPU-only check")
    for name in ("pallas", "flashinfer", "cuda"):
        with pytest.raises(ValueError, match=f"implementation='{name}' cannot serve this call on cpu"):
            call(implementation=name)


@pytest.mark.parametrize(
    "fn, err, pattern",
    [
        (lambda: jgn.quantize(jnp.zeros((2, 511))), ValueError, "latent: expected 512 values"),
        (lambda: jgn.quantize(jnp.zeros((2, 512), jnp.int32)), TypeError, "latent: expected dtype"),
        (lambda: jgn.quantize(jnp.zeros((2, 512)), 600), ValueError, "fmt: row_bytes"),
        (lambda: jgn.quantize(jnp.zeros((2, 512)), "compact"), TypeError, "fmt: expected a RowFormat"),
        (lambda: jgn.dequantize(jnp.zeros((2, 600), jnp.uint8)), ValueError, "rows: row_bytes"),
        (lambda: jgn.dequantize(jnp.zeros((2, 528), jnp.float32)), TypeError, "rows: expected dtype uint8"),
        (lambda: jgn.repack(jnp.zeros((2, 600), jnp.uint8), 528), ValueError, "pool: row_bytes"),
        (lambda: jgn.repack(POOL, 700), ValueError, "fmt: row_bytes"),
        (
            lambda: jgn.write_kv(POOL, jnp.zeros((2, 512)), jnp.zeros((3,), jnp.int32)),
            ValueError,
            r"slots: expected shape \(2,\)",
        ),
        (
            lambda: jgn.write_kv(POOL, jnp.zeros((2, 512)), jnp.zeros((2,), jnp.float32)),
            TypeError,
            "slots: expected dtype int32",
        ),
        (
            lambda: jgn.write_kv(POOL, jnp.zeros((2, 256)), jnp.zeros((2,), jnp.int32)),
            ValueError,
            "latent: expected 512",
        ),
        (
            lambda: jgn.write_kv(POOL.astype(jnp.int8), jnp.zeros((2, 512)), jnp.zeros((2,), jnp.int32)),
            TypeError,
            "pool: expected dtype uint8",
        ),
        (
            lambda: jgn.write_kv(
                POOL, jnp.zeros((2, 512)), jnp.zeros((2,), jnp.int32), implementation="nope"
            ),
            ValueError,
            "implementation: expected None or one of",
        ),
        (
            lambda: jgn.pad_candidates(jnp.zeros((2, 8), jnp.float32)),
            TypeError,
            "indices: expected dtype int32",
        ),
        (
            lambda: jgn.pad_candidates(jnp.zeros((8,), jnp.int32)),
            ValueError,
            r"indices: expected shape \[T, C\]",
        ),
        (
            lambda: jgn.pad_candidates(jnp.zeros((2, 8), jnp.int32), 4),
            ValueError,
            "width: expected at least C=8",
        ),
        (
            lambda: jgn.pad_candidates(jnp.zeros((2, 8), jnp.int32), 8.0),
            TypeError,
            "width: expected a Python int",
        ),
        (
            lambda: jgn.mask_holes(jnp.zeros((2, 8), jnp.int32), 0),
            ValueError,
            "num_slots: expected an int >= 1",
        ),
        (
            lambda: jgn.to_slots(
                jnp.zeros((2, 8), jnp.int32), jnp.zeros((1, 4), jnp.int32), jnp.zeros((3,), jnp.int32)
            ),
            ValueError,
            r"token_req: expected shape \(2,\)",
        ),
        (
            lambda: jgn.to_slots(
                jnp.zeros((2, 8), jnp.int32), jnp.zeros((4,), jnp.int32), jnp.zeros((2,), jnp.int32)
            ),
            ValueError,
            r"req_to_token: expected shape \[R, L\]",
        ),
        (lambda: jgn.capacity(80 << 30, tp=3), ValueError, "tp: expected a divisor"),
        (lambda: jgn.capacity(0), ValueError, "memory_bytes"),
    ],
)
def test_other_functions_reject(fn, err, pattern):
    with pytest.raises(err, match=pattern):
        fn()


def test_bad_write_leaves_pool_untouched():
    pool = jnp.asarray(np.arange(16 * 528, dtype=np.uint32).astype(np.uint8).reshape(16, 528))
    before = np.asarray(pool).copy()
    with pytest.raises(ValueError):
        jgn.write_kv(pool, jnp.zeros((2, 500)), jnp.zeros((2,), jnp.int32))
    np.testing.assert_array_equal(np.asarray(pool), before)
