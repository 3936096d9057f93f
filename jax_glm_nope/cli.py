"""``jax-glm-nope`` (also ``python -m jax_glm_nope``): capacity planning, environment
info, native library build.

The benchmark harness lives beside the package: ``python benchmarks/bench.py``.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import os
import platform
import signal
import sys
from typing import Any

from . import __version__, dispatch, environment
from . import device as device_mod
from . import planner as capacity_mod

DESCRIPTION = (
    "jax-glm-nope (also python -m jax_glm_nope): capacity planning, environment info, native "
    "library build. The benchmark harness lives beside the package: python benchmarks/bench.py."
)


def _capacity(args) -> int:
    memory = capacity_mod.parse_bytes(args.memory)
    rows = capacity_mod.capacity(memory, tp=args.tp, page_size=args.page_size, context=args.context)
    model = capacity_mod.GLM53_FLASH
    if args.json:
        print(
            json.dumps(
                {
                    "model": model.name,
                    "memory": args.memory,
                    "memory_bytes": memory,  # as parsed: what the rows were computed from
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


def _versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in ("jax_glm_nope", "jax", "jaxlib", "numpy", "ml_dtypes"):
        try:
            versions[name] = importlib.import_module(name).__version__
        except Exception as err:  # report, never crash an info command
            versions[name] = f"unavailable ({err})"
    return versions


# What an implementation that serves here adds to its line; one that cannot serve says why
# instead, since implementation=None can never take it.
AUTO_NOTE = {"yes": "", "by shape": " (automatic for some shapes)"}


def _auto(entry) -> str:
    """Whether ``implementation=None`` may take the entry: "yes" or "by shape"."""
    return "by shape" if getattr(entry, "auto_if", None) is not None else "yes"


def _implementations(here) -> dict[str, dict]:
    """Per operation: every implementation, whether it serves here and why not, and what
    ``implementation=None`` picks. Never starts a native build."""
    report = {}
    for operation, table in dispatch.TABLES.items():
        options = dispatch.AUTO_OPTIONS[operation]
        entries = []
        for entry in table:
            try:
                reason = dispatch.unsupported(operation, entry.name, here, None, **options)
            except Exception as err:  # report, never crash an info command
                reason = f"{type(err).__name__}: {err}"
            entries.append(
                {"name": entry.name, "serves": reason is None, "reason": reason, "auto": _auto(entry)}
            )
        variable = environment.variable(operation)
        try:
            chosen = dispatch.decide(operation, None, None, {}, here).implementation
        except (TypeError, ValueError) as err:  # a switch in the environment that cannot serve here
            chosen = f"error: {err}"
        report[operation] = {
            "implementations": entries,
            "automatic": chosen,
            "environment": {variable: os.environ.get(variable) or None},
        }
    return report


def _native() -> dict[str, dict]:
    """nvcc, FlashInfer's headers and the library this process would use: found or why not."""
    from .native import library as library_mod
    from .native import toolchain

    report: dict[str, dict] = {}
    try:
        nvcc = toolchain.find_nvcc()
        report["nvcc"] = {"path": nvcc, "version": toolchain.nvcc_version(nvcc), "error": None}
    except Exception as err:
        report["nvcc"] = {"path": None, "version": None, "error": str(err)}
    try:
        data = toolchain.find_flashinfer_data()
        try:
            toolchain.check_flashinfer_headers(data)
            error = None
        except Exception as err:
            error = str(err)
        report["flashinfer_headers"] = {"path": str(data), "ok": error is None, "error": error}
    except Exception as err:
        report["flashinfer_headers"] = {"path": None, "ok": False, "error": str(err)}
    try:
        arch = library_mod.local_arch()
        found = library_mod.find(arch)
        report["library"] = {
            "path": None if found is None else str(found.path),
            "origin": None if found is None else found.origin,
            "error": None,
            "passed_over": library_mod.passed_over(arch).strip(" ()") or None,
        }
    except Exception as err:
        report["library"] = {"path": None, "origin": None, "error": str(err), "passed_over": None}
    return report


