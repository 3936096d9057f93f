"""``jax-glm-nope``: capacity planning, environment info, benchmarks, FFI build."""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import platform
import sys

from . import dispatch
from . import planner as capacity_mod


def _capacity(args) -> int:
    rows = capacity_mod.capacity(
        capacity_mod.parse_bytes(args.memory), tp=args.tp, page_size=args.page_size, context=args.context
    )
    model = capacity_mod.GLM53_FLASH
    if args.json:
        print(
            json.dumps(
                {
                    "model": model.name,
                    "memory": args.memory,
                    "tp": args.tp,
                    "heads_per_device": model.num_heads // args.tp,
                    "page_size": args.page_size,
                    "context": args.context,
                    "rows": [dataclasses.asdict(r) for r in rows],
                },
                indent=2,
            )
        )
        return 0
    print(
        f"{model.name}: {model.cached_layers} cached layers ({model.sparse_mla_layers} sparse-MLA + "
        f"{model.mtp_layers} MTP), indexer {model.indexer_bytes_per_token:g} B/token/layer"
    )
    print(
        f"KV budget {args.memory} per device, TP {args.tp} ({model.num_heads // args.tp} heads/device; "
        f"the latent cache is replicated across TP ranks), pages of {args.page_size}, context {args.context}"
    )
    header = (
        f"{'cache':<12} {'row B':>6} {'B/token':>9} {'pages':>11} "
        f"{'tokens':>13} {'requests':>9} {'vs 656':>7}"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        print(
            f"{r.cache:<12} {r.row_bytes:>6} {r.bytes_per_token:>9.0f} {r.pages:>11,} "
            f"{r.cached_tokens:>13,} {r.requests:>9,} {r.vs_padded:>6.3f}x"
        )
    return 0


def _info(args) -> int:
    import jax

    versions = {"python": platform.python_version()}
    for name in ("jax_glm_nope", "jax", "jaxlib", "numpy", "ml_dtypes"):
        try:
            versions[name] = importlib.import_module(name).__version__
        except Exception as err:  # report, never crash an info command
            versions[name] = f"unavailable ({err})"
    for name, version in versions.items():
        print(f"{name:<13} {version}")
    print(f"{'platform':<13} {dispatch.current_platform()}")
    for device in jax.devices():
        print(f"{'device':<13} {device.id}: {device.device_kind} ({device.platform})")
    here = dispatch.current_platform()
    for name in dispatch.AUTO_ORDER:
        reason = dispatch.unavailable_reason(name, here)
        print(f"{'backend':<13} {name:<10} {'ready' if reason is None else 'unavailable: ' + reason}")
    print(f"{'backend':<13} {'auto':<10} -> {dispatch.choose_backend('auto', here)}")
    return 0


def _delegate(module: str, what: str):
    def run(args) -> int:
        try:
            target = importlib.import_module(module)
        except ModuleNotFoundError as err:
            if err.name != module:
                raise
            print(f"jax-glm-nope {what}: not built yet in this version", file=sys.stderr)
            return 2
        return target.main(args.rest)

    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="jax-glm-nope", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    cap = sub.add_parser("capacity", help="tokens and requests a KV budget holds (528 vs 656 vs BF16 rows)")
    cap.add_argument("--memory", required=True, help="KV-cache memory per device, e.g. 80GiB")
    cap.add_argument("--tp", type=int, default=1, help="tensor-parallel ranks (heads per device = 64 / tp)")
    cap.add_argument("--page-size", type=int, default=64, help="tokens per page")
    cap.add_argument("--context", type=int, default=131072, help="tokens per request")
    cap.add_argument("--json", action="store_true", help="print JSON")
    cap.set_defaults(func=_capacity)
    sub.add_parser("info", help="versions, devices and which backends can run here").set_defaults(func=_info)
    for name, module, text in (
        ("bench", "jax_glm_nope.bench", "benchmark sparse_mla against the peers (GPU)"),
        ("build-ffi", "jax_glm_nope.bridge.build", "build the XLA FFI bridge library ahead of time"),
    ):
        p = sub.add_parser(name, help=text, add_help=False)
        p.add_argument("rest", nargs=argparse.REMAINDER)
        p.set_defaults(func=_delegate(module, name))
    # The delegated commands take their own options, which argparse's REMAINDER does
    # not forward when they start with "-": collect them as unknown arguments instead.
    args, extra = parser.parse_known_args(argv)
    if extra and not hasattr(args, "rest"):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if hasattr(args, "rest"):
        args.rest = args.rest + extra
    try:
        return args.func(args)
    except ValueError as err:
        parser.error(str(err))
        return 2


if __name__ == "__main__":
    sys.exit(main())
