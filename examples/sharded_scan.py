"""A stacked KV pool carried through a ``lax.scan`` over layers, sharded over devices.

    python examples/sharded_scan.py                 # a CPU split into 8 devices: data=2 x model=4
    python examples/sharded_scan.py --data 1 --model 8

The pool is one ``[L, num_pages, page_size, 528]`` array: pages split over ``"data"``
(``pool_partition_spec("data", stacked=True)``), every row replicated over ``"model"``
(MLA caches one latent for all heads, so every tensor-parallel rank needs every row of
its data shard). The step runs inside ``jax.shard_map``, where each device sees

- its own ``[L, num_pages / data, page_size, 528]`` block of the pool, on which
  ``pool.reshape(-1, 528)`` is a free view and ``stacked_slots`` shifts each layer's
  slots by the block's slots per layer;
- its data shard's requests: block tables, positions and ``token_req`` are local to the
  shard (page ids within the block, request ids within the shard's rows);
- its ``"model"`` rank's query heads.

The compiled step has no collective at all, and its temporary memory does not grow
with the cache (tests/test_sharding.py checks both in the HLO). Outside ``shard_map``,
under a plain ``jit`` of the sharded pool, the same reshape is not free: it merges the
layer axis with the page axis split over devices, so XLA gathers the cache into every
device (mesh axes of type Auto) or refuses the reshape (Explicit axes).
"""

from __future__ import annotations

import argparse
import os
import sys

if __name__ == "__main__" and "XLA_FLAGS" not in os.environ:
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"  # a CPU as 8 devices

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

import jax_glm_nope as jgn  # noqa: E402

SM_SCALE = 1 / 16
POOL_SPEC = jgn.pool_partition_spec("data", stacked=True)  # P(None, "data", None, None)
# latents [L, T, 512], queries [L, T, H, 512], block_tables [R, max_blocks], positions [T],
# token_req [T], candidate_positions [T, C]: tokens and requests over "data", heads over "model".
IN_SPECS = (POOL_SPEC, P(None, "data"), P(None, "data", "model"), P("data"), P("data"), P("data"), P("data"))
OUT_SPECS = (POOL_SPEC, (P(None, "data", "model"), P(None, "data", "model")))


def local_step(pool, latents, queries, block_tables, positions, token_req, candidate_positions):
    """One data shard's step over its block of the stacked pool ``[L, pages, page_size, 528]``.

    Returns the updated block and per layer ``(out [L, T, H, 512], lse [L, T, H])``.
    """
    num_layers, num_pages, page_size, _ = pool.shape
    slots_per_layer = num_pages * page_size
    slots = jgn.block_tables_to_slots(block_tables, positions, token_req, page_size)
    indices = jgn.block_tables_to_candidate_slots(block_tables, candidate_positions, token_req, page_size)
    indices, topk_lens = jgn.pad_candidates(indices)

    def layer(pool, inputs):
        latent, q, layer_id = inputs
        flat = pool.reshape(-1, pool.shape[-1])  # free: this device's block, [L * slots_per_layer, 528]
        flat = jgn.write_kv(flat, latent, jgn.stacked_slots(slots, layer_id, slots_per_layer))
        layer_indices = jgn.stacked_slots(indices, layer_id, slots_per_layer)
        out, lse = jgn.sparse_mla(q, flat, layer_indices, SM_SCALE, topk_lens)
        return flat.reshape(pool.shape), (out, lse)

    layer_ids = jnp.arange(num_layers, dtype=jnp.int32)
    return jax.lax.scan(layer, pool, (latents, queries, layer_ids))


def make_step(mesh):
    """``local_step`` over ``mesh`` (axes ``"data"``, ``"model"``), jitted with the pool donated."""
    sharded = jax.shard_map(local_step, mesh=mesh, in_specs=IN_SPECS, out_specs=OUT_SPECS)
    return jax.jit(sharded, donate_argnums=0)


def make_inputs(mesh, num_layers, heads, requests_per_shard, positions, candidates, seed):
    """One step's inputs as global arrays: every data shard's requests decode the same
    ``positions`` (one token per request per entry), attending to the ``candidates``
    most recent positions. Each shard's block table lists pages ``1, 2, ...`` of its own
    block (page 0 kept back, as engines keep it for padding tokens)."""
    data = mesh.shape["data"]
    per_request = -(-(max(positions) + 1) // 8)  # pages of 8 tokens
    local_tables = 1 + np.arange(requests_per_shard * per_request, dtype=np.int32).reshape(
        requests_per_shard, -1
    )
    block_tables = np.tile(local_tables, (data, 1))
    token_req = np.tile(np.repeat(np.arange(requests_per_shard, dtype=np.int32), len(positions)), data)
    pos = np.tile(np.asarray(positions, np.int32), data * requests_per_shard)
    candidate_positions = pos[:, None] - np.arange(candidates, dtype=np.int32)  # < 0: none
    rng = np.random.default_rng(seed)
    latents = rng.standard_normal((num_layers, len(pos), 512), np.float32)
    queries = rng.standard_normal((num_layers, len(pos), heads, 512), np.float32).astype(jnp.bfloat16)
    host = (latents, queries, block_tables, pos, token_req, candidate_positions)
    return [jax.device_put(x, NamedSharding(mesh, spec)) for x, spec in zip(host, IN_SPECS[1:], strict=True)]


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=int, default=2, help="mesh axis for requests and pages")
    parser.add_argument("--model", type=int, default=4, help="mesh axis for query heads")
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--heads", type=int, default=16, help="query heads in all")
    parser.add_argument("--pages", type=int, default=16, help="pages of 8 tokens per data shard")
    parser.add_argument("--requests", type=int, default=2, help="requests per data shard")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    mesh = jax.make_mesh(
        (args.data, args.model), ("data", "model"), devices=jax.devices()[: args.data * args.model]
    )
    pool = jgn.allocate_pools(
        args.layers, args.data * args.pages, 8, stacked=True, sharding=NamedSharding(mesh, POOL_SPEC)
    )
    step = make_step(mesh)
    for positions in (list(range(12)), [12], [13]):  # a prefill of 12 tokens per request, two decode steps
        inputs = make_inputs(mesh, args.layers, args.heads, args.requests, positions, 40, seed=len(positions))
        pool, (out, lse) = step(pool, *inputs)
        print(f"{out.shape[1]:3d} tokens: out {out.shape} {out.sharding.spec}, pool {pool.sharding.spec}")
    hlo = step.lower(pool, *inputs).compile().as_text()
    found = [op for op in ("all-gather", "all-reduce", "all-to-all", "collective-permute") if op in hlo]
    print("collectives in the compiled step:", ", ".join(found) or "none")
    return pool


if __name__ == "__main__":
    sys.exit(main() is None)
