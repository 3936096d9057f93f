"""The automatic calls inside ``jax.shard_map`` with its default checks (``check_vma``):
heads over devices, tokens over devices, data x model, pools from
``allocate_pools(sharding=...)``; run on the CPU host, and exported for an H200 from it.
And the stacked pool of a ``lax.scan`` over layers, sharded: no collectives, flat memory
(``examples/sharded_scan.py``)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import export
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

import jax_glm_nope as jgn
from jax_glm_nope.testing import assert_accurate, quantize_f64, reference_f64

H200 = jgn.Device("cuda", "NVIDIA H200", (9, 0), 132)
SM_SCALE = 1 / 16
PAGES, PAGE_SIZE = 4, 8  # per data shard
HEADS, CANDIDATES = 8, 24

# name -> (mesh shape, mesh axes, the data axis or None, the heads axis or None)
LAYOUTS = {
    "heads": ((8,), ("model",), None, "model"),
    "tokens": ((8,), ("data",), "data", None),
    "data_x_model": ((2, 4), ("data", "model"), "data", "model"),
}


def _layout(name):
    shape, axes, data, heads = LAYOUTS[name]
    if len(jax.devices()) < int(np.prod(shape)):
        pytest.skip(f"needs {int(np.prod(shape))} devices (conftest gives the CPU 8)")
    mesh = jax.make_mesh(shape, axes, devices=jax.devices()[: int(np.prod(shape))])
    shards = mesh.shape[data] if data else 1
    return mesh, data, heads, shards


def _inputs(shards, tokens_per_shard, seed=0):
    """Per data shard: latents to write at shard-local slots, queries and candidates over
    that shard's pool (holes and out-of-range ids included)."""
    rng = np.random.default_rng(seed)
    slots_per_shard = PAGES * PAGE_SIZE
    tokens = shards * tokens_per_shard
    latent = rng.standard_normal((tokens, 512)).astype(np.float32)
    slots = np.concatenate([rng.permutation(slots_per_shard)[:tokens_per_shard] for _ in range(shards)])
    slots = slots.astype(np.int32)
    slots[1] = -1  # dropped
    q = rng.standard_normal((tokens, HEADS, 512)).astype(jnp.bfloat16)
    indices = rng.integers(0, slots_per_shard, (tokens, CANDIDATES)).astype(np.int32)
    indices[:, -3:] = [-1, slots_per_shard, 2**31 - 1]  # holes
    lens = rng.integers(1, CANDIDATES + 1, (tokens,)).astype(np.int32)
    return latent, slots, q, indices, lens


def _expected(shards, latent, slots, q, indices, lens):
    """numpy: each data shard's pool after the write, and attention over it (float64)."""
    per = latent.shape[0] // shards
    pools, outs, lses = [], [], []
    for s in range(shards):
        rows = slice(s * per, (s + 1) * per)
        pool = np.zeros((PAGES * PAGE_SIZE, 528), np.uint8)
        for row, slot in zip(quantize_f64(latent[rows]), slots[rows], strict=True):
            if slot >= 0:
                pool[slot] = row
        out, lse = reference_f64(q[rows].astype(np.float32), pool, indices[rows], lens[rows], SM_SCALE)
        pools.append(pool.reshape(PAGES, PAGE_SIZE, 528))
        outs.append(out)
        lses.append(lse)
    return np.concatenate(pools), np.concatenate(outs), np.concatenate(lses)


def _step(pool, latent, slots, q, indices, lens):
    pool = jgn.write_kv(pool, latent, slots)
    out, lse = jgn.sparse_mla(q, pool, indices, SM_SCALE, lens)
    return pool, out, lse


def _sharded_step(mesh, data, heads):
    """A fresh jitted ``shard_map`` of ``_step`` (default checks) and its argument specs."""
    tok = P(data)
    specs = (jgn.pool_partition_spec(data), tok, tok, P(data, heads), tok, tok)
    out_specs = (specs[0], P(data, heads), P(data, heads))
    return jax.jit(jax.shard_map(_step, mesh=mesh, in_specs=specs, out_specs=out_specs)), specs


@pytest.mark.parametrize("layout", LAYOUTS)
def test_automatic_calls_under_shard_map_default_checks(layout):
    mesh, data, heads, shards = _layout(layout)
    host = _inputs(shards, tokens_per_shard=4)
    step, specs = _sharded_step(mesh, data, heads)
    pool = jgn.allocate_pools(1, shards * PAGES, PAGE_SIZE, sharding=NamedSharding(mesh, specs[0]))[0]
    args = [jax.device_put(x, NamedSharding(mesh, s)) for x, s in zip(host, specs[1:], strict=True)]
    pool, out, lse = step(pool, *args)
    want_pool, want_out, want_lse = _expected(shards, *host)
    np.testing.assert_array_equal(np.asarray(pool), want_pool)
    assert_accurate(np.asarray(out.astype(jnp.float32)), np.asarray(lse), want_out, want_lse, label=layout)


