"""Every public function rejects bad input at its boundary, naming the argument."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jax_glm_nope as jgn
from jax_glm_nope import layout, validate

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
        (
            dict(implementation="pallas", interpret="yes"),
            TypeError,
            r"interpret: expected a bool \(True or False\), got str",
        ),
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
        (
            lambda: jgn.quantize(jnp.zeros((2, 512)), 600),
            ValueError,
            r"fmt: expected one of \[528, 656\] row bytes",
        ),
        (lambda: jgn.quantize(jnp.zeros((2, 512)), "compact"), TypeError, "fmt: expected a RowFormat"),
        (lambda: jgn.dequantize(jnp.zeros((2, 600), jnp.uint8)), ValueError, "rows: row_bytes"),
        (lambda: jgn.dequantize(jnp.zeros((2, 528), jnp.float32)), TypeError, "rows: expected dtype uint8"),
        (lambda: jgn.repack(jnp.zeros((2, 600), jnp.uint8), 528), ValueError, "pool: row_bytes"),
        (lambda: jgn.repack(POOL, 700), ValueError, r"fmt: expected one of \[528, 656\] row bytes"),
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


# --- static shapes : a symbolic dimension is named, never a deep jax error ---

SYM_T, SYM_K = jax.export.symbolic_shape("T, K")


def sds(shape, dtype):
    return jax.ShapeDtypeStruct(shape, dtype)


@pytest.mark.parametrize(
    "check, name",
    [
        (lambda: validate.check_q(sds((SYM_T, 8, 512), jnp.bfloat16)), "q"),
        (lambda: validate.check_pool(sds((SYM_T, 528), jnp.uint8)), "pool"),
        (lambda: validate.check_pool(sds((4, SYM_T, 528), jnp.uint8)), "pool"),
        (lambda: validate.check_indices(sds((2, SYM_K), jnp.int32), 2), "indices"),
        (lambda: validate.check_topk_lens(sds((SYM_T,), jnp.int32), 2), "topk_lens"),
        (lambda: validate.check_latent(sds((SYM_T, 512), jnp.float32)), "latent"),
        (lambda: validate.check_slots(sds((SYM_T,), jnp.int32), 2), "slots"),
        (lambda: validate.check_rows(sds((SYM_T, 528), jnp.uint8)), "rows"),
        (lambda: validate.check_dtype(sds((SYM_T, 4), jnp.int32), "indices", (jnp.int32,)), "indices"),
        (lambda: validate.check_rank(sds((SYM_T, 4), jnp.int32), "indices", (2,), "[T, K]"), "indices"),
    ],
)
def test_validators_name_symbolic_dimensions(check, name):
    with pytest.raises(ValueError, match=f"^{name}: shapes must be static .* got shape \\([^)]*[TK]"):
        check()


@pytest.mark.parametrize(
    "fn, args, name",
    [
        (jgn.quantize, [sds((SYM_T, 512), jnp.float32)], "latent"),
        (jgn.dequantize, [sds((SYM_T, 528), jnp.uint8)], "rows"),
        (lambda i: jgn.mask_holes(i, 10), [sds((SYM_T, 8), jnp.int32)], "indices"),
        (jgn.pad_candidates, [sds((SYM_T, 8), jnp.int32)], "indices"),
        (
            jgn.to_slots,
            [sds((SYM_T, 8), jnp.int32), sds((2, 16), jnp.int32), sds((SYM_T,), jnp.int32)],
            "local_positions",
        ),
        (
            lambda q, i: jgn.sparse_mla(q, POOL, i, 0.1),
            [sds((SYM_T, 8, 512), jnp.bfloat16), sds((SYM_T, 4), jnp.int32)],
            "q",
        ),
    ],
)
def test_export_with_symbolic_shapes_says_shapes_must_be_static(fn, args, name):
    with pytest.raises(ValueError, match=f"^{name}: shapes must be static"):
        jax.export.export(jax.jit(fn))(*args)


# --- fmt: only the two row formats (F12) ---


@pytest.mark.parametrize(
    "fmt",
    [
        layout.RowFormat("X", 600),
        layout.RowFormat("Y", 100),
        layout.RowFormat("COMPACT", 528, codes_offset=16),
        layout.RowFormat("PADDED", 656, reserved_offset=600),
    ],
)
def test_quantize_rejects_other_row_formats(fmt):
    with pytest.raises(
        ValueError, match=r"^fmt: expected RowFormat.COMPACT or RowFormat.PADDED .*RowFormat\("
    ):
        jgn.quantize(jnp.ones((2, 512)), fmt)
    with pytest.raises(ValueError, match="^fmt: expected RowFormat.COMPACT"):
        jgn.repack(POOL, fmt)


def test_equal_row_formats_are_the_canonical_ones():
    assert validate.check_format(layout.RowFormat("PADDED", 656)) is jgn.PADDED
    assert validate.check_format(np.int64(528)) is jgn.COMPACT
    assert jgn.quantize(jnp.ones((2, 512)), layout.RowFormat("COMPACT", 528)).shape == (2, 528)


# --- sm_scale: finite in float32 (F5's boundary half) ---


@pytest.mark.parametrize("value", [1e39, -1e39, 1e300, 3.5e38, 10**400, -(10**39), np.float64(1e39)])
def test_sm_scale_must_be_finite_in_float32(value):
    with pytest.raises(ValueError, match="^sm_scale: expected a finite float .*float32"):
        validate.check_sm_scale(value)


@pytest.mark.parametrize(
    "value", [float("nan"), float("inf"), -float("inf"), np.float32("nan"), np.float64("inf")]
)
def test_sm_scale_rejects_non_finite(value):
    with pytest.raises(ValueError, match="^sm_scale: expected a finite float"):
        validate.check_sm_scale(value)


@pytest.mark.parametrize("value", [True, np.bool_(True), "0.1", None, jnp.float32(0.1), np.array(0.1), 1j])
def test_sm_scale_rejects_non_numbers(value):
    with pytest.raises(TypeError, match="^sm_scale: expected a Python float"):
        validate.check_sm_scale(value)


@pytest.mark.parametrize(
    "value, want",
    [
        (0.1, 0.1),
        (2, 2.0),
        (np.float32(0.5), 0.5),
        (np.float64(0.1), 0.1),
        (np.int32(3), 3.0),
        (float(np.finfo(np.float32).max), float(np.finfo(np.float32).max)),
        (-0.0, -0.0),
        (1e-45, 1e-45),
    ],
)
def test_sm_scale_accepts_numbers(value, want):
    got = validate.check_sm_scale(value)
    assert type(got) is float and got == want


# --- bool options ---


@pytest.mark.parametrize("value", [True, False, np.bool_(True)])
def test_check_bool_accepts_bools(value):
    got = validate.check_bool(value, "interpret")
    assert type(got) is bool and got == bool(value)


@pytest.mark.parametrize("value", ["yes", 1, 0, None, 1.0, jnp.array(True), np.array([True])])
def test_check_bool_rejects_truthy_objects(value):
    with pytest.raises(TypeError, match="^interpret: expected a bool"):
        validate.check_bool(value, "interpret")


# --- abstract values and int32 limits at the boundary ---

SPEC_POOL = jax.ShapeDtypeStruct((16, 528), jnp.uint8)


@pytest.mark.parametrize(
    "fn, name",
    [
        (lambda: jgn.sparse_mla(Q, SPEC_POOL, IDX, 0.1), "pool"),
        (lambda: jgn.sparse_mla(jax.ShapeDtypeStruct(Q.shape, Q.dtype), POOL, IDX, 0.1), "q"),
        (lambda: jgn.sparse_mla(Q, POOL, jax.ShapeDtypeStruct(IDX.shape, IDX.dtype), 0.1), "indices"),
        (lambda: jgn.write_kv(SPEC_POOL, jnp.zeros((1, 512)), jnp.zeros((1,), jnp.int32)), "pool"),
        (lambda: jgn.quantize(jax.ShapeDtypeStruct((1, 512), jnp.float32)), "latent"),
        (lambda: jgn.dequantize(SPEC_POOL), "rows"),
        (lambda: jgn.repack(SPEC_POOL, 656), "pool"),
        (lambda: jgn.pad_candidates(jax.ShapeDtypeStruct((1, 5), jnp.int32)), "indices"),
    ],
)
def test_an_abstract_value_called_eagerly_is_named(fn, name):
    """A ``jax.ShapeDtypeStruct`` has a shape and a dtype but no values: outside a trace
    it is a TypeError naming the argument (it used to fail deep inside, unnamed)."""
    with pytest.raises(TypeError, match=rf"^{name}: expected an array .* got a jax\.ShapeDtypeStruct"):
        fn()


def test_an_abstract_value_traced_is_fine():
    out, lse = jax.eval_shape(lambda pool: jgn.sparse_mla(Q, pool, IDX, 0.1), SPEC_POOL)
    assert out.shape == (2, 8, 512) and lse.shape == (2, 8)


@pytest.mark.parametrize("page_size", [2**31, 2**40])
@pytest.mark.parametrize("fn", [jgn.block_tables_to_slots, jgn.block_tables_to_candidate_slots])
def test_page_size_past_int32_slot_ids(fn, page_size):
    positions = np.zeros((2,) if fn is jgn.block_tables_to_slots else (2, 3), np.int32)
    with pytest.raises(ValueError, match=r"^page_size: expected at most 2\*\*31 - 1 .* got \d+"):
        fn(np.zeros((1, 1), np.int32), positions, np.zeros(2, np.int32), page_size)


def test_largest_int32_page_size_maps_page_zero():
    slots = jgn.block_tables_to_slots(
        np.zeros((1, 1), np.int32), np.array([0, 5, -1], np.int32), np.zeros(3, np.int32), 2**31 - 1
    )
    np.testing.assert_array_equal(np.asarray(slots), [0, 5, -1])


@pytest.mark.parametrize(
    ("fn", "name"),
    [
        (lambda: jgn.sparse_mla_implementation(8, 64, 2176, row_bytes=600), "row_bytes"),
        (lambda: jgn.write_kv_implementation(8, row_bytes=600), "row_bytes"),
        (lambda: jgn.allocate_pools(1, 4, 64, 600), "fmt"),
    ],
)
def test_a_row_size_argument_is_named_once(fn, name):
    with pytest.raises(
        ValueError, match=rf"^{name}: expected one of \[528, 656\] row bytes .* got 600$"
    ) as err:
        fn()
    assert str(err.value).count("row_bytes") == (name == "row_bytes")


@pytest.mark.parametrize(
    "fn",
    [
        lambda pool: jgn.sparse_mla(Q, pool, IDX, 0.1),
        lambda pool: jgn.write_kv(pool, jnp.zeros((1, 512), jnp.bfloat16), jnp.zeros((1,), jnp.int32)),
    ],
)
def test_a_stacked_pool_is_pointed_to_the_flat_view(fn):
    stacked = jgn.allocate_pools(2, 4, 8, stacked=True)
    pattern = r"pool: .*shape \(2, 4, 8, 528\).*pool\.reshape\(-1, 528\).*stacked_slots\(slots, layer"
    with pytest.raises(ValueError, match=pattern):
        fn(stacked)
