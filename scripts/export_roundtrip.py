"""Exported artifacts, made on one machine and run on another.

    JAX_PLATFORMS=cpu python scripts/export_roundtrip.py write artifacts/   # any host, JAX on the CPU
    python scripts/export_roundtrip.py run artifacts/                      # the GPU machine

``write`` exports ``jax_glm_nope.sparse_mla`` (``implementation=None``, K = 2176 GLM
candidate rows with holes) for an H200 with ``lowering_for`` and for both platforms
(``platforms=("cpu", "cuda")``), once per case, each at a shape where the dispatch table
picks a different kernel:

- ``sm90``: 64 decode tokens, 16 heads: our sm_90a kernel (T at or above the table's
  ``cuda`` threshold);
- ``pallas``: 2 tokens, 16 heads (decode below the threshold): the Pallas kernel, as
  jax's Triton custom call;
- ``pallas_single``: 1 token, 64 heads (single-request decode at data-parallel heads).

It checks each artifact carries its kernel's custom call and nothing else, and saves it
with its shapes. ``run`` deserialises them, registers this package's FFI targets
(``jax_glm_nope.register_ffi_targets``, on a GPU), runs each on this machine's default
device and compares out and lse with the float64 reference (the accuracy bounds of
docs/semantics.md, on tame and wide-range rows). Exit 0 only when every case passes.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import export

import jax_glm_nope as jgn
from jax_glm_nope import testing
from jax_glm_nope.implementations import pallas
from jax_glm_nope.native import targets

H200 = jgn.Device("cuda", "NVIDIA H200", (9, 0), 132)
SLOTS, CANDIDATES = 40000, 2176
SM_SCALE = 1 / 16
TRITON = pallas.CUSTOM_CALL_TARGETS[0]
# name -> (tokens, heads, the one custom call the artifact must carry)
CASES = {
    "sm90": (64, 16, targets.SM90_SPARSE_MLA),
    "pallas": (2, 16, TRITON),  # single-request speculative decode: below the cuda threshold
    "pallas_single": (1, 64, TRITON),
}


def _case(name: str, wide: bool) -> testing.Case:
    tokens, heads, _ = CASES[name]
    seed = 2 * list(CASES).index(name) + int(wide)
    return testing.make_case(
        seed, tokens, heads, CANDIDATES, num_slots=SLOTS, wide=wide, with_lens=True, sm_scale=SM_SCALE
    )


def _attend(q, pool, indices, topk_lens):
    return jgn.sparse_mla(q, pool, indices, SM_SCALE, topk_lens)


def custom_calls(exported) -> list[str]:
    return sorted(set(re.findall(r"stablehlo\.custom_call @([\w$.]+)\(", exported.mlir_module())))


def write(folder: pathlib.Path) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    print(f"jax {jax.__version__} on {jax.devices()[0].platform}; exporting for {H200.describe()}")
    meta, failures = {}, 0
    for name, (tokens, heads, target) in CASES.items():
        case = _case(name, False)
        avals = [
            jax.ShapeDtypeStruct(case.q.shape, jnp.bfloat16),
            jax.ShapeDtypeStruct(case.pool.shape, jnp.uint8),
            jax.ShapeDtypeStruct(case.indices.shape, jnp.int32),
            jax.ShapeDtypeStruct(case.topk_lens.shape, jnp.int32),
        ]
        with jgn.lowering_for(H200):
            exported = export.export(
                jax.jit(_attend), platforms=("cpu", "cuda"), disabled_checks=jgn.export_disabled_checks()
            )(*avals)
        (folder / f"{name}.jax_exported").write_bytes(exported.serialize())
        calls = custom_calls(exported)
        ok = calls == [target]
        failures += not ok
        meta[name] = {
            "tokens": tokens,
            "heads": heads,
            "slots": SLOTS,
            "sm_scale": SM_SCALE,
            "platforms": list(exported.platforms),
            "for": H200.describe(),
            "custom_calls": calls,
            "expected": target,
        }
        print(f"{name}: T={tokens} H={heads} -> {calls} ({'ok' if ok else 'WRONG, expected ' + target})")
    (folder / "meta.json").write_text(json.dumps(meta, indent=1))
    print(f"wrote {len(meta)} artifacts to {folder}")
    return 1 if failures else 0


def run(folder: pathlib.Path) -> int:
    if jax.default_backend() == "gpu":
        jgn.register_ffi_targets()  # the artifacts' custom calls need this process's library
    meta = json.loads((folder / "meta.json").read_text())
    print(f"jax {jax.__version__}; running on {jax.devices()[0]}")
    failures = 0
    for name in meta:
        exported = export.deserialize(bytearray((folder / f"{name}.jax_exported").read_bytes()))
        print(f"{name}: artifact for {exported.platforms}, custom calls {custom_calls(exported)}")
        for wide in (False, True):
            case = _case(name, wide)
            args = (
                jnp.asarray(case.q, jnp.bfloat16),
                jnp.asarray(case.pool),
                jnp.asarray(case.indices),
                jnp.asarray(case.topk_lens),
            )
            label = f"{name} {'wide-range' if wide else 'tame'}"
            try:
                out, lse = exported.call(*args)
                worst = testing.assert_accurate(
                    np.asarray(out.astype(jnp.float32)), np.asarray(lse), *case.reference(), label=label
                )
                print(f"{label}: ok, worst out error {worst[0]:.2e}, lse error {worst[1]:.2e}")
            except Exception as err:  # a failed case is reported, the others still run
                failures += 1
                print(f"{label}: FAILED: {type(err).__name__}: {err}")
    print("export round trip:", "passed" if not failures else f"FAILED ({failures})")
    return 1 if failures else 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("action", choices=("write", "run"))
    p.add_argument("folder", type=pathlib.Path)
    args = p.parse_args(argv)
    return write(args.folder) if args.action == "write" else run(args.folder)


if __name__ == "__main__":
    sys.exit(main())
