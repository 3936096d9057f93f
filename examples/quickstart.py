"""The README's API example, whole and runnable: ``python examples/quickstart.py``.

Two requests on paged KV pools of two sparse-MLA layers: a prefill step of 12 prompt
tokens per request, then three decode steps, each one call of the same jitted step.
The README shows everything below this docstring verbatim (tests/test_quickstart.py
checks that, runs the script and compares it with a dense float64 attention).
"""

import functools

import jax
import jax.numpy as jnp

import jax_glm_nope as jgn

NUM_LAYERS, NUM_PAGES, PAGE_SIZE, HEADS, WINDOW = 2, 16, 8, 8, 40


@functools.partial(jax.jit, donate_argnums=0)  # the pools are donated: every write is in place
def step(pools, latents, queries, block_tables, positions, token_req, candidate_positions):
    # Every per-step input is an argument: a value the step closed over would be frozen into its trace.
    slots = jgn.block_tables_to_slots(block_tables, positions, token_req, PAGE_SIZE)  # [T], -1: none
    indices = jgn.block_tables_to_candidate_slots(block_tables, candidate_positions, token_req, PAGE_SIZE)
    indices, topk_lens = jgn.pad_candidates(indices)  # 40 -> 128 columns (GLM: 2051 -> 2176)
    new_pools, outs, lses = [], [], []
    for pool, latent, q in zip(pools, latents, queries, strict=True):
        pool = jgn.write_kv(pool, latent, slots)  # latent [T, 512] -> one 528-byte FP8 row per token
        out, lse = jgn.sparse_mla(q, pool, indices, 1 / 16, topk_lens)  # [T, H, 512] bf16, [T, H] f32
        new_pools.append(pool)
        outs.append(out)
        lses.append(lse)
    return new_pools, jnp.stack(outs), jnp.stack(lses)


pools = jgn.allocate_pools(NUM_LAYERS, NUM_PAGES, PAGE_SIZE)  # per layer [16, 8, 528] uint8 zeros
block_tables = jnp.array([[3, 1, 6, -1], [4, 7, 2, 5]], jnp.int32)  # each request's pages, -1: none
requests = jnp.arange(2, dtype=jnp.int32)
schedule = [(jnp.tile(jnp.arange(12, dtype=jnp.int32), 2), jnp.repeat(requests, 12))]  # prefill
schedule += [(jnp.full((2,), 12 + i, jnp.int32), requests) for i in range(3)]  # three decode steps
key = jax.random.key(0)
steps = []
for positions, token_req in schedule:
    candidate_positions = positions[:, None] - jnp.arange(WINDOW, dtype=jnp.int32)  # < 0: none
    key, k_latent, k_query = jax.random.split(key, 3)  # a model's activations; random here
    latents = jax.random.normal(k_latent, (NUM_LAYERS, len(positions), 512))
    queries = jax.random.normal(k_query, (NUM_LAYERS, len(positions), HEADS, 512), jnp.bfloat16)
    pools, outs, lses = step(pools, latents, queries, block_tables, positions, token_req, candidate_positions)
    steps.append((positions, token_req, candidate_positions, latents, queries, outs, lses))
    print(f"{len(positions):2d} tokens: out {outs.shape} {outs.dtype}, lse {lses.shape} {lses.dtype}")
print("rows written per layer:", [int(jnp.any(pool != 0, axis=-1).sum()) for pool in pools])
