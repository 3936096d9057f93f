"""Run the public Pallas call at one token a few times, for ncu to profile
(research/pallas/one_token_profile.sh): ``python one_token_driver.py H [calls]``.

The data is tame (std-1 latents), K = 2048 candidates over a 65536-slot pool, the
schedule the dispatch table picks. Each call is waited for, as the whole-call benchmark
does (benchmarks/timing.py ``time_call``)."""

from __future__ import annotations

import sys

import jax
import jax.numpy as jnp
import numpy as np

import jax_glm_nope as jgn


def main() -> None:
    num_heads = int(sys.argv[1])
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    rng = np.random.default_rng(0)
    num_slots = 65536
    latent = rng.standard_normal((num_slots, 512)).astype(np.float32)
    pool = jgn.quantize(jnp.asarray(latent, jnp.bfloat16))
    q = jnp.asarray(rng.standard_normal((1, num_heads, 512)), jnp.bfloat16)
    indices = jnp.asarray(rng.choice(num_slots, (1, 2048), replace=False).astype(np.int32))
    attend = jax.jit(lambda q, p, i: jgn.sparse_mla(q, p, i, 512**-0.5, implementation="pallas"))
    for _ in range(calls):
        jax.block_until_ready(attend(q, pool, indices))
    print(f"H={num_heads}: {calls} calls done")


if __name__ == "__main__":
    main()
