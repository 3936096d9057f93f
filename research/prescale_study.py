"""Would a prescaled fp16 tile keep SPEC's accuracy? A numpy model of two designs of the
heads-major kernel's arithmetic against float64 on the dequantized values (no GPU).

- exact (shipped): the e4m3 codes exact in fp16, q̂ in fp16, four per-tile score
  accumulators scaled exactly in fp32, U = p s_t 2^-F_t in fp16 per tile;
- prescale: the tile holds fp16(code x s_t x 2^-E_c) (one score accumulator, one U per
  candidate, U = p 2^(E_c - F) in fp16), with the factor s_t 2^-E_c applied in fp16
  (a half2 multiply after the exact conversion) or in fp32 (rounded once).

    python research/prescale_study.py

Prints the worst per-token relative L2 error of `out` (bf16) over seeds, per score
temperature, for tile scales within x0.5-2 of each other and up to 2^+-12 apart.
Findings in research/notes/seesaw_heads_major.md ("Where 33-128 heads stand").
"""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np

K, H, D, TILE = 2048, 16, 512, 128


def f16(x):
    return np.asarray(x, np.float32).astype(np.float16).astype(np.float64)


def exponent_bound(x):
    """The smallest e with |x| <= 2^e."""
    return np.ceil(np.log2(np.maximum(np.abs(x), 1e-38))).astype(np.int64)


def per_tile(a):
    return np.repeat(a, TILE, axis=-1)


def inputs(seed: int, temperature: float, wide_tiles: bool):
    rng = np.random.default_rng(seed)
    codes = (rng.standard_normal((K, D)) * 64).astype(ml_dtypes.float8_e4m3fn).astype(np.float64)
    ratio = 2.0 ** rng.uniform(-12, 12, (K, 4)) if wide_tiles else rng.uniform(0.5, 2, (K, 4))
    scales = (rng.uniform(0.5, 2, K)[:, None] * ratio / 64).astype(np.float32).astype(np.float64)
    q = rng.standard_normal((H, D)).astype(ml_dtypes.bfloat16).astype(np.float64)
    return codes, scales, q, temperature / np.sqrt(D)


def reference(codes, scales, q, sm):
    v = codes * per_tile(scales)
    s = sm * (q @ v.T)
    p = np.exp(s - s.max(1, keepdims=True))
    return (p @ v) / p.sum(1, keepdims=True), float((s.max(1) - s.min(1)).mean())


def softmax_weights(s):
    return np.exp(s - s.max(1, keepdims=True)).astype(np.float32).astype(np.float64)


def exact(codes, scales, q, sm, qhat, e1):
    parts = np.stack(
        [qhat[:, TILE * t : TILE * (t + 1)] @ codes[:, TILE * t : TILE * (t + 1)].T for t in range(4)]
    )
    p = softmax_weights(np.einsum("thk,kt->hk", parts, scales) * sm * 2.0 ** e1[:, None])
    out = np.zeros((H, D))
    for t in range(4):
        b = p * scales[None, :, t]
        f = exponent_bound(b.max(1))
        out[:, TILE * t : TILE * (t + 1)] = (
            f16(b * 2.0 ** -f[:, None]) @ codes[:, TILE * t : TILE * (t + 1)]
        ) * 2.0 ** f[:, None]
    return out / p.sum(1, keepdims=True)


def prescale(codes, scales, q, sm, qhat, e1, factor_in_fp32: bool):
    e = exponent_bound(scales.max(1))
    factor = scales * 2.0 ** -e[:, None]
    tile = f16(codes * per_tile(factor if factor_in_fp32 else f16(factor)))
    p = softmax_weights((qhat @ tile.T) * (sm * 2.0 ** e1[:, None]) * 2.0 ** e[None, :])
    f = exponent_bound((p * 2.0 ** e[None, :]).max(1))
    u = f16(p * 2.0 ** (e[None, :] - f[:, None]))
    return (u @ tile) * 2.0 ** f[:, None] / p.sum(1, keepdims=True)


def errors(seed, temperature, wide_tiles):
    codes, scales, q, sm = inputs(seed, temperature, wide_tiles)
    ref, spread = reference(codes, scales, q, sm)
    e1 = exponent_bound(np.abs(q).max(1))
    qhat = f16(q * 2.0 ** -e1[:, None])
    outs = (
        exact(codes, scales, q, sm, qhat, e1),
        prescale(codes, scales, q, sm, qhat, e1, factor_in_fp32=False),
        prescale(codes, scales, q, sm, qhat, e1, factor_in_fp32=True),
    )

    def rel_l2(out):
        out = out.astype(ml_dtypes.bfloat16).astype(np.float64)
        return float(np.linalg.norm(out - ref) / np.linalg.norm(ref))

    return spread, [rel_l2(o) for o in outs]


def main():
    print("tile scales   temperature   spread (nats)   exact     prescale, fp16 factor   fp32 factor")
    for wide_tiles, temperature in itertools.product((False, True), (1, 4, 8, 16, 32)):
        rows = [errors(seed, temperature, wide_tiles) for seed in range(3)]
        worst = np.max([r[1] for r in rows], axis=0)
        spread = np.mean([r[0] for r in rows])
        scales = "2^+-12" if wide_tiles else "x0.5-2"
        errs = f"{worst[0]:.2e}  {worst[1]:.2e}                {worst[2]:.2e}"
        print(f"{scales:12s}  {temperature:11d}   {spread:13.1f}   {errs}")
    print("SPEC 3 bound: 5.0e-03")


if __name__ == "__main__":
    main()
