"""The mixed-magnitude probe through the public API, on the GPU (a lab check).

`jax_glm_nope.testing.make_case(data="mixed")`: per token, ordinary rows e^U(-12, 0) and in
every 64-candidate block one row e^+12 larger, anti-aligned with every query, so it scores
lowest while a small row dominates the softmax; `spread` is the ordinary rows' mean score
spread (nats). Each row is checked against float64 on the dequantized values with the
product's own accuracy check. The GPU suite runs the same construction
(`tests/test_attention.py::test_blocks_that_mix_magnitudes_on_hopper`); this prints every
row's error.

    python research/mixed_check.py [--heads 64 128] [--impls cuda None pallas]

Exits non-zero when a row misses the bound.
"""

from __future__ import annotations

import argparse
import sys

import jax
import jax.numpy as jnp
import numpy as np

import jax_glm_nope as jgn
from jax_glm_nope import testing


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
        for temp in args.temps:
            case = testing.make_case(
                heads,
                args.tokens,
                heads,
                args.topk,
                num_slots=args.tokens * args.topk + 1,
                data="mixed",
                spread=temp,
                hostile=False,
            )
            ref_out, ref_lse = case.reference()
            for impl in args.impls:
                name = None if impl == "None" else impl
                out, lse = jgn.sparse_mla(
                    jnp.asarray(case.q),
                    jnp.asarray(case.pool),
                    jnp.asarray(case.indices),
                    case.sm_scale,
                    implementation=name,
                )
                out = np.asarray(out.astype(jnp.float32))
                out_err, lse_err = testing.accuracy_errors(out, np.asarray(lse), ref_out, ref_lse)
                rel, lse_worst = float(np.max(out_err)), float(np.max(lse_err))
                good = rel <= testing.OUT_RTOL and lse_worst <= testing.LSE_TOL and np.isfinite(out).all()
                ok &= good
                line = f"mixed H={heads:3d} {temp:6.0f} nats {impl:6s}: out rel L2 {rel:.2e}"
                print(f"{line}  lse {lse_worst:.1e}  {'ok' if good else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
