"""Run FlashInfer's GLM53_NOPE kernels through the FFI bridge against the float64
reference on hostile cases, and print the comparison (SM120/SM121 GPUs only).

Cases: GLM indexer rows (512 pools of 4 tokens + a tail of 0-3 tokens, 2051 columns)
with missing pools (runs of four -1), holes at the start and the end, out-of-range
ids, rows of only holes, rows with only a valid tail; slot 0 and every slot no
candidate references hold NaN/Inf bytes; 528- and 656-byte rows; heads 8 and 32
(plus 16, 24, 64, 128); decode (T <= 64) and prefill (T > 64); K = 2051 raw and padded
to 2176 by ``pad_candidates``. Each case also runs twice to check identical bits.

    python scripts/sm120_check.py [--quick] [--json results.json]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from numpy_ref import hostile_pool, np_sparse_mla  # noqa: E402

import jax_glm_nope as jgn  # noqa: E402
from jax_glm_nope import bridge  # noqa: E402

OUT_RTOL = 5e-3  # SPEC 3
LSE_ATOL = 1e-2
POOLS, POOL_SIZE, TAIL = 512, 4, 3
NUM_SLOTS = POOL_SIZE * 900


def glm_indices(rng, num_tokens: int) -> np.ndarray:
    """[T, 2051] GLM indexer rows: expanded pools, then the tail pool, then -1."""
    width = POOLS * POOL_SIZE + TAIL
    rows = np.full((num_tokens, width), -1, np.int32)
    for t in range(num_tokens):
        kind = t % 6
        pools = rng.choice(np.arange(1, NUM_SLOTS // POOL_SIZE - 1), POOLS, replace=False)  # never pool 0
        expanded = (pools[:, None] * POOL_SIZE + np.arange(POOL_SIZE)).ravel().astype(np.int32)
        missing = rng.choice(POOLS, rng.integers(1, 9), replace=False)
        expanded.reshape(POOLS, POOL_SIZE)[missing] = -1  # missing pool groups: runs of four -1
        tail_len = int(rng.integers(0, TAIL + 1))
        tail = NUM_SLOTS - POOL_SIZE + np.arange(tail_len, dtype=np.int32)
        rows[t, : POOLS * POOL_SIZE] = expanded
        rows[t, POOLS * POOL_SIZE : POOLS * POOL_SIZE + tail_len] = tail
        if kind == 1:
            rows[t] = -1  # nothing active
        elif kind == 2:
            rows[t, :4] = -1  # holes at the start
            rows[t, 100:103] = NUM_SLOTS + rng.integers(0, 50, 3)  # out of range
        elif kind == 3:
            rows[t, : POOLS * POOL_SIZE] = -1  # only the tail is valid
            rows[t, POOLS * POOL_SIZE] = NUM_SLOTS - 1
        elif kind == 4:
            rows[t, 7] = rows[t, 8]  # a duplicate counts twice
    return rows


def run_case(name, fmt, num_tokens, num_heads, pad, seed, fn):
    rng = np.random.default_rng(seed)
    raw = glm_indices(rng, num_tokens)
    if pad:
        indices, topk_lens = jgn.pad_candidates(jnp.asarray(raw))
        indices, topk_lens = np.asarray(indices), np.asarray(topk_lens)
    else:
        indices, topk_lens = raw, np.full((num_tokens,), raw.shape[1], np.int32)
    referenced = [i for t in range(num_tokens) for i in indices[t, : topk_lens[t]]]
    pool = hostile_pool(rng, NUM_SLOTS, fmt, referenced)
    assert not np.isfinite(pool[0, 512:528].view("<f4")).all(), "slot 0 must hold NaN/Inf"
    q = (rng.standard_normal((num_tokens, num_heads, 512)) * 0.5).astype(np.float32)
    sm_scale = float(rng.uniform(0.02, 0.1))
    q_bf16 = jnp.asarray(q).astype(jnp.bfloat16)
    args = (q_bf16, jnp.asarray(pool), jnp.asarray(indices), jnp.asarray(topk_lens), sm_scale)
    start = time.perf_counter()
    out, lse = jax.block_until_ready(fn(*args))
    seconds = time.perf_counter() - start
    out2, lse2 = fn(*args)
    repeat_same = bool(
        np.array_equal(np.asarray(out2).view(np.uint16), np.asarray(out).view(np.uint16))
        and np.array_equal(np.asarray(lse2).view(np.uint32), np.asarray(lse).view(np.uint32))
    )
    q_used = np.asarray(q_bf16.astype(jnp.float32))
    out_ref, lse_ref = np_sparse_mla(q_used, pool, indices, topk_lens, sm_scale)
    out = np.asarray(out.astype(jnp.float32), np.float64)
    lse = np.asarray(lse, np.float64)
    empty = np.isneginf(lse_ref)
    rel = np.linalg.norm(out - out_ref, axis=-1) / np.maximum(np.linalg.norm(out_ref, axis=-1), 1e-30)
    rel = np.where(empty, 0.0, rel)
    lse_err = np.abs(np.where(empty, 0.0, lse - np.where(empty, 0.0, lse_ref)))
    result = {
        "case": name,
        "row_bytes": fmt.bytes_per_token,
        "T": num_tokens,
        "H": num_heads,
        "K": int(indices.shape[1]),
        "target": "decode" if num_tokens <= 64 else "prefill",
        "max_rel_l2": float(rel.max()),
        "max_lse_err": float(lse_err.max()),
        "nan": int(np.isnan(out).sum() + np.isnan(lse).sum()),
        "empty_ok": bool(np.array_equal(np.isneginf(lse), empty) and (out[empty] == 0).all()),
        "repeat_same": repeat_same,
        "seconds_first_call": round(seconds, 3),
    }
    result["pass"] = bool(
        result["max_rel_l2"] <= OUT_RTOL
        and result["max_lse_err"] <= LSE_ATOL
        and result["nan"] == 0
        and result["empty_ok"]
        and repeat_same
    )
    return result


def main(argv=None) -> int:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--quick", action="store_true", help="heads 8 and 32 only, fewer token counts")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args(argv)

    capability = bridge.cuda_compute_capability()
    print(f"jax {jax.__version__}, devices {jax.devices()}, compute capability {capability}")
    reason = bridge.unavailable_reason("cuda")
    if reason is not None:
        print(f"cannot run the GLM targets here: {reason}")
        return 2
    library = bridge.targets.load_library()  # builds on first use
    print(f"bridge library: {library._name}")

    heads = (8, 32) if args.quick else (8, 16, 24, 32, 64, 128)
    tokens = (1, 64, 65) if args.quick else (1, 5, 64, 65, 200)
    fn = jax.jit(bridge.sparse_mla_flashinfer, static_argnums=4)
    results = []
    seed = 0
    for fmt in jgn.layout.FORMATS:
        for num_heads in heads:
            for num_tokens in tokens:
                for pad in (False, True):
                    seed += 1
                    name = f"glm-{'padded' if pad else 'raw'}"
                    results.append(run_case(name, fmt, num_tokens, num_heads, pad, seed, fn))
                    r = results[-1]
                    print(
                        f"{'PASS' if r['pass'] else 'FAIL'} {r['case']:<10} row {r['row_bytes']} "
                        f"T={r['T']:<4} H={r['H']:<4} K={r['K']:<5} {r['target']:<8} "
                        f"rel_l2 {r['max_rel_l2']:.2e}  lse_err {r['max_lse_err']:.2e}  nan {r['nan']}  "
                        f"empty_ok {r['empty_ok']}  repeat_same {r['repeat_same']}",
                        flush=True,
                    )
    # The public API picks the same path.
    try:
        rng = np.random.default_rng(99)
        indices = glm_indices(rng, 3)
        pool = hostile_pool(rng, NUM_SLOTS, jgn.COMPACT, indices.ravel())
        q = jnp.asarray(rng.standard_normal((3, 8, 512)), jnp.bfloat16)
        out_api, _ = jgn.sparse_mla(q, jnp.asarray(pool), jnp.asarray(indices), 0.05, backend="flashinfer")
        out_fi, _ = fn(q, jnp.asarray(pool), jnp.asarray(indices), jnp.full((3,), 2051, jnp.int32), 0.05)
        same = np.array_equal(np.asarray(out_api).view(np.uint16), np.asarray(out_fi).view(np.uint16))
        print(f"{'PASS' if same else 'FAIL'} public sparse_mla(backend='flashinfer') == bridge call: {same}")
        results.append({"case": "public-api", "pass": bool(same)})
    except Exception as err:  # report; the bridge results above still stand
        print(f"FAIL public sparse_mla(backend='flashinfer'): {type(err).__name__}: {err}")
        results.append({"case": "public-api", "pass": False, "error": str(err)})
    failed = [r for r in results if not r["pass"]]
    print(
        f"\n{len(results) - len(failed)}/{len(results)} cases pass (tolerances: rel L2 <= {OUT_RTOL}, "
        f"|lse - ref| <= {LSE_ATOL})"
    )
    if args.json:
        report = {"capability": capability, "results": results}
        pathlib.Path(args.json).write_text(json.dumps(report, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
