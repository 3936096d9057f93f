"""The Pallas NaN of 0.1.0 on the GPU, before and after the fix, on the same inputs.

    python research/pallas_nan_regression.py [--old PATH_TO_0.1.0_TREE]

Builds the cases that emitted NaN on the H200 (rows quantized from latents whose
per-row magnitude is spread by e^N(0, 1), std-1 queries, sm_scale 1/16, random slots),
counts NaN tokens of this tree's ``implementation="pallas"`` and, with ``--old``, of
0.1.0's ``backend="pallas"`` in a subprocess over the same arrays.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

CASES = [(65, 32, 2176), (128, 64, 2048), (1000, 16, 512), (64, 8, 2176)]
NUM_SLOTS = 20000

_COUNT = """
import json, sys, numpy as np, jax, jax.numpy as jnp
import jax_glm_nope as jgn
data = np.load(sys.argv[1])
kw = json.loads(sys.argv[2])
out, lse = jgn.sparse_mla(jnp.asarray(data["q"]).astype(jnp.bfloat16), jnp.asarray(data["pool"]),
                          jnp.asarray(data["indices"]), 1 / 16, **kw)
out = np.asarray(out.astype(jnp.float32)); lse = np.asarray(lse)
bad = np.isnan(out).any(axis=(1, 2)) | np.isnan(lse).any(axis=1)
print(json.dumps({"nan_tokens": int(bad.sum()), "tokens": int(len(bad))}))
"""


def _inputs(seed, num_tokens, num_heads, num_candidates):
    from jax_glm_nope.testing import quantize_f64

    rng = np.random.default_rng(seed)
    latent = rng.standard_normal((NUM_SLOTS, 512)) * np.exp(rng.standard_normal((NUM_SLOTS, 1)))
    pool = quantize_f64(latent.astype(np.float32))
    q = rng.standard_normal((num_tokens, num_heads, 512)).astype(np.float32)
    indices = rng.integers(0, NUM_SLOTS, (num_tokens, num_candidates)).astype(np.int32)
    return q, pool, indices


def _count(path, pythonpath, kwargs):
    env = dict(os.environ, PYTHONPATH=pythonpath)
    # cwd: a folder holding no jax_glm_nope, so PYTHONPATH alone decides which one loads.
    result = subprocess.run(
        [sys.executable, "-c", _COUNT, path, json.dumps(kwargs)],
        env=env,
        capture_output=True,
        text=True,
        cwd=os.path.dirname(path),
    )
    if result.returncode:
        return {"error": result.stderr.strip().splitlines()[-1]}
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--old", help="a tree holding 0.1.0's jax_glm_nope/ (git archive e0e3ff1 jax_glm_nope)"
    )
    args = parser.parse_args()
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for seed, (t, h, k) in enumerate(CASES):
            path = os.path.join(tmp, f"case{seed}.npz")
            q, pool, indices = _inputs(seed, t, h, k)
            np.savez(path, q=q, pool=pool, indices=indices)
            new = _count(path, here, {"implementation": "pallas"})
            row = {"T": t, "H": h, "K": k, "now": new}
            if "error" in new:
                print(new["error"], file=sys.stderr)
            if args.old:
                row["0.1.0"] = _count(path, os.path.abspath(args.old), {"backend": "pallas"})
            failed |= new.get("nan_tokens", 1) != 0
            print(json.dumps(row), flush=True)
    return int(failed)


if __name__ == "__main__":
    sys.exit(main())