@pytest.mark.parametrize(
    ("layout", "per_device", "attention_target"),
    [(layout, 8, "@jax_glm_nope_sm90_sparse_mla") for layout in LAYOUTS]
    + [("heads", 1, "@jax_glm_nope_sm90_sparse_mla")]
    + [("heads", 2, "@__gpu$xla.gpu.triton"), ("data_x_model", 2, "@__gpu$xla.gpu.triton")],
)
def test_export_for_an_h200_under_shard_map_default_checks(layout, per_device, attention_target):
    """From this CPU host, for the H200: our KV-row kernel and the attention kernel the
    table picks (8 tokens per device, or one at 8 heads: our sm_90a kernel; two: Pallas),
    inside the shard_map, with the varying-axes check on."""
    mesh, data, heads, shards = _layout(layout)
    tokens = per_device * (mesh.shape[data] if data else 1)
    step, specs = _sharded_step(mesh, data, heads)
    shapes = [
        ((shards * PAGES, PAGE_SIZE, 528), jnp.uint8),
        ((tokens, 512), jnp.float32),
        ((tokens,), jnp.int32),
        ((tokens, HEADS, 512), jnp.bfloat16),
        ((tokens, CANDIDATES), jnp.int32),
        ((tokens,), jnp.int32),
    ]
    args = [
        jax.ShapeDtypeStruct(shape, dtype, sharding=NamedSharding(mesh, spec))
        for (shape, dtype), spec in zip(shapes, specs, strict=True)
    ]
    for platforms in (("cuda",), ("cpu", "cuda")):  # the GPU alone, or one artifact for both
        with jgn.lowering_for(H200):
            exported = export.export(step, platforms=platforms, disabled_checks=jgn.export_disabled_checks())(
                *args
            )
        text = exported.mlir_module()
        assert "@jax_glm_nope_write_kv" in text and attention_target in text
        assert exported.nr_devices == mesh.size and exported.platforms == platforms


# ------------------------------------------------------------------ the stacked pool, sharded


def _sharded_scan():
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parent.parent / "examples" / "sharded_scan.py"
    spec = importlib.util.spec_from_file_location("sharded_scan", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


COLLECTIVES = ("all-gather", "all-reduce", "all-to-all", "collective-permute", "reduce-scatter")


def test_stacked_pool_scan_under_shard_map_has_no_collectives_and_flat_memory():
    """The README's stacked recipe (a [L, pages, page_size, 528] pool through lax.scan,
    viewed as 2-D, stacked_slots) inside shard_map on a 2 x 4 mesh: the compiled step
    moves no data between devices, its temporary memory does not grow with the cache,
    and the donated pool is updated in place (aliased)."""
    if len(jax.devices()) < 8:
        pytest.skip("needs 8 devices (conftest gives the CPU 8)")
    example = _sharded_scan()
    mesh = jax.make_mesh((2, 4), ("data", "model"), devices=jax.devices()[:8])
    layers, heads = 2, 16
    inputs = example.make_inputs(mesh, layers, heads, 2, [12], 40, seed=0)
    memory = {}
    for pages in (16, 256):  # per data shard: a 16x larger cache
        pool = jax.ShapeDtypeStruct(
            (layers, 2 * pages, 8, 528), jnp.uint8, sharding=NamedSharding(mesh, example.POOL_SPEC)
        )
        compiled = example.make_step(mesh).lower(pool, *inputs).compile()
        hlo = compiled.as_text()
        assert not [op for op in COLLECTIVES if op in hlo], [op for op in COLLECTIVES if op in hlo]
        stats = compiled.memory_analysis()
        local_pool = layers * pages * 8 * 528
        assert stats.alias_size_in_bytes >= local_pool  # the donated pool is the output's buffer
        memory[pages] = stats.temp_size_in_bytes
    assert memory[256] - memory[16] < 2**20, memory  # the cache grew by 2 x 240 x 4 KiB per device


def test_stacked_pool_scan_under_shard_map_matches_each_shard_alone():
    """Every data shard's block and outputs equal the same local step run on one device
    over that shard's slice (all heads), prefill then decode."""
    if len(jax.devices()) < 8:
        pytest.skip("needs 8 devices (conftest gives the CPU 8)")
    example = _sharded_scan()
    mesh = jax.make_mesh((2, 4), ("data", "model"), devices=jax.devices()[:8])
    layers, heads, pages = 2, 8, 8
    spec = NamedSharding(mesh, example.POOL_SPEC)
    pool = jgn.allocate_pools(layers, 2 * pages, 8, stacked=True, sharding=spec)
    alone = [jnp.zeros((layers, pages, 8, 528), jnp.uint8) for _ in range(2)]
    step, local = example.make_step(mesh), jax.jit(example.local_step)
    for positions in (list(range(10)), [10]):
        inputs = example.make_inputs(mesh, layers, heads, 2, positions, 24, seed=len(positions))
        pool, (out, lse) = step(pool, *inputs)
        host = [np.asarray(x) for x in inputs]
        out, lse = np.asarray(out, np.float32), np.asarray(lse)
        tokens = host[3].shape[0] // 2
        for shard in range(2):
            rows = slice(shard * tokens, (shard + 1) * tokens)
            latents, queries = host[0][:, rows], host[1][:, rows]
            tables = host[2][shard * 2 : (shard + 1) * 2]
            alone[shard], (want_out, want_lse) = local(
                alone[shard], latents, queries, tables, host[3][rows], host[4][rows], host[5][rows]
            )
            np.testing.assert_array_equal(
                np.asarray(pool)[:, shard * pages : (shard + 1) * pages], alone[shard]
            )
            np.testing.assert_allclose(out[:, rows], np.asarray(want_out, np.float32), rtol=1e-2, atol=1e-2)
            np.testing.assert_allclose(lse[:, rows], np.asarray(want_lse), rtol=1e-5, atol=1e-5)