def _info(args) -> int:
    import jax

    here = device_mod.current()
    record: dict[str, Any] = {
        "versions": _versions(),
        "device": {
            "platform": here.platform,
            "kind": here.kind,
            "compute_capability": None if here.compute_capability is None else list(here.compute_capability),
            "sm_count": here.sm_count,
            "describe": here.describe(),
        },
        "jax_devices": [{"id": d.id, "kind": d.device_kind, "platform": d.platform} for d in jax.devices()],
        "operations": _implementations(here),
        "native": _native(),
    }
    if args.json:
        print(json.dumps(record, indent=2, allow_nan=False))  # strict JSON
        return 0
    for name, version in record["versions"].items():
        print(f"{name:<13} {version}")
    # describe() names the platform of a device without a compute capability itself.
    device_line = here.describe()
    if here.sm_count is not None:
        device_line += f", {here.sm_count} SMs"
    print(f"{'device':<13} {device_line}")
    for device in record["jax_devices"]:
        print(f"{'jax device':<13} {device['id']}: {device['kind']} ({device['platform']})")
    for operation, report in record["operations"].items():
        for entry in report["implementations"]:
            if entry["serves"]:
                state = "ready" + AUTO_NOTE[entry["auto"]]
            else:
                state = f"unavailable: {entry['reason']}"
            print(f"{operation:<13} {entry['name']:<10} {state}")
        print(f"{operation:<13} {'None':<10} -> {report['automatic']}")
        for variable, value in report["environment"].items():
            if value is not None:
                print(f"{operation:<13} {variable}={value!r} (docs/serving.md)")
    native = record["native"]
    nvcc = native["nvcc"]
    print(
        f"{'nvcc':<13} "
        + (f"{nvcc['path']} (release {nvcc['version']})" if nvcc["path"] else f"not found: {nvcc['error']}")
    )
    headers = native["flashinfer_headers"]
    state = "ok" if headers["ok"] else f"unusable: {headers['error']}"
    print(
        f"{'flashinfer':<13} "
        + (f"{headers['path']} ({state})" if headers["path"] else f"not found: {headers['error']}")
    )
    library = native["library"]
    if library["path"]:
        state = f"{library['path']} ({library['origin']})"
    else:
        state = library["error"] or "not built (jax-glm-nope build-ffi, or built on first use)"
    if library["passed_over"]:
        state += f"; {library['passed_over']}"
    print(f"{'library':<13} {state}")
    return 0


# Commands another module owns, imported only when run (no native code at CLI start).
DELEGATED = {"build-ffi": "jax_glm_nope.native.build"}


def _delegate(command: str, argv: list[str]) -> int:
    """Run ``command``'s own ``main`` with ``argv`` exactly as given (order and values kept)."""
    code: int = importlib.import_module(DELEGATED[command]).main(list(argv))
    return code


def main(argv: list[str] | None = None) -> int:
    try:
        try:
            return _run(sys.argv[1:] if argv is None else list(argv))
        finally:
            sys.stdout.flush()  # a reader that left shows here, not at interpreter exit
    except BrokenPipeError:
        # The reader closed the pipe (``| head``): stop quietly, as a unix tool that
        # SIGPIPE ends. Later writes (the interpreter's own flush) go nowhere.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 128 + signal.SIGPIPE


def _run(argv: list[str]) -> int:
    # A delegated command owns everything after its name: forward it verbatim, never
    # through argparse (parse_known_args splits "--archs sm_90a" into a value and an
    # unknown flag, and puts them back in the wrong order).
    if argv and argv[0] in DELEGATED:
        return _delegate(argv[0], argv[1:])
    parser = argparse.ArgumentParser(prog="jax-glm-nope", description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"jax-glm-nope {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    cap = sub.add_parser(
        "capacity",
        help="tokens and requests a KV budget holds (528 vs 656 vs BF16 rows)",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    cap.add_argument(
        "--memory", required=True, help="KV-cache memory per device, with a unit: 80GiB, 141GB, 1e9B"
    )
    cap.add_argument("--tp", type=int, default=1, help="tensor-parallel ranks (heads per device = 64 / tp)")
    cap.add_argument("--page-size", type=int, default=64, help="tokens per page")
    cap.add_argument("--context", type=int, default=131072, help="tokens per request")
    cap.add_argument("--json", action="store_true", help="print JSON")
    cap.set_defaults(func=_capacity, parser=cap)
    info = sub.add_parser(
        "info", help="versions, the device, which implementations serve here, nvcc, FlashInfer, the library"
    )
    info.add_argument("--json", action="store_true", help="print strict JSON")
    info.set_defaults(func=_info, parser=info)
    # Listed for --help only; main() hands its arguments over before parsing.
    sub.add_parser(
        "build-ffi", help="build the native library (the XLA FFI targets) ahead of time (build-ffi --help)"
    )
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except ValueError as err:
        # The subcommand's usage line, not the top level's: the error is about its arguments.
        args.parser.error(str(err))
        return 2


if __name__ == "__main__":
    sys.exit(main())
