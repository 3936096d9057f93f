"""Check an installed jax_glm_nope + jax-glm-nope-cu13 on an NVIDIA GPU without a compiler:
the prebuilt library is the one used, nothing is built, and the public API's CUDA
results are right (``write_kv`` bit-exact against ``quantize``, ``sparse_mla`` within
the accuracy bound of the float64 reference). ``scripts/prebuilt_check.sh`` runs it from
outside the checkout, so the installed package is the one imported.

    python prebuilt_check.py
"""

from __future__ import annotations

import os
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np

import jax_glm_nope as jgn
from jax_glm_nope import testing
from jax_glm_nope.native import build, library, targets, toolchain


def no_build(*args, **kwargs):
    raise AssertionError("a build was attempted: the prebuilt library was not used")


accurate = testing.assert_accurate


def main() -> int:
    toolchain.find_nvcc = build.find_nvcc = build.build = no_build  # any build fails loudly
    print("jax", jax.__version__, "| devices", jax.devices())
    print("jax_glm_nope", jgn.__version__, "from", pathlib.Path(jgn.__file__).parent)
    here = library.local_arch()
    found = library.find(here)
    print(f"library for {here}: {found}")
    assert found is not None and found.origin == "prebuilt", (found, library.passed_over(here))
    record = build.read_manifest(found.path)
    print(
        f"built for {record['archs']} (FlashInfer {record['flashinfer']}), XLA FFI API "
        f"{record['ffi_api']}, nvcc {record['nvcc']}; this jaxlib speaks {toolchain.ffi_api_version()}"
    )
    jgn.register_ffi_targets()
    assert targets.library_path(build_if_missing=False) == found.path

    assert library.local_arch() is not None, "no NVIDIA GPU here: the rest of the check needs one"
    rng = np.random.default_rng(0)
    # write_kv(implementation="cuda"): bit-exact against quantize, in place under donation.
    num_slots, tokens = 4096, 96
    latent = testing.random_latent(rng, tokens)
    slots = rng.permutation(num_slots)[:tokens].astype(np.int32)
    pool = jnp.zeros((num_slots, 528), jnp.uint8)
    step = jax.jit(lambda p, x, s: jgn.write_kv(p, x, s, implementation="cuda"), donate_argnums=0)
    pool = step(pool, jnp.asarray(latent), jnp.asarray(slots))
    want = np.zeros((num_slots, 528), np.uint8)
    want[slots] = np.asarray(jgn.quantize(jnp.asarray(latent)))
    np.testing.assert_array_equal(np.asarray(pool), want)
    print(f"write_kv cuda: {tokens} rows bit-exact")

    # sparse_mla(implementation="cuda") against the float64 reference on the same rows.
    filled = testing.random_latent(rng, num_slots)
    pool = jgn.quantize(jnp.asarray(filled))
    for num_tokens, num_heads, num_candidates in ((8, 16, 2048), (64, 64, 2051), (1, 128, 512)):
        q = jnp.asarray(rng.standard_normal((num_tokens, num_heads, 512)), jnp.bfloat16)
        indices = rng.integers(0, num_slots, (num_tokens, num_candidates)).astype(np.int32)
        indices[:, -5:] = -1  # holes
        sm_scale = 512**-0.5
        out, lse = jgn.sparse_mla(q, pool, jnp.asarray(indices), sm_scale, implementation="cuda")
        topk_lens = np.full((num_tokens,), num_candidates, np.int32)
        ref_out, ref_lse = testing.reference_f64(
            np.asarray(q), np.asarray(pool), indices, topk_lens, sm_scale
        )
        errors = accurate(
            out, lse, ref_out, ref_lse, label=f"T={num_tokens} H={num_heads} K={num_candidates}"
        )
        print(f"sparse_mla cuda T={num_tokens} H={num_heads} K={num_candidates}: errors {errors}")
    cache = pathlib.Path(os.environ.get("JAX_GLM_NOPE_CACHE_DIR", build.cache_dir()))
    leftovers = sorted(p.name for p in cache.iterdir()) if cache.is_dir() else []
    assert leftovers == [], f"the build cache {cache} is not empty: {leftovers}"
    print("PREBUILT CHECK PASSED: no compiler used, build cache empty")
    return 0


if __name__ == "__main__":
    sys.exit(main())
