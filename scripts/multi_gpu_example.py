"""The example at GLM-5.3-Flash's attention geometry on every device of one host.

    python scripts/multi_gpu_example.py --out OUT                 # all GPUs of this host
    python scripts/multi_gpu_example.py --out OUT --host-devices 8 --small   # CPU rehearsal

64 query heads in all, sharded over a ``model`` axis (TP8: 8 per device, TP4: 16), the
requests over a ``data`` axis, the compact 528-byte pools and the implementation the
dispatch table picks on each device. For every layout the device count allows:

1. **Agreement**: a short run on the mesh against the same run on one device (mesh
   1 x 1), and the 1 x 1 mesh against the jnp reference implementation on it:
   free-running greedy tokens equal until a near-tie, logits within ``--max-abs``
   (``decode_loop.free_running_agreement``).
2. **Decode**: ``--batches`` requests per data rank (default 8, 64, 256), a
   ``--prompt-len`` prompt each prefilled in chunks, ``--steps`` decode steps:
   tokens/s, ms per step, and the attention share (the same steps with ``sparse_mla``
   replaced by zeros); against the same per-device batch on one device (the scaling).
3. **Long prompt**: one request per data rank with a ``--long-prompt`` prompt (default
   32768 tokens) prefilled in ``--long-chunk`` chunks, then decode.
4. **KV capacity** per device for 528- vs 656-byte rows (``--kv-memory-gib``).

Every step is one jitted ``shard_map`` call per token (no host round trip inside a
step; the loop dispatches asynchronously on GPUs). Writes ``OUT/multi_gpu.json`` and
prints a table. NVLink multicast stays off (``scripts/multi_gpu_check.sh`` sets the
variables the device notes ask for).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _early_flags(argv: list[str]) -> None:
    """``--host-devices N`` reaches XLA before jax is imported (CPU rehearsal)."""
    if "--host-devices" in argv:
        n = int(argv[argv.index("--host-devices") + 1])
        os.environ["XLA_FLAGS"] = (
            f"{os.environ.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count={n}"
        )
        os.environ.setdefault("JAX_PLATFORMS", "cpu")


if __name__ == "__main__":
    _early_flags(sys.argv[1:])

import jax  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "examples"))
sys.path.insert(0, ROOT)

import decode_loop  # noqa: E402
import glm_nope_model as model_lib  # noqa: E402

HEADS = 64  # GLM-5.3-Flash's query heads


def layouts(num_devices: int) -> list[tuple[int, int]]:
    """(data, model) meshes over all devices: model in {8, 4, 2, 1} dividing the heads."""
    out = []
    for model in (8, 4, 2, 1):
        if model <= num_devices and num_devices % model == 0 and HEADS % model == 0:
            out.append((num_devices // model, model))
    return out


def decode_row(cfg, run: decode_loop.Run) -> dict:
    result = decode_loop.generate(cfg, run, attention_share=run.steps > 0)
    return {
        "data": run.data,
        "model": run.model,
        "heads_per_device": HEADS // run.model,
        "batch": run.batch,
        "batch_per_data_rank": run.batch // run.data,
        "prompt_len": run.prompt_len,
        "implementation": result.implementation,
        **decode_loop.rates(run, result.timings),
        "timings": result.timings,
    }


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--host-devices", type=int, help="CPU rehearsal: N XLA host devices")
    p.add_argument("--small", action="store_true", help="a tiny model and short runs (CPU rehearsal)")
    p.add_argument("--batches", type=int, nargs="+", default=[8, 64, 256], help="requests per data rank")
    p.add_argument("--prompt-len", type=int, default=4096)
    p.add_argument("--prefill-chunk", type=int, default=1024)
    p.add_argument("--steps", type=int, default=64)
    p.add_argument("--long-prompt", type=int, default=32768)
    p.add_argument("--long-chunk", type=int, default=4096)
    p.add_argument("--max-abs", type=float, default=2e-2, help="agreement: max |logit diff|")
    p.add_argument("--kv-memory-gib", type=float, default=80.0)
    p.add_argument("--skip", nargs="*", default=[], choices=("agreement", "decode", "long"))
    p.add_argument("--layouts", nargs="*", help="DATAxMODEL meshes to run (default: every one that fits)")
    return p.parse_args(argv)


def main(argv=None) -> dict:
    args = parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    n = jax.device_count()
    chosen = layouts(n)
    if args.layouts:
        chosen = [tuple(int(v) for v in lm.split("x")) for lm in args.layouts]
        for data, model in chosen:
            if data * model != n or HEADS % model:
                raise SystemExit(
                    f"--layouts {data}x{model}: expected data x model = {n} devices, model | {HEADS}"
                )
    if args.small:
        # the attention geometry (64 heads, 2051 candidates, 528-byte rows) around one
        # small layer: the meshes and the sharded pools are what a rehearsal exercises
        cfg = model_lib.Config(
            num_heads=HEADS, num_layers=1, hidden_size=128, vocab_size=256, ffn_size=128, topk_pools=16
        )
        big = cfg
        batches, prompt_len, chunk, steps = [min(b, 4) for b in args.batches][:1], 64, 32, 4
        long_prompt, long_chunk = 256, 128
    else:
        # the sizes of the example's H200 runs, 64 heads, BF16 weights
        cfg = model_lib.Config(num_heads=HEADS)
        big = model_lib.Config(
            num_heads=HEADS,
            num_layers=2,
            hidden_size=2048,
            vocab_size=16384,
            ffn_size=4096,
            param_dtype="bfloat16",
        )
        batches, prompt_len, chunk, steps = args.batches, args.prompt_len, args.prefill_chunk, args.steps
        long_prompt, long_chunk = args.long_prompt, args.long_chunk
    devices = jax.devices()
    summary = {
        "device": f"{n} x {devices[0].device_kind}",
        "processes": jax.process_count(),
        "jax": jax.__version__,
        "layouts": chosen,
        "config": dataclasses.asdict(big),
        "agreement": [],
        "decode": [],
        "long_prompt": [],
        "kv_per_device": decode_loop.kv_table(big, int(args.kv_memory_gib * 2**30)),
        "kv_memory_gib": args.kv_memory_gib,
    }

    def save():
        with open(os.path.join(args.out, "multi_gpu.json"), "w") as f:
            json.dump(summary, f, indent=1, default=str)

    if "agreement" not in args.skip:
        for data, model in chosen:
            run = decode_loop.Run(batch=2 * data, prompt_len=64, steps=16, data=data, model=model)
            # A layout of several devices against one device (the same implementation); the
            # 1 x 1 mesh itself (one GPU) against the jnp reference on that mesh.
            alone = (data, model) == (1, 1)
            one = decode_loop.generate(
                cfg, dataclasses.replace(run, data=1, model=1, implementation="reference" if alone else None)
            )
            mesh = decode_loop.generate(cfg, run)
            agreement = decode_loop.free_running_agreement(one, mesh, args.max_abs)
            against = "reference on 1x1" if alone else "1x1"
            summary["agreement"].append(
                {
                    "data": data,
                    "model": model,
                    "against": against,
                    "implementation": mesh.implementation,
                    **agreement,
                }
            )
            print(
                f"agreement data={data} model={model} ({mesh.implementation}) vs {against}: "
                f"{'ok' if agreement['ok'] else 'DIFFERS'}",
                flush=True,
            )
            save()
    if "decode" not in args.skip:
        for b in batches:
            baseline = None
            for data, model in [(1, 1), *[lm for lm in chosen if lm != (1, 1)]]:
                # a prefill step stays within sparse_mla's tokens per call (b x chunk)
                run = decode_loop.Run(
                    batch=b * data,
                    prompt_len=prompt_len,
                    prefill_chunk=min(chunk, decode_loop.prefill_chunk_limit(b)),
                    steps=steps,
                    data=data,
                    model=model,
                    page_size=64,
                )
                start = time.perf_counter()
                row = decode_row(big, run)
                row["wall_s"] = time.perf_counter() - start
                if (data, model) == (1, 1):
                    baseline = row
                row["vs_one_device"] = (
                    row["decode_tokens_per_s"] / baseline["decode_tokens_per_s"]
                    if baseline and row["decode_tokens_per_s"]
                    else None
                )
                summary["decode"].append(row)
                print(
                    f"decode b={b}/rank data={data} model={model}: {row['decode_tokens_per_s']:.0f} tok/s, "
                    f"{row['decode_ms_per_step']:.2f} ms/step, "
                    f"attention {row.get('attention_share', 0):.1%}, "
                    f"x{row['vs_one_device'] or 0:.2f} vs one device",
                    flush=True,
                )
                save()
    if "long" not in args.skip:
        for data, model in chosen:
            run = decode_loop.Run(
                batch=data,
                prompt_len=long_prompt,
                prefill_chunk=long_chunk,
                steps=steps,
                data=data,
                model=model,
                page_size=64,
            )
            row = decode_row(big, run)
            summary["long_prompt"].append(row)
            print(
                f"long prompt {long_prompt} data={data} model={model}: prefill "
                f"{row['prefill_tokens_per_s']:.0f} tok/s, decode {row['decode_ms_per_step']:.2f} ms/step",
                flush=True,
            )
            save()
    save()
    return summary


if __name__ == "__main__":
    main()
