"""The mixed-magnitude probe through the public API, on the GPU (a lab check).

Per token: ordinary rows e^U(-12, 0); in every 64-candidate block one row e^+12 larger,
anti-aligned with every query, so it scores lowest while a small row dominates the
softmax (a block whose largest |s_t| is not its dominant candidate's). sm_scale is set so
that the ordinary rows' mean score spread per head is the target (nats). Each row is
checked against float64 on the dequantized values: per-token relative L2 of `out` and the
lse tolerance, as the product's tests judge them.

    python research/mixed_check.py [--heads 64 128] [--impls cuda None pallas]

Exits non-zero when a row misses the bound.
"""

from __future__ import annotations

import argparse
import sys

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np

import jax_glm_nope as jgn
from jax_glm_nope import testing

BLOCK = 64


def mixed_case(seed: int, tokens: int, heads: int, topk: int):
    rng = np.random.default_rng(seed)
    g = rng.standard_normal
    n = tokens * topk
    lat = g((n, 512)) * np.exp(rng.uniform(-12, 0, (n, 1)))
    d = np.sign(g((tokens, 512)))  # per token, the direction the big rows oppose
    q = np.abs(g((tokens, heads, 512))) * d[:, None, :] * 0.5 + g((tokens, heads, 512))
    for t in range(tokens):
        rows = t * topk + np.arange(0, topk, BLOCK) + rng.integers(0, BLOCK, topk // BLOCK)
        lat[rows] = -np.abs(g((len(rows), 512))) * d[t][None, :] * np.exp(12.0)
    pool = np.zeros((n + 1, 528), np.uint8)
    pool[1:] = testing.quantize_f64(lat)
    pool[0] = 0xFF  # slot 0 unreferenced, NaN
    indices = (1 + np.arange(n, dtype=np.int32)).reshape(tokens, topk)
    q = q.astype(np.float32).astype(ml_dtypes.bfloat16)
    return q, pool, indices


def calibrate(q, pool, indices, target):
    """sm_scale: the ordinary rows' mean score spread per head is `target` nats."""
    values = testing.dequantize_f64(pool)
    spreads = []
    for t in range(indices.shape[0]):
        raw = q[t].astype(np.float64) @ values[indices[t]].T  # [H, K]
        keep = np.ones(raw.shape[1], bool)
        keep[np.argsort(raw.mean(0))[: raw.shape[1] // BLOCK]] = False  # the big rows
        r = raw[:, keep]
        spreads.append(np.mean(r.max(1) - r.min(1)))
    return float(target / np.mean(spreads))


def errors(out, lse, ref_out, ref_lse):
    out = np.asarray(out, np.float64)
    num = np.sqrt(((out - ref_out) ** 2).sum(axis=(1, 2)))
    den = np.sqrt((ref_out**2).sum(axis=(1, 2)))
    lse_err = np.abs(np.asarray(lse, np.float64) - ref_lse) / np.maximum(1.0, np.abs(ref_lse))
    return float((num / den).max()), float(lse_err.max())


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--heads", type=int, nargs="+", default=[64, 128])
    ap.add_argument("--impls", nargs="+", default=["cuda", "None", "pallas"])
    ap.add_argument("--temps", type=float, nargs="+", default=[10, 30, 100, 1000])
    ap.add_argument("--tokens", type=int, default=8)
    ap.add_argument("--topk", type=int, default=2048)
    args = ap.parse_args()
    print(f"device: {jax.devices()[0].device_kind}")
    ok = True
    for heads in args.heads:
        q, pool, indices = mixed_case(heads, args.tokens, heads, args.topk)
        for temp in args.temps:
            sm = calibrate(q, pool, indices, temp)
            ref_out, ref_lse = testing.reference_f64(q, pool, indices, None, sm)
            for impl in args.impls:
                name = None if impl == "None" else impl
                out, lse = jgn.sparse_mla(
                    jnp.asarray(q), jnp.asarray(pool), jnp.asarray(indices), sm, implementation=name
                )
                rel, lse_err = errors(out, lse, ref_out, ref_lse)
                good = (
                    rel <= testing.OUT_RTOL
                    and lse_err <= testing.LSE_TOL
                    and np.isfinite(np.asarray(out, np.float32)).all()
                )
                ok &= good
                verdict = "ok" if good else "FAIL"
                line = f"mixed H={heads:3d} {temp:6.0f} nats {impl:6s}: out rel L2 {rel:.2e}"
                print(f"{line}  lse {lse_err:.1e}  {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
