"""FlashInfer's GLM53_NOPE kernels through the public API (``sparse_mla(...,
implementation="flashinfer")``, SM120/SM121 GPUs only) against the float64 reference on
hostile cases; one line per case, and the exit status says whether all passed.

Cases: GLM indexer rows (``jax_glm_nope.testing.glm_candidate_rows``: 512 groups of 4
slots, missing groups as runs of four -1, then a tail of 3; 2051 columns) made hostile
per token (nothing active, holes at the start and out-of-range ids, only the tail valid,
duplicates, a short ``topk_lens``); every row that no active candidate reads, slot 0
included, holds NaN/Inf bytes (``poison_inactive``); 528- and 656-byte rows, flat and
paged pools; heads 8 and 32 (plus 16, 24, 64, 128); decode (T <= 64) and prefill
(T > 64); K = 2051 raw and padded to 2176 by ``pad_candidates``; and the wide-range
cases of ``jax_glm_nope.testing.make_case`` (scores hundreds of nats apart). Each case
runs twice and must give the same bits. The check is ``jax_glm_nope.testing.assert_accurate``,
the test suite's.

    python scripts/sm120_check.py [--quick] [--json results.json]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time
import traceback

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402

import jax_glm_nope as jgn  # noqa: E402
from jax_glm_nope import device, layout  # noqa: E402
from jax_glm_nope import testing as jt  # noqa: E402
from jax_glm_nope.implementations import flashinfer  # noqa: E402
from jax_glm_nope.native import targets  # noqa: E402

NUM_SLOTS = 4096  # room for 512 distinct groups of 4, and a small float64 reference


def glm_case(seed: int, fmt, num_tokens: int, num_heads: int, *, pad: bool, page_size: int | None) -> jt.Case:
    """GLM indexer rows, made hostile token by token, over a pool poisoned where unread."""
    rng = np.random.default_rng(seed)
    rows = jt.glm_candidate_rows(rng, num_tokens, num_slots=NUM_SLOTS - 4)
    rows = np.where(rows >= 0, rows + 4, rows)  # slots 0-3 (a whole group) never referenced
    groups = rows.shape[1] - 3
    for t in range(num_tokens):
        kind = t % 6
        if kind == 1:
            rows[t] = -1  # nothing active
        elif kind == 2:
            rows[t, :4] = -1  # holes at the start
            rows[t, 100:103] = [NUM_SLOTS, NUM_SLOTS + 17, np.iinfo(np.int32).max]  # out of range
        elif kind == 3:
            rows[t, :groups] = -1  # only the tail is valid
        elif kind == 4:
            rows[t, 7] = rows[t, 8]  # a duplicate counts twice
    if pad:
        indices, topk_lens = (np.asarray(a) for a in jgn.pad_candidates(jnp.asarray(rows), 2176))
    else:
        indices = rows
        topk_lens = np.full((num_tokens,), rows.shape[1], np.int32)
        topk_lens[5::6] = rng.integers(1, rows.shape[1], len(topk_lens[5::6]))  # short lengths
    latent = rng.standard_normal((NUM_SLOTS, layout.HEAD_DIM)).astype(np.float32)
    pool = jt.poison_inactive(jt.quantize_f64(latent, fmt), indices, topk_lens)
    assert not np.isfinite(pool[0, 512:528].copy().view("<f4")).all(), "slot 0 must hold NaN/Inf"
    if page_size is not None:
        pool = pool.reshape(NUM_SLOTS // page_size, page_size, fmt.bytes_per_token)
    q = (rng.standard_normal((num_tokens, num_heads, layout.HEAD_DIM)) * 0.5).astype(ml_dtypes.bfloat16)
    label = f"glm-{'padded' if pad else 'raw'}{'-paged' if page_size else ''}"
    return jt.Case(q, pool, indices, topk_lens, float(rng.uniform(0.02, 0.1)), label)


def attend(q, pool, indices, topk_lens, sm_scale, implementation="flashinfer"):
    return jgn.sparse_mla(q, pool, indices, sm_scale, topk_lens, implementation=implementation)


FN = jax.jit(attend, static_argnums=(4, 5))


def run_case(case: jt.Case) -> dict:
    num_tokens, num_heads, _ = case.q.shape
    num_candidates = case.indices.shape[1]
    lens = None if case.topk_lens is None else jnp.asarray(case.topk_lens)
    args = (jnp.asarray(case.q), jnp.asarray(case.pool), jnp.asarray(case.indices), lens, case.sm_scale)
    result = {
        "case": case.label,
        "row_bytes": case.pool.shape[-1],
        "T": num_tokens,
        "H": num_heads,
        "K": num_candidates,
        "target": "decode"
        if flashinfer.plan(num_tokens, num_heads, num_candidates).target == targets.FLASHINFER_DECODE
        else "prefill",
    }
    try:
        start = time.perf_counter()
        out, lse = jax.block_until_ready(FN(*args))
        result["seconds_first_call"] = round(time.perf_counter() - start, 3)
        out2, lse2 = FN(*args)
        result["repeat_same"] = bool(
            np.array_equal(np.asarray(out2).view(np.uint16), np.asarray(out).view(np.uint16))
            and np.array_equal(np.asarray(lse2).view(np.uint32), np.asarray(lse).view(np.uint32))
        )
        out = np.asarray(out.astype(jnp.float32))
        lse = np.asarray(lse)
        ref_out, ref_lse = case.reference()
        out_err, lse_err = jt.accuracy_errors(out, lse, ref_out, ref_lse)
        result["max_rel_l2"] = float(out_err.max(initial=0))
        result["max_lse_err"] = float(lse_err.max(initial=0))
        result["nan"] = int(np.isnan(out).sum() + np.isnan(lse).sum())
        result["nan_expected"] = int(np.isnan(ref_out).sum() + np.isnan(ref_lse).sum())
        try:
            jt.assert_accurate(out, lse, ref_out, ref_lse, label=case.label)
            result["accuracy"] = "ok"
        except AssertionError as err:
            result["accuracy"] = str(err).splitlines()[0]
        result["pass"] = result["accuracy"] == "ok" and result["repeat_same"]
    except Exception as err:  # report it and go on: one failing shape must not hide the rest
        result.update({"pass": False, "error": f"{type(err).__name__}: {err}"})
    return result


def print_result(r: dict) -> None:
    head = (
        f"{'PASS' if r['pass'] else 'FAIL'} {r['case']:<17} row {r['row_bytes']} T={r['T']:<4} "
        f"H={r['H']:<4} K={r['K']:<5} {r['target']:<8}"
    )
    if "error" in r:
        print(f"{head} {r['error']}", flush=True)
        return
    print(
        f"{head} rel_l2 {r['max_rel_l2']:.2e}  lse_err {r['max_lse_err']:.2e}  nan {r['nan']} "
        f"(expected {r['nan_expected']})  repeat_same {r['repeat_same']}"
        + ("" if r["accuracy"] == "ok" else f"  accuracy: {r['accuracy']}"),
        flush=True,
    )


def cases(quick: bool):
    heads = (8, 32) if quick else (8, 16, 24, 32, 64, 128)
    tokens = (1, 64, 65) if quick else (1, 5, 64, 65, 200)
    seed = 0
    for fmt in layout.FORMATS:
        for num_heads in heads:
            for num_tokens in tokens:
                for pad in (False, True):
                    seed += 1
                    page_size = 64 if seed % 3 == 0 else None
                    yield glm_case(seed, fmt, num_tokens, num_heads, pad=pad, page_size=page_size)
    wide = [(33, 32, 2176), (65, 24, 2051), (128, 64, 2048), (64, 8, 2176)]
    for i, (num_tokens, num_heads, num_candidates) in enumerate(wide[:2] if quick else wide):
        fmt = layout.PADDED if i % 2 else layout.COMPACT
        case = jt.make_case(
            100 + i, num_tokens, num_heads, num_candidates, num_slots=4096, fmt=fmt, wide=True, with_lens=True
        )
        case.label = "wide"
        yield case


def main(argv=None) -> int:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--quick", action="store_true", help="heads 8 and 32 only, fewer token counts")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args(argv)

    here = device.current()
    print(f"jax {jax.__version__}, {here.describe()}, devices {jax.devices()}")
    served = jgn.sparse_mla_implementation(3, 8, 64)
    if "flashinfer" not in served.serving:
        print(f"implementation='flashinfer' cannot run here: {served.reasons['flashinfer']}")
        return 2
    library = targets.load_library()  # builds on first use (cached)
    print(f"native library: {library._name}")

    results = []
    for case in cases(args.quick):
        results.append(run_case(case))
        print_result(results[-1])

    # implementation=None takes FlashInfer on this GPU: the same bits.
    try:
        case = glm_case(99, layout.COMPACT, 3, 8, pad=False, page_size=None)
        call = (jnp.asarray(case.q), jnp.asarray(case.pool), jnp.asarray(case.indices), None, 0.05)
        num_tokens, num_heads, _ = case.q.shape
        chosen = jgn.sparse_mla_implementation(num_tokens, num_heads, case.indices.shape[1]).implementation
        out_auto, _ = FN(*call, None)
        out_fi, _ = FN(*call, "flashinfer")
        same = chosen == "flashinfer" and np.array_equal(
            np.asarray(out_auto).view(np.uint16), np.asarray(out_fi).view(np.uint16)
        )
        verdict = "PASS" if same else "FAIL"
        print(f"{verdict} implementation=None picks {chosen!r}, same bits as 'flashinfer': {same}")
        results.append({"case": "auto-dispatch", "chosen": chosen, "pass": bool(same)})
    except Exception as err:  # report; the results above still stand
        traceback.print_exc()
        results.append({"case": "auto-dispatch", "pass": False, "error": f"{type(err).__name__}: {err}"})

    failed = [r for r in results if not r["pass"]]
    print(
        f"\n{len(results) - len(failed)}/{len(results)} cases pass (per-token relative L2 <= {jt.OUT_RTOL}, "
        f"|lse - ref| <= {jt.LSE_TOL} * max(1, |ref|), NaN exactly where the reference has it)"
    )
    if args.json:
        report = {
            "device": here.describe(),
            "jax": jax.__version__,
            "library": library._name,
            "results": results,
        }
        pathlib.Path(args.json).write_text(json.dumps(report, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
