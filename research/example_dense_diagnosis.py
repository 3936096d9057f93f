"""Why the example's compact and dense-FP8 paths differ more on a GPU than on the CPU.

    python research/example_dense_diagnosis.py --out DIR            # on the GPU (about 4 min)
    python research/example_dense_diagnosis.py --out DIR --emulate-tf32 --steps 8   # the CPU

Runs ``examples/decode_loop.py``'s default configuration (2 layers, 64 heads, 2
requests, 64-token prompts, ``--steps`` decode steps) and compares the compact path's
teacher-forced logits with the dense mask over the same FP8 values in two ways:

- ``separate``: ``attention="dense-fp8"``, its own compiled program that quantizes its
  own latents (what ``--check-dense`` reported before). Any difference upstream of a
  layer's FP8 write (float32 summation order, a kernel's in-contract rounding, TF32
  rounding of the projections) moves latent values across FP8 rounding boundaries
  (one step is 6-12% of a value), and the next layer carries that on;
- ``paired``: ``attention="paired"``, one program whose second stream reads the
  compact path's own rows and candidates with the dense mask (what ``--check-dense``
  reports now): only the attention read differs.

once per suspect: jax's default matmul precision (TF32 for float32 matrix products on
NVIDIA GPUs) against ``highest``, and the dispatch table's kernel against the jnp
reference. The indexer is ruled out by the configuration: it keeps every complete pool
(32 pools of 4 tokens exist, ``topk_pools`` is 512), so no top-k choice can flip.
``--emulate-tf32`` rounds the example's float32 matrix-product operands to TF32 (10
mantissa bits) on any platform, to reproduce the mechanism on a CPU. Writes
``DIR/dense_diagnosis.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples"))

import decode_loop  # noqa: E402
import glm_nope_model as model_lib  # noqa: E402


def _tf32(x):
    """float32 -> the nearest TF32 value (10 mantissa bits), as float32."""
    bits = jax.lax.bitcast_convert_type(x.astype(jnp.float32), jnp.uint32)
    bits = (bits + jnp.uint32(0xFFF) + ((bits >> 13) & 1)) & jnp.uint32(0xFFFFE000)
    return jax.lax.bitcast_convert_type(bits, jnp.float32)


def _mm_tf32(x, w, spec):
    return jnp.einsum(spec, _tf32(x), _tf32(w.astype(jnp.float32)), preferred_element_type=jnp.float32)


def _max_rms(a, b):
    diff = np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))
    return float(diff.max()), float(np.sqrt(np.mean(diff**2)))


_MM = model_lib._mm


def diagnose(cfg, run, precision: str | None, implementation: str, emulate_tf32: bool = False) -> dict:
    """One row: ``implementation`` is a name, ``"auto"`` (the dispatch table's choice) or
    ``"pallas-interpret"``; ``emulate_tf32`` rounds the operands at default precision."""
    interpret = implementation == "pallas-interpret"
    implementation = {"auto": None, "pallas-interpret": "pallas"}.get(implementation, implementation)
    run = dataclasses.replace(run, implementation=implementation, interpret=interpret)
    tf32 = emulate_tf32 and precision is None
    if (model_lib._mm is _mm_tf32) != tf32:
        model_lib._mm = _mm_tf32 if tf32 else _MM
        decode_loop._EXECUTABLES.clear()  # compiled with the other matrix product
    with jax.default_matmul_precision(precision):
        compact = decode_loop.generate(cfg, run)
        separate = decode_loop.generate(cfg, run, "dense-fp8", forced=compact.tokens)
        paired = decode_loop.generate(cfg, run, "paired")
    sep_max, sep_rms = _max_rms(separate.logits, compact.logits)
    pair_max, pair_rms = _max_rms(paired.logits[:, :, 1], paired.logits[:, :, 0])
    return {
        "precision": (precision or "default") + (" (TF32 emulated)" if tf32 else ""),
        "sparse_mla": compact.implementation,
        "separate_max_abs": sep_max,
        "separate_rms": sep_rms,
        "paired_max_abs": pair_max,
        "paired_rms": pair_rms,
        "paired_tokens_equal_compact": bool(np.array_equal(paired.tokens, compact.tokens)),
        "logit_std": float(compact.logits.std()),
    }


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=".")
    parser.add_argument("--steps", type=int, default=decode_loop.Run.steps)
    parser.add_argument("--emulate-tf32", action="store_true", help="TF32 operands on any platform")
    parser.add_argument(
        "--implementations",
        nargs="+",
        default=["auto", "reference"],
        help="sparse_mla implementations to try ('auto': the dispatch table's choice; "
        "'pallas-interpret': the Pallas kernel in its interpreter, on a CPU)",
    )
    args = parser.parse_args(argv)
    cfg, run = model_lib.Config(), decode_loop.Run(steps=args.steps)
    num_pools = run.max_len // cfg.index_kpool
    summary = {
        "device": f"{jax.devices()[0].device_kind} ({jax.default_backend()})",
        "jax": jax.__version__,
        "emulate_tf32": args.emulate_tf32,
        "run": dataclasses.asdict(run),
        "indexer_keeps_every_complete_pool": num_pools <= cfg.topk_pools,
        "rows": [],
    }
    print(
        f"{summary['device']}, jax {jax.__version__}; {num_pools} pools <= topk_pools {cfg.topk_pools}: "
        "the indexer keeps every complete pool (no top-k flips)"
    )
    print(
        f"{'precision':<24} {'sparse_mla':<12} {'separate max':>12} {'rms':>9} {'paired max':>11} {'rms':>9}"
    )
    os.makedirs(args.out, exist_ok=True)
    for precision in (None, "highest"):
        for name in args.implementations:
            start = time.perf_counter()
            row = diagnose(cfg, run, precision, name, args.emulate_tf32)
            row["seconds"] = time.perf_counter() - start
            summary["rows"].append(row)
            print(
                f"{row['precision']:<24} {row['sparse_mla']:<12} {row['separate_max_abs']:12.2e} "
                f"{row['separate_rms']:9.2e} {row['paired_max_abs']:11.2e} {row['paired_rms']:9.2e}",
                flush=True,
            )
            with open(os.path.join(args.out, "dense_diagnosis.json"), "w") as f:
                json.dump(summary, f, indent=1)
    return summary


if __name__ == "__main__":
    main()
