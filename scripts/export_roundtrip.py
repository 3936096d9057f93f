"""An exported artifact, made on one machine and run on another.

    python scripts/export_roundtrip.py write artifacts/         # any host, e.g. a CPU machine
    python scripts/export_roundtrip.py run artifacts/           # the GPU machine

``write`` exports ``jax_glm_nope.sparse_mla`` (``implementation=None``, T = 64 decode
tokens, 16 heads, K = 2176 GLM candidate rows with holes) for an H200 with
``lowering_for`` and for both platforms (``platforms=("cpu", "cuda")``), serialises it
and saves the inputs' seed beside it. ``run`` deserialises it, checks which custom call
it carries, registers this package's FFI targets (``jax_glm_nope.register_ffi_targets``,
on a GPU), runs it on this machine's default device and compares out and lse with the
float64 reference (SPEC section 3 bounds, on tame and wide-range rows). Exit 0 only when
both cases pass.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import export

import jax_glm_nope as jgn
from jax_glm_nope import testing
from jax_glm_nope.native import targets

H200 = jgn.Device("cuda", "NVIDIA H200", (9, 0), 132)
TOKENS, HEADS, SLOTS = 64, 16, 40000
SM_SCALE = 1 / 16


def _case(wide: bool, seed: int) -> testing.Case:
    return testing.make_case(
        seed, TOKENS, HEADS, 2176, num_slots=SLOTS, wide=wide, with_lens=True, sm_scale=SM_SCALE
    )


def _attend(q, pool, indices, topk_lens):
    return jgn.sparse_mla(q, pool, indices, SM_SCALE, topk_lens)


def write(folder: pathlib.Path) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    case = _case(False, 0)
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
    (folder / "sparse_mla.jax_exported").write_bytes(exported.serialize())
    meta = {
        "tokens": TOKENS,
        "heads": HEADS,
        "slots": SLOTS,
        "sm_scale": SM_SCALE,
        "platforms": list(exported.platforms),
        "for": H200.describe(),
        "carries_sm90": targets.SM90_SPARSE_MLA in exported.mlir_module(),
    }
    (folder / "meta.json").write_text(json.dumps(meta, indent=1))
    print(f"wrote {folder / 'sparse_mla.jax_exported'}: {meta}")
    return 0 if meta["carries_sm90"] else 1


def run(folder: pathlib.Path) -> int:
    if jax.default_backend() == "gpu":
        jgn.register_ffi_targets()  # the artifact's custom calls need this process's library
    exported = export.deserialize(bytearray((folder / "sparse_mla.jax_exported").read_bytes()))
    print(f"artifact for {exported.platforms}; running on {jax.devices()[0]}")
    failures = 0
    for wide in (False, True):
        case = _case(wide, 1 if wide else 0)
        args = (
            jnp.asarray(case.q, jnp.bfloat16),
            jnp.asarray(case.pool),
            jnp.asarray(case.indices),
            jnp.asarray(case.topk_lens),
        )
        out, lse = exported.call(*args)
        label = "wide-range" if wide else "tame"
        try:
            worst = testing.assert_spec3(
                np.asarray(out.astype(jnp.float32)), np.asarray(lse), *case.reference(), label=label
            )
            print(f"{label}: ok, worst out error {worst[0]:.2e}, lse error {worst[1]:.2e}")
        except AssertionError as err:
            failures += 1
            print(f"{label}: FAILED: {err}")
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
