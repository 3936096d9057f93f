"""``jax-glm-nope``: capacity planning, environment info, FFI build.

The benchmark harness lives beside the package: ``python benchmarks/bench.py``.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import platform
import sys

from . import device as device_mod
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
                allow_nan=False,  # strict JSON: no NaN/Infinity tokens
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
        ratio = "-" if r.vs_padded is None else f"{r.vs_padded:.3f}x"  # None: no PADDED page fits
        print(
            f"{r.cache:<12} {r.row_bytes:>6} {r.bytes_per_token:>9.0f} {r.pages:>11,} "
            f"{r.cached_tokens:>13,} {r.requests:>9,} {ratio:>7}"
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
    here = device_mod.current()
    print(f"{'device':<13} {here.describe()}")
    for device in jax.devices():
        print(f"{'jax device':<13} {device.id}: {device.device_kind} ({device.platform})")
    for operation, table in dispatch.TABLES.items():
        options = dispatch.AUTO_OPTIONS[operation]  # never starts a native build
        for entry in table:
            try:
                reason = dispatch.unsupported(operation, entry.name, here, None, **options)
            except Exception as err:  # report, never crash an info command
                reason = f"{type(err).__name__}: {err}"
            state = "ready" if reason is None else f"unavailable: {reason}"
            automatic = "" if entry.auto else " (only when named)"
            print(f"{operation:<13} {entry.name:<10} {state}{automatic}")
        chosen, _ = dispatch.choose(operation, None, None, {}, here)
        print(f"{operation:<13} {'None':<10} -> {chosen}")
    return 0


# build-ffi's home: jax_glm_nope.native.build, jax_glm_nope.bridge.build before the move.
BUILD_MODULES = ("jax_glm_nope.native.build", "jax_glm_nope.bridge.build")
DELEGATED = {"build-ffi": BUILD_MODULES}


def _load(modules: tuple[str, ...]):
    """The first of ``modules`` that imports (lazily: no native code at CLI start), else None."""
    for module in modules:
        try:
            return importlib.import_module(module)
        except ModuleNotFoundError as err:
            if err.name is None or not (module == err.name or module.startswith(err.name + ".")):
                raise  # a missing dependency of the module, not the module itself
    return None


def _delegate(command: str, argv: list[str]) -> int:
    """Run ``command``'s own ``main`` with ``argv`` exactly as given (order and values kept)."""
    target = _load(DELEGATED[command])
    if target is None:
        print(f"jax-glm-nope {command}: not available in this version", file=sys.stderr)
        return 2
    return target.main(list(argv))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # A delegated command owns everything after its name: forward it verbatim, never
    # through argparse (parse_known_args splits "--archs sm_90a" into a value and an
    # unknown flag, and puts them back in the wrong order).
    if argv and argv[0] in DELEGATED:
        return _delegate(argv[0], argv[1:])
    parser = argparse.ArgumentParser(prog="jax-glm-nope", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    cap = sub.add_parser("capacity", help="tokens and requests a KV budget holds (528 vs 656 vs BF16 rows)")
    cap.add_argument(
        "--memory", required=True, help="KV-cache memory per device, with a unit: 80GiB, 141GB, 1e9B"
    )
    cap.add_argument("--tp", type=int, default=1, help="tensor-parallel ranks (heads per device = 64 / tp)")
    cap.add_argument("--page-size", type=int, default=64, help="tokens per page")
    cap.add_argument("--context", type=int, default=131072, help="tokens per request")
    cap.add_argument("--json", action="store_true", help="print JSON")
    cap.set_defaults(func=_capacity)
    sub.add_parser("info", help="versions, the device and which implementations can run here").set_defaults(
        func=_info
    )
    # Listed for --help only; main() hands its arguments over before parsing.
    sub.add_parser("build-ffi", help="build the XLA FFI bridge library ahead of time (build-ffi --help)")
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except ValueError as err:
        parser.error(str(err))
        return 2


if __name__ == "__main__":
    sys.exit(main())
