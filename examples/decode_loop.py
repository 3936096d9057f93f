"""Greedy decoding with a small GLM-NoPE model on the compact 528-byte FP8 KV cache.

    python examples/decode_loop.py                      # CPU, about 20 s with compiles
    python examples/decode_loop.py --check-dense        # and the dense-mask paths, compared
    python examples/decode_loop.py --host-devices 8 --data 2 --model 4   # 2-way batch x 4-way heads
    python examples/decode_loop.py --implementation pallas --layers 2 --hidden 2048 --vocab 16384 \\
        --ffn 4096 --batch 32 --prompt-len 4096 --prefill-chunk 1024 --steps 64 \\
        --param-dtype bfloat16 --attention-share --heads 8   # as timed on the H200 (8 and 64 heads)

Prefills a random prompt per request, then runs ``--steps`` decode steps of one
jitted, sharded step (see ``glm_nope_model.py``), and prints tokens/s, the KV bytes
per token of the 528-byte row against the 656-byte row and a BF16 latent cache, and
the capacity that implies. docs/example.md explains the design and the numbers.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
import typing


def _host_devices_flag(argv: list[str]) -> None:
    """``--host-devices N`` must reach XLA before jax is imported: N CPU devices."""
    for i, arg in enumerate(argv):
        value = arg.split("=", 1)[1] if arg.startswith("--host-devices=") else None
        if arg == "--host-devices" and i + 1 < len(argv):
            value = argv[i + 1]
        if value is not None:
            flags = os.environ.get("XLA_FLAGS", "")
            os.environ["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={int(value)}".strip()


if __name__ == "__main__":
    _host_devices_flag(sys.argv[1:])

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.experimental import multihost_utils  # noqa: E402
from jax.sharding import NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import glm_nope_model as model_lib  # noqa: E402

import jax_glm_nope as jgn  # noqa: E402
from jax_glm_nope import candidates, planner  # noqa: E402


@dataclasses.dataclass(frozen=True)
class Run:
    """What to run, apart from the model's shape."""

    batch: int = 2
    prompt_len: int = 64
    prefill_chunk: int = 0  # 0: the whole prompt in one step
    steps: int = 32
    page_size: int = 64
    data: int = 1  # mesh axis for requests (data parallel)
    model: int = 1  # mesh axis for heads (tensor parallel)
    implementation: str | None = None  # None: the dispatch table decides
    interpret: bool = False
    seed: int = 0

    @property
    def max_len(self) -> int:
        """Tokens per request in the page table: prompt and decode, whole pages."""
        return -(-(self.prompt_len + self.steps) // self.page_size) * self.page_size


@dataclasses.dataclass
class Result:
    tokens: np.ndarray  # [batch, steps + 1] greedy tokens (the prefill's, then one per step)
    logits: np.ndarray  # [steps + 1, batch, vocab] float32, the logits each token came from
    implementation: str  # what served sparse_mla ("dense mask" for the dense baselines)
    timings: dict


def global_array(value: np.ndarray, sharding: NamedSharding) -> jax.Array:
    """A host value that every process holds whole -> a global array with ``sharding``.

    Each process places only its own devices' shards, so the same call serves one
    process or many (``jax.distributed.initialize()``).
    """
    value = np.asarray(value)
    return jax.make_array_from_callback(value.shape, sharding, lambda index: value[index])


def to_host(x: jax.Array) -> np.ndarray:
    """The whole of a global array on this host (gathered when it spans processes)."""
    if x.is_fully_addressable:
        return np.asarray(x)
    return np.asarray(multihost_utils.process_allgather(x, tiled=True))


_EXECUTABLES: dict = {}  # compiled steps, shared by runs of one shape (the tests run several)


def _compiled(cfg, run: Run, mesh, attention: str, params, caches, tokens, positions, req_to_token):
    """The step compiled ahead of time for these shapes, and the seconds compiling took."""
    key = (
        cfg,
        attention,
        run.implementation,
        run.interpret,
        jax.config.jax_default_matmul_precision,
        tuple(mesh.devices.flat),
        mesh.devices.shape,
        tokens.shape,
        req_to_token.shape,
        jax.tree.map(lambda x: (x.shape, x.dtype), caches).__repr__(),
    )
    if key in _EXECUTABLES:
        return _EXECUTABLES[key], 0.0
    start = time.perf_counter()
    step = model_lib.make_step(
        cfg,
        mesh,
        params,
        caches,
        attention=attention,
        implementation=run.implementation,
        interpret=run.interpret,
    )
    compiled = step.lower(params, caches, tokens, positions, req_to_token).compile()
    _EXECUTABLES[key] = compiled
    return compiled, time.perf_counter() - start


def _served_by(cfg, run: Run) -> str:
    """What the dispatch table picks for this run's prefill and decode calls (per device)."""
    heads = cfg.num_heads // run.model
    width = candidates.default_width(4 * cfg.topk_pools + cfg.index_kpool - 1)
    picks = []
    for tokens in (run.batch * (run.prefill_chunk or run.prompt_len) // run.data, run.batch // run.data):
        choice = jgn.sparse_mla_implementation(
            max(tokens, 1), heads, width, implementation=run.implementation, interpret=run.interpret
        )
        picks.append(choice.implementation)
    return picks[0] if picks[0] == picks[1] else f"{picks[0]} (prefill) / {picks[1]} (decode)"


def generate(
    cfg: model_lib.Config,
    run: Run,
    attention: str = "compact",
    *,
    forced: np.ndarray | None = None,
    attention_share: bool = False,
) -> Result:
    """Prefill ``run.batch`` random prompts, then ``run.steps`` greedy decode steps.

    ``attention`` is one of ``glm_nope_model.ATTENTION_MODES``. ``forced [batch,
    steps + 1]``: feed these tokens instead of the model's own (teacher forcing), so
    two paths can be compared step by step on the same inputs.
    """
    if run.prompt_len < 1 or run.steps < 0:
        raise ValueError(f"prompt_len >= 1 and steps >= 0 expected, got {run.prompt_len}, {run.steps}")
    chunk = run.prefill_chunk or run.prompt_len
    if run.prompt_len % chunk:
        raise ValueError(f"prefill_chunk: expected a divisor of prompt_len={run.prompt_len}, got {chunk}")
    requests = run.batch // max(run.data, 1)  # per device: the prefill step's batch
    if requests * chunk > jgn.MAX_TOKENS:
        raise ValueError(
            f"prefill_chunk: a prefill step feeds batch / data x chunk = {requests * chunk} tokens to "
            f"sparse_mla per device, more than its {jgn.MAX_TOKENS}; use prefill_chunk <= "
            f"{prefill_chunk_limit(requests)}"
        )
    if run.page_size % cfg.index_kpool:
        raise ValueError(f"page_size: expected a multiple of {cfg.index_kpool}, got {run.page_size}")
    dense = attention in model_lib.DENSE_CACHE_DTYPES
    implementation = "dense mask" if dense else _served_by(cfg, run)
    mesh = model_lib.make_mesh(run.data, run.model)

    def put(tree, specs):
        return jax.tree.map(lambda x, s: global_array(x, NamedSharding(mesh, s)), tree, specs)

    params = model_lib.init_params(cfg, run.seed)
    params = put(params, model_lib.param_specs(params))
    table, num_pages = model_lib.page_table(run.batch, run.max_len, run.page_size, run.data, run.seed)
    caches = model_lib.init_caches(cfg, attention, num_pages, run.page_size, run.data)
    caches = put(caches, model_lib.cache_specs(caches))
    batch = NamedSharding(mesh, P("data"))
    req_to_token = global_array(table, batch)
    rng = np.random.default_rng(run.seed + 1)
    prompt = rng.integers(0, cfg.vocab_size, (run.batch, run.prompt_len), dtype=np.int32)
    positions = np.broadcast_to(np.arange(run.prompt_len, dtype=np.int32), prompt.shape)

    tok0 = global_array(prompt[:, :chunk], batch)
    pos0 = global_array(positions[:, :chunk], batch)
    one = global_array(np.zeros((run.batch, 1), np.int32), batch)
    timings = {}
    prefill_step, timings["compile_prefill_s"] = _compiled(
        cfg, run, mesh, attention, params, caches, tok0, pos0, req_to_token
    )
    decode_step, timings["compile_decode_s"] = _compiled(
        cfg, run, mesh, attention, params, caches, one, one, req_to_token
    )

    start = time.perf_counter()
    for begin in range(0, run.prompt_len, chunk):
        tok = global_array(prompt[:, begin : begin + chunk], batch)
        pos = global_array(positions[:, begin : begin + chunk], batch)
        caches, logits, next_token = prefill_step(params, caches, tok, pos, req_to_token)
    jax.block_until_ready(next_token)
    timings["prefill_s"] = time.perf_counter() - start

    decode_positions = [
        global_array(np.full((run.batch, 1), run.prompt_len + i, np.int32), batch) for i in range(run.steps)
    ]
    if forced is not None:
        forced = [global_array(np.asarray(forced[:, i : i + 1], np.int32), batch) for i in range(run.steps)]

    # XLA's CPU client runs every host device of the process on one thread pool and its
    # collectives block a thread until all participants arrive: with several steps in
    # flight the psum of one step can wait forever on a thread held by the next. GPUs
    # (one stream per device) keep asynchronous dispatch.
    one_at_a_time = jax.default_backend() == "cpu" and mesh.size > 1

    def decode(step_fn, caches, next_token):
        tokens, all_logits = [next_token], []
        start = time.perf_counter()
        for i, pos in enumerate(decode_positions):
            inputs = next_token[:, None] if forced is None else forced[i]
            caches, step_logits, next_token = step_fn(params, caches, inputs, pos, req_to_token)
            if one_at_a_time:
                next_token.block_until_ready()
            tokens.append(next_token)
            all_logits.append(step_logits)
        jax.block_until_ready(next_token)
        return caches, tokens, all_logits, time.perf_counter() - start

    if attention_share:
        spare = jax.tree.map(jnp.copy, caches)  # the same post-prefill state for the zero-attention run
    prefill_logits = logits
    caches, tokens, all_logits, timings["decode_s"] = decode(decode_step, caches, next_token)
    if attention_share:
        no_attention, _ = _compiled(cfg, run, mesh, "none", params, spare, one, one, req_to_token)
        _, _, _, timings["decode_no_attention_s"] = decode(no_attention, spare, tokens[0])
    return Result(
        tokens=np.stack([to_host(t) for t in tokens], axis=1),
        logits=np.stack([to_host(x) for x in [prefill_logits, *all_logits]]),
        implementation=implementation,
        timings=timings,
    )


def prefill_chunk_limit(requests_per_device: int) -> int:
    """The largest prefill chunk whose step (every request of a device, one chunk each)
    stays within ``sparse_mla``'s tokens per call."""
    return max(jgn.MAX_TOKENS // max(requests_per_device, 1), 1)


def rates(run: Run, timings: dict) -> dict:
    """Throughput of one ``generate`` run: prefill and decode tokens/s, ms per decode
    step, and the attention share where it was timed (``attention_share=True``)."""
    out = {
        "prefill_tokens_per_s": run.batch * run.prompt_len / timings["prefill_s"],
        "decode_tokens_per_s": run.batch * run.steps / timings["decode_s"] if run.steps else None,
        "decode_ms_per_step": 1e3 * timings["decode_s"] / max(run.steps, 1),
    }
    if "decode_no_attention_s" in timings:
        out["attention_share"] = 1.0 - timings["decode_no_attention_s"] / timings["decode_s"]
    return out


def top2_margin(logits: np.ndarray) -> np.ndarray:
    """``[steps, batch, vocab]`` -> ``[batch, steps]`` gap between the two largest logits."""
    top = np.sort(logits, axis=-1)
    return (top[..., -1] - top[..., -2]).T


def free_running_agreement(reference: Result, other: Result, max_abs: float) -> dict:
    """Two free-running greedy runs of the same model: equal tokens until a step whose
    top-2 margin is a near-tie (<= 2 max_abs), logits within ``max_abs`` up to there.

    After a near-tie the runs feed different tokens and legitimately diverge
    (docs/example.md, "Greedy tokens"). Returns per request the first differing step
    (None: none), the largest logit difference up to it and the margin there, and
    ``ok`` for the whole batch.
    """
    margin = top2_margin(reference.logits)
    requests = []
    for request, (ours, theirs) in enumerate(zip(reference.tokens, other.tokens, strict=True)):
        differ = np.flatnonzero(ours != theirs)
        last = int(differ[0]) if differ.size else len(ours) - 1
        diff = float(np.abs(other.logits[: last + 1, request] - reference.logits[: last + 1, request]).max())
        near_tie = float(margin[request, last])
        ok = bool(np.isfinite(diff) and diff <= max_abs and (not differ.size or near_tie <= 2 * max_abs))
        requests.append(
            {
                "first_difference": int(differ[0]) if differ.size else None,
                "max_abs": diff,
                "margin_there": near_tie if differ.size else None,
                "ok": ok,
            }
        )
    return {"max_abs_tolerance": max_abs, "requests": requests, "ok": all(r["ok"] for r in requests)}


def compare_dense(cfg: model_lib.Config, run: Run, compact: Result) -> dict:
    """The compact run against the dense-mask paths on the same weights (docs/example.md).

    ``paired``: one run of ``attention="paired"``, where every step also carries a second
    residual stream whose layers read the compact path's own rows (dequantized) and
    candidates with a dense float32 mask: the two differ only in how attention reads the
    same values, on any platform. ``dense``: a BF16 latent cache (what JAX models do
    today), run on its own, teacher-forced on the compact run's tokens (logits compared
    step by step) and free-running (greedy tokens).
    """
    paired = generate(cfg, run, "paired")
    ours, theirs = paired.logits[:, :, 0], paired.logits[:, :, 1]
    diff = np.abs(theirs - ours)
    report = {
        "paired": {
            "token_agreement": float(np.mean(np.argmax(theirs, -1).T == paired.tokens)),
            "max_abs_logit_diff": float(diff.max()),
            "rms_logit_diff": float(np.sqrt(np.mean(diff**2))),
            "logit_std": float(ours.std()),
        }
    }
    forced = generate(cfg, run, "dense", forced=compact.tokens)
    free = generate(cfg, run, "dense")
    report["dense"] = {
        "token_agreement": float(np.mean(np.argmax(forced.logits, -1).T == compact.tokens)),
        "max_abs_logit_diff": float(np.abs(forced.logits - compact.logits).max()),
        "rms_logit_diff": float(np.sqrt(np.mean((forced.logits - compact.logits) ** 2))),
        "logit_std": float(compact.logits.std()),
        "free_running_equal": bool(np.array_equal(free.tokens, compact.tokens)),
    }
    return report


def kv_table(cfg: model_lib.Config, memory_bytes: int) -> list[dict]:
    """Bytes per token and the tokens ``memory_bytes`` of KV cache holds, per row kind."""
    kinds = planner.ROW_KINDS  # the planner's table: one home for the row kinds
    padded_tokens = memory_bytes // (cfg.num_layers * jgn.PADDED.bytes_per_token)
    rows = []
    for name, row_bytes in kinds:
        tokens = memory_bytes // (cfg.num_layers * row_bytes)
        rows.append(
            {
                "cache": name,
                "bytes_per_token_layer": row_bytes,
                "bytes_per_token": cfg.num_layers * row_bytes,
                "tokens": int(tokens),
                "vs_padded": tokens / padded_tokens,
            }
        )
    return rows


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    model = parser.add_argument_group("model (attention geometry fixed: GLM-5.3-Flash sparse MLA)")
    model.add_argument(
        "--layers", type=int, default=model_lib.Config.num_layers, help="sparse-MLA layers (one KV pool each)"
    )
    model.add_argument("--hidden", type=int, default=model_lib.Config.hidden_size, help="residual width")
    model.add_argument("--vocab", type=int, default=model_lib.Config.vocab_size, help="vocabulary size")
    model.add_argument("--ffn", type=int, default=model_lib.Config.ffn_size, help="MLP width")
    model.add_argument("--heads", type=int, default=model_lib.Config.num_heads, help="query heads in all")
    model.add_argument(
        "--topk-pools",
        type=int,
        default=model_lib.Config.topk_pools,
        help="pools of 4 tokens the indexer keeps (512: 2051 candidates)",
    )
    model.add_argument(
        "--param-dtype", default="float32", choices=("float32", "bfloat16"), help="weights' dtype"
    )
    run = parser.add_argument_group("run")
    run.add_argument(
        "--implementation",
        default=None,
        choices=typing.get_args(jgn.SparseMlaImplementation),
        help="sparse_mla implementation (default: the dispatch table's choice for this device)",
    )
    run.add_argument("--interpret", action="store_true", help="Pallas interpreter (CPU tests)")
    run.add_argument("--batch", type=int, default=Run.batch, help="requests")
    run.add_argument(
        "--prompt-len", type=int, default=Run.prompt_len, help="random prompt tokens per request"
    )
    run.add_argument("--prefill-chunk", type=int, default=0, help="prompt tokens per prefill step (0: all)")
    run.add_argument("--steps", type=int, default=Run.steps, help="decode steps")
    run.add_argument("--page-size", type=int, default=Run.page_size, help="tokens per KV page")
    run.add_argument("--data", type=int, default=1, help="data-parallel mesh axis (splits the batch)")
    run.add_argument("--model", type=int, default=1, help="tensor-parallel mesh axis (splits the heads)")
    run.add_argument(
        "--host-devices",
        type=int,
        default=None,
        help="on a CPU: split it into this many XLA devices (set before jax starts)",
    )
    run.add_argument("--seed", type=int, default=0, help="seed of the weights and prompts")
    run.add_argument(
        "--distributed", action="store_true", help="call jax.distributed.initialize() (one process per host)"
    )
    run.add_argument(
        "--check-dense",
        action="store_true",
        help="also run the dense-mask paths on the same weights and compare (docs/example.md)",
    )
    run.add_argument(
        "--attention-share", action="store_true", help="time decode again with sparse_mla replaced by zeros"
    )
    run.add_argument(
        "--kv-memory-gib", type=float, default=80.0, help="KV budget per device for the capacity line"
    )
    run.add_argument("--json", default=None, help="write the results to this file")
    return parser.parse_args(argv)


def report(summary: dict, tokens: np.ndarray) -> None:
    """The compact printout of ``main``."""
    cfg, run, t = summary["config"], summary["run"], summary["timings"]
    print(
        f"GLM-NoPE example: {cfg['num_layers']} layers, hidden {cfg['hidden_size']}, vocab "
        f"{cfg['vocab_size']}, {cfg['num_heads']} heads ({cfg['num_heads'] // run['model']}/device), "
        f"kv_lora {cfg['kv_lora_rank']}, sm_scale 1/sqrt({cfg['qk_nope_head_dim']})"
    )
    print(
        f"mesh data={run['data']} x model={run['model']} on {summary['device']}; sparse_mla "
        f"implementation {summary['implementation']}; {summary['candidates']} candidates -> "
        "pad_candidates -> "
        f"{candidates.default_width(summary['candidates'])} columns"
    )
    print(f"compile  prefill {t['compile_prefill_s']:.1f} s, decode {t['compile_decode_s']:.1f} s")
    print(
        f"prefill  {run['batch']} x {run['prompt_len']} tokens in {t['prefill_s']:.2f} s "
        f"({summary['prefill_tokens_per_s']:.0f} tokens/s)"
    )
    if run["steps"]:
        print(
            f"decode   {run['batch']} x {run['steps']} tokens in {t['decode_s']:.2f} s: "
            f"{summary['decode_tokens_per_s']:.1f} tokens/s, {summary['decode_ms_per_step']:.2f} ms/step"
        )
    if "attention_share" in summary:
        no_attention_ms = 1e3 * t["decode_no_attention_s"] / run["steps"]
        print(
            f"attention  decode without sparse_mla: {no_attention_ms:.2f} ms/step; "
            f"sparse_mla share of step time {100 * summary['attention_share']:.1f}%"
        )
    rows = [" ".join(map(str, row[:12])) + (" ..." if row.size > 12 else "") for row in tokens[:2]]
    print("tokens   " + " | ".join(rows))
    print(
        f"KV cache ({cfg['num_layers']} sparse-MLA layers; indexer keys not counted), "
        f"{summary['kv_memory_gib']:g} GiB per device:"
    )
    for row in summary["kv"]:
        print(
            f"  {row['cache']:<12} {row['bytes_per_token_layer']:>5} B/token/layer  "
            f"{row['bytes_per_token']:>6} B/token  {row['tokens']:>12,} tokens  "
            f"{row['vs_padded']:.3f}x PADDED"
        )
    dense = summary.get("dense", {})
    if "paired" in dense:
        row = dense["paired"]
        print(
            f"paired   dense mask over the same FP8 rows and candidates, in the same step: greedy tokens "
            f"agree {100 * row['token_agreement']:.1f}%, max |logit diff| {row['max_abs_logit_diff']:.2e} "
            f"(logit std {row['logit_std']:.2f})"
        )
    if "dense" in dense:
        row = dense["dense"]
        print(
            f"dense    dense mask over a BF16 cache, teacher-forced: greedy tokens agree "
            f"{100 * row['token_agreement']:.1f}%, max |logit diff| {row['max_abs_logit_diff']:.2e} "
            f"(logit std {row['logit_std']:.2f}); free-running identical: {row['free_running_equal']}"
        )


def _check_devices(run: Run) -> None:
    """A mesh larger than the devices ends here with the flag that fixes it on a CPU,
    before any compile (make_mesh would raise the same in the middle of a run)."""
    needed, found = run.data * run.model, len(jax.devices())
    if needed > found:
        hint = (
            f"; on a CPU, add --host-devices {needed} to split it into {needed} XLA devices"
            if jax.default_backend() == "cpu"
            else ""
        )
        raise SystemExit(
            f"decode_loop.py: error: --data {run.data} x --model {run.model} needs {needed} devices, "
            f"found {found}{hint}"
        )


def main(argv=None) -> dict:
    args = parse_args(argv)
    if args.distributed:
        jax.distributed.initialize()  # one process per host; finds the cluster from the environment
    cfg = model_lib.Config(
        vocab_size=args.vocab,
        hidden_size=args.hidden,
        num_layers=args.layers,
        ffn_size=args.ffn,
        num_heads=args.heads,
        topk_pools=args.topk_pools,
        param_dtype=args.param_dtype,
    )
    run = Run(**{field.name: getattr(args, field.name) for field in dataclasses.fields(Run)})
    _check_devices(run)
    result = generate(cfg, run, attention_share=args.attention_share)
    t = result.timings
    devices = jax.devices()
    summary = {
        "device": f"{len(devices)} x {devices[0].device_kind}",
        "jax": jax.__version__,
        "config": dataclasses.asdict(cfg),
        "run": dataclasses.asdict(run),
        "implementation": result.implementation,
        "candidates": cfg.num_candidates,
        "timings": t,
        **rates(run, t),
        "kv_memory_gib": args.kv_memory_gib,
        "kv": kv_table(cfg, int(args.kv_memory_gib * 2**30)),
        "tokens": result.tokens.tolist(),
    }
    if args.check_dense:
        summary["dense"] = compare_dense(cfg, run, result)
    if jax.process_index() == 0:
        report(summary, result.tokens)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(summary, f, indent=1, default=str)
    return summary


if __name__ == "__main__":
    main()
