"""One attention suite through the public API, run for every implementation the
machine has: the reference and the Pallas interpreter on the CPU; Pallas, ``cuda``
(Hopper) and ``flashinfer`` (SM120) on the GPU, at real sizes. One case builder and one
accuracy check (``jax_glm_nope.testing``)."""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jax_glm_nope as jgn
from jax_glm_nope import testing as jt
from jax_glm_nope.implementations import cuda

CPU_CASES = [
    dict(seed=1, T=9, H=8, K=130, wide=False),
    dict(seed=2, T=13, H=16, K=200, wide=True, lens=True),
    dict(seed=3, T=7, H=24, K=65, wide=True, rows=656, page=7),
    dict(seed=4, T=8, H=1, K=1, wide=False),
    dict(seed=5, T=6, H=3, K=2051 // 8, wide=True, lens=True, page=64),
    # Blocks that mix magnitudes (a large row scored lowest beside the dominant small one)
    # and scores that share one large offset, at the low and high ends of their spread.
    dict(seed=6, T=4, H=16, K=192, data="mixed", spread=10),
    dict(seed=7, T=3, H=8, K=130, data="mixed", spread=1000, lens=True),
    dict(seed=8, T=4, H=16, K=160, data="offset", spread=1000),
]
# Real sizes, multi-step schedules, wide-range data (the GPU flushes subnormals).
GPU_CASES = [
    dict(seed=11, T=33, H=32, K=2176, wide=True, lens=True),
    dict(seed=12, T=65, H=32, K=2176, wide=True),
    dict(seed=13, T=128, H=64, K=2048, wide=True),
    dict(seed=14, T=1000, H=16, K=512, wide=True, lens=True),
    dict(seed=15, T=64, H=8, K=2176, wide=True, page=64),
    dict(seed=16, T=128, H=128, K=2048, wide=True, rows=656),
    dict(seed=17, T=4096, H=16, K=2176, wide=True, lens=True),
    dict(seed=18, T=65, H=24, K=2051, wide=False, page=3),
    dict(seed=19, T=128, H=8, K=2048, wide=False),
    dict(seed=20, T=1, H=16, K=2048, wide=True),
    dict(seed=21, T=40, H=5, K=700, wide=True, lens=True),  # padded heads, several blocks per split
    dict(seed=22, T=50, H=40, K=2051, wide=True, lens=True),  # a partial group of heads (32 + 8)
    dict(seed=23, T=4, H=64, K=2176, wide=True, lens=True),  # automatic dispatch: cuda from T = 4
    dict(seed=24, T=8, H=64, K=2048, data="mixed", spread=10),
    dict(seed=25, T=8, H=128, K=2048, data="mixed", spread=100, lens=True),
    dict(seed=26, T=2, H=16, K=2048, data="mixed", spread=30),
    dict(seed=27, T=8, H=64, K=2048, data="offset", spread=1000),
    dict(seed=28, T=33, H=32, K=2176, data="offset", spread=2000, lens=True),
]


@functools.lru_cache(maxsize=4)
def build_case(spec_items) -> tuple[jt.Case, tuple]:
    spec = dict(spec_items)
    fmt = jgn.PADDED if spec.get("rows") == 656 else jgn.COMPACT
    case = jt.make_case(
        spec["seed"],
        spec["T"],
        spec["H"],
        spec["K"],
        num_slots=max(512, spec["T"] * 4),
        fmt=fmt,
        page_size=spec.get("page"),
        wide=spec.get("wide", False),
        with_lens=spec.get("lens", False),
        data=spec.get("data"),
        spread=spec.get("spread"),
    )
    return case, case.reference()


class AttentionSuite:
    """The cases and checks every implementation passes. Subclasses name the
    implementation, its options and the sizes."""

    IMPLEMENTATION = "reference"
    OPTIONS: dict = {}
    CASES = CPU_CASES
    SCORE_LIMIT: dict = {}  # the largest score represented, when below the float32 maximum

    def attend(self, q, pool, indices, sm_scale, topk_lens=None):
        return jgn.sparse_mla(
            q, pool, indices, sm_scale, topk_lens, implementation=self.IMPLEMENTATION, **self.OPTIONS
        )

    def run_case(self, case):
        fn = jax.jit(self.attend, static_argnums=3)
        lens = None if case.topk_lens is None else jnp.asarray(case.topk_lens)
        out, lse = fn(
            jnp.asarray(case.q), jnp.asarray(case.pool), jnp.asarray(case.indices), case.sm_scale, lens
        )
        return np.asarray(out.astype(jnp.float32)), np.asarray(lse)

    def test_matches_float64_reference(self, case_spec):
        case, ref = build_case(tuple(sorted(case_spec.items())))
        out, lse = self.run_case(case)
        jt.assert_accurate(out, lse, *ref, label=case.label)
        again = self.run_case(case)
        np.testing.assert_array_equal(again[0], out)  # same bits on every call
        np.testing.assert_array_equal(again[1], lse)

    def test_nonfinite_referenced_input_gives_nan_in_out_and_lse(self):
        pool = np.array(jgn.quantize(jnp.ones((4, 512)) * jnp.arange(1, 5)[:, None]))
        pool[1, 512:516] = np.asarray([np.nan], "<f4").view(np.uint8)  # NaN scale, slot 1
        pool[2, 7] = 0x7F  # NaN code, slot 2
        q = np.ones((4, 8, 512), np.float32)
        q[3, 5, 9] = np.inf  # Inf query, token 3 head 5
        idx = np.array([[0, 1], [0, 2], [0, 3], [0, 3]], np.int32)
        out, lse = self.attend(jnp.asarray(q, jnp.bfloat16), jnp.asarray(pool), jnp.asarray(idx), 0.05)
        out, lse = np.asarray(out.astype(jnp.float32)), np.asarray(lse)
        assert np.isnan(lse[:2]).all() and np.isnan(out[:2]).all()
        assert np.isfinite(lse[2]).all() and np.isfinite(out[2]).all()
        assert np.isnan(lse[3, 5]) and np.isnan(out[3, 5]).all()
        assert np.isfinite(np.delete(lse[3], 5)).all()

    @pytest.mark.parametrize("sm_scale", [1e30, 3.0e38])
    def test_overflowing_scores_are_never_nan(self, sm_scale):
        pool = jgn.quantize(jax.random.normal(jax.random.key(0), (64, 512)) * 1e30)
        q = jax.random.normal(jax.random.key(1), (3, 8, 512)).astype(jnp.bfloat16)
        idx = jax.random.randint(jax.random.key(2), (3, 64), 0, 64)
        out, lse = self.attend(q, pool, idx, sm_scale)
        assert not np.isnan(np.asarray(out.astype(jnp.float32))).any()
        assert not np.isnan(np.asarray(lse)).any()

    def test_rows_near_float32_max_and_bf16_max_queries(self):
        latent = jax.random.normal(jax.random.key(3), (64, 512))
        pool = jgn.quantize(latent / jnp.max(jnp.abs(latent)) * 3.0e38)
        q = jnp.full((2, 8, 512), jnp.finfo(jnp.bfloat16).max, jnp.bfloat16)
        idx = jnp.arange(128, dtype=jnp.int32).reshape(2, 64) % 64
        for queries in (q, jnp.ones_like(q)):
            out, lse = self.attend(queries, pool, idx, 1 / 16)
            assert not np.isnan(np.asarray(out.astype(jnp.float32))).any()
            assert not np.isnan(np.asarray(lse)).any()

    @pytest.mark.parametrize("kind", jt.EXTREME_CASES)
    def test_extreme_ranges(self, kind):
        """Scores near the float32 limits (sm_scale 1e35, bf16-max queries, lse at 3e38 and
        beyond), rows of 1e-34 and of 3e38: no NaN, +inf where the lse overflows, and the
        accuracy bound (up to what float32 can say of cancelling terms)."""
        case = jt.extreme_case(kind)
        out, lse = self.run_case(case)
        jt.assert_extreme(out, lse, case, **self.SCORE_LIMIT)

    @pytest.mark.parametrize("rows", ["near_float32_min", "sm_scale_1e37"])
    @pytest.mark.parametrize("num_candidates", [4, 256])
    def test_every_score_below_the_float32_range_is_not_the_empty_sentinel(self, num_candidates, rows):
        """Finite input whose every score lies below -FLOAT32_MAX (rows ``quantize`` writes
        near -3e38, or ``sm_scale`` 1e37 on rows of -1 and -2, against queries of +1): the
        scores saturate at the bottom of the range, as overflowing ones do at the top, so
        ``lse`` is the range's bottom, ``-FLOAT32_MAX`` (``cuda``'s ``-SCORE_LIMIT``: its
        softmax is in log2 units), never ``-inf`` (which means nothing to attend), and
        ``out`` is the mean of the candidates (docs/semantics.md, "Ranges"), never 0."""
        latent = np.full((num_candidates, 512), -3e38, np.float32)
        latent[num_candidates // 2] = -1e38
        sm_scale = 1 / 16
        if rows == "sm_scale_1e37":
            latent = -1.0 - (np.arange(num_candidates) % 2)[:, None] * np.ones((1, 512), np.float32)
            sm_scale = 1e37
        pool = jgn.quantize(jnp.asarray(latent))
        q = jnp.ones((2, 16, 512), jnp.bfloat16)
        order = np.arange(num_candidates)
        indices = jnp.asarray(np.stack([order, order[::-1]]), jnp.int32)
        out, lse = self.attend(q, pool, indices, sm_scale)
        out, lse = np.asarray(out.astype(jnp.float32), np.float64), np.asarray(lse)
        # the bottom of the implementation's range: -FLOAT32_MAX, or cuda's log2-unit limit
        bottom = -self.SCORE_LIMIT.get("score_limit", jt.FLOAT32_MAX)
        np.testing.assert_allclose(lse, np.float32(bottom), rtol=1e-6)
        mean = jt.dequantize_f64(np.asarray(pool)).mean(0)
        error = np.linalg.norm(out - mean, axis=-1) / np.linalg.norm(mean)
        assert error.max() <= jt.OUT_RTOL, error.max()

    def test_one_row_at_the_float32_maximum_beside_ordinary_rows(self):
        """One row ``quantize`` writes from latents at 3.4e38 (scale 7.6e35), scored far below
        every other, among std-1 rows (scales ~5e-3, 2^127 smaller) gathered in the same
        64-row step: the ordinary rows keep their values and weights."""
        rng = np.random.default_rng(53)
        direction = np.sign(rng.standard_normal(512)).astype(np.float32)
        latent = rng.standard_normal((64, 512)).astype(np.float32)
        latent[53] = 3.4e38 * direction
        pool = np.asarray(jgn.quantize(jnp.asarray(latent)))
        q = (-np.abs(rng.standard_normal((2, 8, 512))) * direction + rng.standard_normal((2, 8, 512))).astype(
            np.float32
        )
        q = q.astype(jnp.bfloat16)
        indices = np.stack([np.arange(64), rng.permutation(64)]).astype(np.int32)
        out, lse = self.attend(jnp.asarray(q), jnp.asarray(pool), jnp.asarray(indices), 1 / 16)
        ref = jt.reference_f64(q.astype(np.float32), pool, indices, None, 1 / 16)
        assert np.abs(ref[1]).max() < 100  # the large row's weight is 0 in every head
        jt.assert_accurate(np.asarray(out.astype(jnp.float32)), np.asarray(lse), *ref)

    def test_under_jax_enable_x64(self):
        """64-bit mode (common in scientific JAX code) changes nothing: int32/bf16/f32 in and
        out, the same bound."""
        case, ref = build_case(tuple(sorted(self.CASES[0].items())))
        lens = None if case.topk_lens is None else jnp.asarray(case.topk_lens)
        with jax.enable_x64(True):
            fn = jax.jit(self.attend, static_argnums=3)
            out, lse = fn(
                jnp.asarray(case.q), jnp.asarray(case.pool), jnp.asarray(case.indices), case.sm_scale, lens
            )
        assert out.dtype == jnp.bfloat16 and lse.dtype == jnp.float32
        jt.assert_accurate(np.asarray(out.astype(jnp.float32)), np.asarray(lse), *ref, label=case.label)

    def test_negative_scales(self):
        rows = np.array(jgn.quantize(jnp.ones((2, 512))))
        scales = rows[:, 512:528].copy().view("<f4")
        rows[0, 512:528] = (-scales[0]).view(np.uint8)  # every value of slot 0 is -1
        q = jnp.ones((1, 8, 512), jnp.bfloat16)
        out, _ = self.attend(q, jnp.asarray(rows), jnp.zeros((1, 1), jnp.int32), 0.05)
        np.testing.assert_array_equal(np.asarray(out.astype(jnp.float32)), -1.0)

    def test_zero_tokens(self):
        pool = jgn.quantize(jnp.ones((4, 512)))
        out, lse = self.attend(jnp.zeros((0, 8, 512), jnp.bfloat16), pool, jnp.zeros((0, 5), jnp.int32), 0.1)
        assert out.shape == (0, 8, 512) and lse.shape == (0, 8)

    def test_vmap_folds_the_batch(self):
        case, _ = build_case(tuple(sorted(self.CASES[0].items())))
        q, pool, idx = jnp.asarray(case.q), jnp.asarray(case.pool), jnp.asarray(case.indices)
        pools = jnp.stack([pool, pool])
        idx2 = jnp.stack([idx, jnp.roll(idx, 1, axis=1)])
        out, lse = jax.vmap(lambda p, i: self.attend(q, p, i, case.sm_scale))(pools, idx2)
        for b in range(2):
            ref = jt.reference_f64(
                case.q.astype(np.float32), case.pool, np.asarray(idx2[b]), None, case.sm_scale
            )
            jt.assert_accurate(np.asarray(out[b].astype(jnp.float32)), np.asarray(lse[b]), *ref)

    def test_shard_map_heads_and_tokens(self):
        """Heads split over a ``model`` axis (tensor parallel), tokens over ``data``."""
        from jax.sharding import NamedSharding
        from jax.sharding import PartitionSpec as P

        devices = jax.devices()
        count = 2 if len(devices) >= 2 else 1
        mesh = jax.make_mesh((count,), ("x",), devices=devices[:count])
        case, ref = build_case(tuple(sorted(self.CASES[0].items())))
        q, pool, idx = jnp.asarray(case.q), jnp.asarray(case.pool), jnp.asarray(case.indices)
        lens = (
            jnp.asarray(case.topk_lens)
            if case.topk_lens is not None
            else jnp.full(idx.shape[:1], idx.shape[1])
        )
        # The Pallas *interpreter* trips JAX's varying-axes check (docs/semantics.md).
        check_vma = not self.OPTIONS.get("interpret", False)
        f = lambda q, i, n: self.attend(q, pool, i, case.sm_scale, n)  # noqa: E731
        specs = {
            "heads": ((P(None, "x"), P(), P()), (P(None, "x"), P(None, "x"))),
            "tokens": ((P("x"), P("x"), P("x")), (P("x"), P("x"))),
        }
        for name, (in_specs, out_specs) in specs.items():
            if name == "heads" and case.q.shape[1] % count or name == "tokens" and case.q.shape[0] % count:
                continue
            mapped = jax.jit(
                jax.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=check_vma)
            )
            args = [
                jax.device_put(x, NamedSharding(mesh, spec))
                for x, spec in zip((q, idx, lens), in_specs, strict=True)
            ]
            out, lse = mapped(*args)
            jt.assert_accurate(
                np.asarray(out.astype(jnp.float32)), np.asarray(lse), *ref, label=f"{case.label} {name}"
            )

    def test_grad_raises_or_is_the_reference(self):
        pool = jgn.quantize(jnp.ones((4, 512)))
        idx = jnp.arange(4, dtype=jnp.int32)[None]

        def loss(q):
            return jnp.sum(self.attend(q, pool, idx, 0.05)[1])

        q = jnp.ones((1, 8, 512), jnp.bfloat16)
        if self.IMPLEMENTATION == "reference":
            assert np.isfinite(np.asarray(jax.grad(loss)(q).astype(jnp.float32))).all()
        else:
            with pytest.raises(TypeError, match="not differentiable"):
                jax.grad(loss)(q)


class TestReference(AttentionSuite):
    IMPLEMENTATION = "reference"


class TestPallasInterpret(AttentionSuite):
    IMPLEMENTATION = "pallas"
    OPTIONS = {"interpret": True}


@pytest.mark.gpu
class TestPallasGPU(AttentionSuite):
    IMPLEMENTATION = "pallas"
    CASES = GPU_CASES


@pytest.mark.gpu
@pytest.mark.sm90
class TestCudaGPU(AttentionSuite):
    IMPLEMENTATION = "cuda"
    CASES = GPU_CASES
    SCORE_LIMIT = {"score_limit": cuda.SCORE_LIMIT}


@pytest.mark.gpu
@pytest.mark.sm120
class TestFlashInferGPU(AttentionSuite):
    IMPLEMENTATION = "flashinfer"
    CASES = GPU_CASES


@pytest.mark.gpu
class TestAutoGPU(AttentionSuite):
    IMPLEMENTATION = None
    # (+ T = 4, at the dispatch threshold, and the mixed-magnitude and offset cases)
    CASES = GPU_CASES[:3] + GPU_CASES[12:]


@pytest.mark.gpu
@pytest.mark.sm90
@pytest.mark.parametrize("data", ["wide", "mixed", "offset"])
@pytest.mark.parametrize("num_heads", [64, 128])
@pytest.mark.parametrize("batch_invariant", [False, True])
def test_long_splits_of_33_to_128_heads_on_hopper(batch_invariant, num_heads, data):
    """The pipelined heads-major kernel (33-128 heads, 8 or more blocks per split): 32 tokens
    of K = 2176 with holes, hostile indices and poisoned rows, under the batch-sized rule
    (9 or 17 blocks per split) and the invariant one (8), against float64 on the
    dequantized values, on wide-range, mixed-magnitude and shared-offset data."""
    case = jt.make_case(70 + num_heads + len(data), 32, num_heads, 2176, data=data, spread=100)

    def attend(q, pool, indices):
        return jgn.sparse_mla(
            q, pool, indices, case.sm_scale, implementation="cuda", batch_invariant=batch_invariant
        )

    out, lse = jax.jit(attend)(jnp.asarray(case.q), jnp.asarray(case.pool), jnp.asarray(case.indices))
    jt.assert_accurate(
        np.asarray(out.astype(jnp.float32)), np.asarray(lse), *case.reference(), label=case.label
    )


@pytest.mark.gpu
@pytest.mark.sm90
@pytest.mark.parametrize("num_heads", [64, 128])
@pytest.mark.parametrize("batch_invariant", [False, True])
def test_blocks_whose_scales_span_2_to_the_100_on_hopper(batch_invariant, num_heads):
    """Half the rows with their tile scales times 2^-100, beside ordinary rows in every
    64-candidate block and scored alike (their scores are ~0 nats, the ordinary rows' a few):
    a block's exponents span ~2^100, past what one exponential per element can carry (the
    small rows' probabilities, scaled to the block's largest exponent, would flush to zero
    while their weight is ~1). 32 tokens of K = 2048, served by the pipelined heads-major
    kernel (8 or more blocks per split, whose lean softmax sends such blocks to its
    two-exponential path), against float64 on the dequantized values."""
    case = jt.make_case(90 + num_heads, 32, num_heads, 2048, num_slots=32 * 2048 + 1, hostile=False)
    pool = np.array(case.pool)
    scales = pool[:, 512:528].copy().view("<f4")
    small = np.random.default_rng(num_heads).random(len(pool)) < 0.5
    scales[small] *= np.float32(2.0**-100)
    pool[:, 512:528] = scales.view(np.uint8)
    case = dataclasses.replace(case, pool=pool, label=case.label + " rows 2^-100 and 1")

    def attend(q, pool, indices):
        return jgn.sparse_mla(
            q, pool, indices, case.sm_scale, implementation="cuda", batch_invariant=batch_invariant
        )

    out, lse = jax.jit(attend)(jnp.asarray(case.q), jnp.asarray(case.pool), jnp.asarray(case.indices))
    jt.assert_accurate(
        np.asarray(out.astype(jnp.float32)), np.asarray(lse), *case.reference(), label=case.label
    )


@pytest.mark.gpu
@pytest.mark.sm90
@pytest.mark.parametrize("spread", [10, 30, 100, 1000])
@pytest.mark.parametrize("num_heads", [64, 128])
@pytest.mark.parametrize("implementation", ["cuda", None, "pallas"])
def test_blocks_that_mix_magnitudes_on_hopper(implementation, num_heads, spread):
    """Rows e^U(-12, 0) with one row e^12 larger in every 64-candidate block, scored lowest
    (anti-aligned with every query) while a small row dominates: a block's largest row is
    not its dominant candidate. 8 tokens of K = 2048 (``None`` takes ``cuda`` from 4 tokens),
    against float64 on the dequantized values."""
    case = jt.make_case(
        40 + num_heads + spread,
        8,
        num_heads,
        2048,
        num_slots=8 * 2048 + 1,
        data="mixed",
        spread=spread,
        hostile=False,
    )

    def attend(q, pool, indices):
        return jgn.sparse_mla(q, pool, indices, case.sm_scale, implementation=implementation)

    out, lse = jax.jit(attend)(jnp.asarray(case.q), jnp.asarray(case.pool), jnp.asarray(case.indices))
    jt.assert_accurate(
        np.asarray(out.astype(jnp.float32)), np.asarray(lse), *case.reference(), label=case.label
    )
