"""The model author's cache helpers: pools, their sharding, block tables to slots."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

import jax_glm_nope as jgn


def slots_by_hand(block_tables, positions, token_req, page_size):
    """The vLLM rule, one entry at a time in Python ints."""
    block_tables = np.asarray(block_tables)
    num_requests, max_blocks = block_tables.shape
    positions = np.asarray(positions)
    out = np.full(positions.shape, -1, np.int64)
    for index in np.ndindex(positions.shape):
        r, pos = int(token_req[index[0]]), int(positions[index])
        if not (0 <= r < num_requests and pos >= 0 and pos // page_size < max_blocks):
            continue
        page = int(block_tables[r, pos // page_size])
        slot = page * page_size + pos % page_size
        if page >= 0 and slot < 2**31:
            out[index] = slot
    return out.astype(np.int32)


def hostile_tables(seed, num_requests=5, max_blocks=7, page_size=3):
    rng = np.random.default_rng(seed)
    tables = rng.permutation(num_requests * max_blocks).reshape(num_requests, max_blocks).astype(np.int32)
    tables[1, 4:] = -1  # request 1 has only four pages allocated
    tables[3, 0] = -1  # a hole at the start
    tables[4, -1] = min(2**31 // page_size, 2**31 - 1)  # slots past the int32 range (page_size > 1)
    tables[4, -2] = 2**31 // page_size - 1  # the last page that fits
    return tables


@pytest.mark.parametrize("page_size", [1, 3, 64])
def test_block_tables_to_slots_matches_the_rule(page_size):
    tables = hostile_tables(page_size, page_size=page_size)
    num_requests, max_blocks = tables.shape
    max_len = max_blocks * page_size
    rng = np.random.default_rng(page_size)
    edges = [0, page_size - 1, page_size, max_len - 1, max_len, -1, -page_size, 2**31 - 1, -(2**31)]
    positions = np.concatenate([edges, rng.integers(-page_size, max_len + page_size, 200)]).astype(np.int32)
    token_req = rng.integers(-1, num_requests + 1, positions.size).astype(np.int32)  # -1 and R: invalid
    token_req[: len(edges)] = 0
    # request 4's last pages: slots up to 2**31 - 1 are kept, beyond it -1
    last = (max_blocks - 2) * page_size + np.arange(2 * page_size)
    positions = np.concatenate([positions, last]).astype(np.int32)
    token_req = np.concatenate([token_req, np.full(last.size, 4)]).astype(np.int32)
    got = jgn.block_tables_to_slots(
        jnp.asarray(tables), jnp.asarray(positions), jnp.asarray(token_req), page_size
    )
    assert got.dtype == jnp.int32 and got.shape == positions.shape
    want = slots_by_hand(tables, positions, token_req, page_size)
    np.testing.assert_array_equal(np.asarray(got), want)
    assert (want == -1).sum() >= 20 and (want >= 0).sum() >= 20  # both kinds present
    assert want.max() == (2**31 - 1 if page_size > 1 else 2**31 // page_size - 1)


def test_slots_by_hand_on_a_known_table():
    tables = np.array([[7, 2, -1], [0, 5, 9]], np.int32)
    got = jgn.block_tables_to_slots(
        jnp.asarray(tables),
        jnp.array([0, 5, 4, 11, 12, 3], jnp.int32),
        jnp.array([0, 0, 1, 1, 1, 0], jnp.int32),
        4,
    )
    # r0: pos 0 -> page 7 slot 28; pos 5 -> page 2 slot 9; r1: pos 4 -> page 5 slot 20;
    # pos 11 -> page 9 slot 39; pos 12 -> block 3 past max_blocks; r0 pos 3 -> slot 31
    assert np.asarray(got).tolist() == [28, 9, 20, 39, -1, 31]
    # an unallocated (-1) entry of the table
    assert np.asarray(
        jgn.block_tables_to_slots(tables, np.array([8], np.int32), np.array([0], np.int32), 4)
    ).tolist() == [-1]


def test_candidate_slots_follow_each_rows_request():
    page_size = 4
    tables = hostile_tables(7, page_size=page_size)
    rng = np.random.default_rng(1)
    positions = rng.integers(-3, tables.shape[1] * page_size + 3, (6, 11)).astype(np.int32)
    positions[2, :4] = -1  # a run of missing candidates
    token_req = np.array([0, 1, 2, 3, 4, -2], np.int32)
    got = jax.jit(jgn.block_tables_to_candidate_slots, static_argnums=3)(
        tables, positions, token_req, page_size
    )
    assert got.dtype == jnp.int32 and got.shape == (6, 11)
    np.testing.assert_array_equal(np.asarray(got), slots_by_hand(tables, positions, token_req, page_size))
    assert (np.asarray(got)[5] == -1).all() and (np.asarray(got)[2, :4] == -1).all()


def test_candidate_slots_agree_with_to_slots_on_an_expanded_table():
    page_size = 4
    tables = hostile_tables(3, page_size=page_size)
    tables[4, -1] = 0  # to_slots has no int32 limit to check
    positions = np.arange(tables.shape[1] * page_size, dtype=np.int32)
    req_to_token = np.stack(
        [
            jgn.block_tables_to_slots(tables, positions, np.full_like(positions, r), page_size)
            for r in range(5)
        ]
    )
    candidates = np.random.default_rng(0).integers(-2, positions.size + 2, (5, 9)).astype(np.int32)
    token_req = np.arange(5, dtype=np.int32)
    np.testing.assert_array_equal(
        np.asarray(jgn.block_tables_to_candidate_slots(tables, candidates, token_req, page_size)),
        np.asarray(jgn.to_slots(candidates, jnp.asarray(req_to_token), token_req)),
    )


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda t, p, r: jgn.block_tables_to_slots(t.astype(np.int64), p, r, 4),
            TypeError,
            "block_tables: expected dtype int32, got int64",
        ),
        (
            lambda t, p, r: jgn.block_tables_to_slots(t[0], p, r, 4),
            ValueError,
            "block_tables: expected shape [R, max_blocks]",
        ),
        (
            lambda t, p, r: jgn.block_tables_to_slots(t[:0], p, r, 4),
            ValueError,
            "block_tables: expected a non-empty",
        ),
        (
            lambda t, p, r: jgn.block_tables_to_slots(t, p[:, None], r, 4),
            ValueError,
            "positions: expected shape [T]",
        ),
        (
            lambda t, p, r: jgn.block_tables_to_slots(t, p.astype(np.float32), r, 4),
            TypeError,
            "positions: expected dtype int32",
        ),
        (
            lambda t, p, r: jgn.block_tables_to_slots(t, p, r[:2], 4),
            ValueError,
            "token_req: expected shape (3,) (T of positions)",
        ),
        (
            lambda t, p, r: jgn.block_tables_to_slots(t, p, r, 0),
            ValueError,
            "page_size: expected an int >= 1, got 0",
        ),
        (
            lambda t, p, r: jgn.block_tables_to_slots(t, p, r, 4.0),
            TypeError,
            "page_size: expected a Python int",
        ),
        (
            lambda t, p, r: jgn.block_tables_to_candidate_slots(t, p, r, 4),
            ValueError,
            "positions: expected shape [T, C]",
        ),
        (
            lambda t, p, r: jgn.block_tables_to_candidate_slots(t, p[:, None], r[:1], 4),
            ValueError,
            "token_req: expected shape (3,)",
        ),
    ],
)
def test_block_table_errors_name_the_argument(call, error, message):
    tables = np.zeros((2, 3), np.int32)
    with pytest.raises(error) as info:
        call(tables, np.zeros(3, np.int32), np.zeros(3, np.int32))
    assert message in str(info.value)


@pytest.mark.parametrize("fmt", [jgn.COMPACT, jgn.PADDED, 656])
def test_allocate_pools_list_and_stacked(fmt):
    row_bytes = jgn.row_format(fmt).bytes_per_token if isinstance(fmt, int) else fmt.bytes_per_token
    pools = jgn.allocate_pools(3, 5, 7, fmt)
    assert isinstance(pools, list) and len(pools) == 3
    assert len({id(p) for p in pools}) == 3  # three buffers, not one aliased three times
    for pool in pools:
        assert pool.shape == (5, 7, row_bytes) and pool.dtype == jnp.uint8
        assert not np.asarray(pool).any()
    stacked = jgn.allocate_pools(3, 5, 7, fmt, stacked=True)
    assert (
        stacked.shape == (3, 5, 7, row_bytes) and stacked.dtype == jnp.uint8 and not np.asarray(stacked).any()
    )
    assert jgn.pool_bytes(3, 5, 7, fmt) == stacked.nbytes == sum(p.nbytes for p in pools)
    assert jgn.pool_shape(5, 7, fmt) == pools[0].shape


def test_a_fresh_pool_reads_as_zeros_not_nan():
    (pool,) = jgn.allocate_pools(1, 2, 4)
    q = jax.random.normal(jax.random.key(0), (2, 4, 512)).astype(jnp.bfloat16)
    out, lse = jgn.sparse_mla(q, pool, jnp.array([[0, 5], [7, -1]], jnp.int32), 1 / 16)
    assert not np.asarray(out, np.float32).any()
    np.testing.assert_allclose(np.asarray(lse), [[np.log(2.0)] * 4, [0.0] * 4], rtol=1e-6)


def test_pool_bytes_is_exact_and_matches_the_planner_rows():
    assert jgn.pool_bytes(11, 199_372, 64) == 11 * 199_372 * 64 * 528
    assert jgn.pool_bytes(1, 1, 1, jgn.PADDED) == 656


@pytest.mark.parametrize(
    "args, kwargs, error, message",
    [
        ((0, 4, 64), {}, ValueError, "num_layers: expected an int >= 1, got 0"),
        ((2, 0, 64), {}, ValueError, "num_pages: expected an int >= 1, got 0"),
        ((2, 4, 0), {}, ValueError, "page_size: expected an int >= 1, got 0"),
        ((2, 4.0, 64), {}, TypeError, "num_pages: expected a Python int"),
        ((2, 2**25, 64), {}, ValueError, "at most 2**31 - 1 slots per pool"),
        ((2, 4, 64, 600), {}, ValueError, "fmt: expected one of [528, 656] row bytes"),
        ((2, 4, 64), {"stacked": 1}, TypeError, "stacked: expected a bool"),
        (
            (2, 4, 64),
            {"sharding": P("data")},
            TypeError,
            "sharding: expected None or a jax.sharding.Sharding",
        ),
    ],
)
def test_allocate_pools_errors(args, kwargs, error, message):
    with pytest.raises(error) as info:
        jgn.allocate_pools(*args, **kwargs)
    assert message in str(info.value)


def test_partition_spec_splits_pages_over_data_and_replicates_over_model():
    assert jgn.pool_partition_spec("data") == P("data", None, None)
    assert jgn.pool_partition_spec("data", stacked=True) == P(None, "data", None, None)
    assert jgn.pool_partition_spec(("replica", "data")) == P(("replica", "data"), None, None)
    assert jgn.pool_partition_spec() == P(None, None, None)
    with pytest.raises(TypeError, match="data_axis: expected None, a mesh axis name"):
        jgn.pool_partition_spec(0)


def test_sharded_allocation_places_pages_over_data():
    if len(jax.devices()) < 8:
        pytest.skip("needs 8 host devices (tests/conftest.py sets them)")
    mesh = jax.make_mesh((2, 4), ("data", "model"), devices=jax.devices()[:8])
    pools = jgn.allocate_pools(2, 6, 4, sharding=NamedSharding(mesh, jgn.pool_partition_spec("data")))
    for pool in pools:
        shards = pool.addressable_shards
        assert len(shards) == 8 and {s.data.shape for s in shards} == {(3, 4, 528)}
        # the four model ranks of one data shard hold the same pages
        by_pages = {}
        for shard in shards:
            by_pages.setdefault(shard.index[0].indices(6), set()).add(shard.device.id)
        assert sorted(len(v) for v in by_pages.values()) == [4, 4]
    stacked = jgn.allocate_pools(
        2, 6, 4, stacked=True, sharding=NamedSharding(mesh, jgn.pool_partition_spec("data", stacked=True))
    )
    assert {s.data.shape for s in stacked.addressable_shards} == {(2, 3, 4, 528)}


def test_stacked_slots_offsets_valid_slots_and_keeps_holes():
    slots = jnp.array([[0, 5, -1], [11, 12, 2**31 - 1]], jnp.int32)
    np.testing.assert_array_equal(np.asarray(jgn.stacked_slots(slots, 0, 12)), [[0, 5, -1], [11, -1, -1]])
    np.testing.assert_array_equal(np.asarray(jgn.stacked_slots(slots, 2, 12)), [[24, 29, -1], [35, -1, -1]])
    traced = jax.jit(jgn.stacked_slots, static_argnums=2)(slots, jnp.int32(1), 12)
    np.testing.assert_array_equal(np.asarray(traced), [[12, 17, -1], [23, -1, -1]])
    with pytest.raises(ValueError, match="layer: expected 0 <= layer < 2"):
        jgn.stacked_slots(slots, 2, 2**30)
    with pytest.raises(TypeError, match="layer: expected an int"):
        jgn.stacked_slots(slots, True, 12)
    with pytest.raises(TypeError, match="layer: expected dtype int32"):
        jgn.stacked_slots(slots, jnp.float32(1), 12)


def layer_inputs(num_layers, num_tokens, num_heads, seed=0):
    keys = jax.random.split(jax.random.key(seed), 2)
    latent = jax.random.normal(keys[0], (num_layers, num_tokens, 512)) * jnp.exp(
        jax.random.uniform(keys[1], (num_layers, num_tokens, 1), minval=-4, maxval=4)
    )
    q = jax.random.normal(keys[1], (num_layers, num_tokens, num_heads, 512)).astype(jnp.bfloat16)
    return latent, q


def test_scan_over_the_stacked_pool_equals_the_list_of_pools_and_updates_in_place():
    num_layers, num_pages, page_size, num_tokens, num_heads = 3, 16, 8, 6, 4
    tables = np.array([[3, 9, 1], [4, 0, 15]], np.int32)
    positions = jnp.array([0, 7, 8, 0, 9, 23], jnp.int32)
    token_req = jnp.array([0, 0, 0, 1, 1, 1], jnp.int32)
    slots = jgn.block_tables_to_slots(tables, positions, token_req, page_size)
    candidates = jnp.array([[0, 7, 8, -1], [0, 9, 23, 30]] * 3, jnp.int32)[:num_tokens]
    indices, topk_lens = jgn.pad_candidates(
        jgn.block_tables_to_candidate_slots(tables, candidates, token_req, page_size)
    )
    latent, q = layer_inputs(num_layers, num_tokens, num_heads)

    def list_step(pools, latent, q):
        outs = []
        for layer, pool in enumerate(pools):
            pools[layer] = jgn.write_kv(pool, latent[layer], slots)
            outs.append(jgn.sparse_mla(q[layer], pools[layer], indices, 1 / 16, topk_lens)[0])
        return pools, jnp.stack(outs)

    slots_per_layer = num_pages * page_size

    def scan_step(pool, latent, q):
        def layer(pool, inputs):
            latent, q, layer_id = inputs
            flat = pool.reshape(-1, pool.shape[-1])
            flat = jgn.write_kv(flat, latent, jgn.stacked_slots(slots, layer_id, slots_per_layer))
            out, _ = jgn.sparse_mla(
                q, flat, jgn.stacked_slots(indices, layer_id, slots_per_layer), 1 / 16, topk_lens
            )
            return flat.reshape(pool.shape), out

        return jax.lax.scan(layer, pool, (latent, q, jnp.arange(num_layers, dtype=jnp.int32)))

    pools, list_out = jax.jit(list_step, donate_argnums=0)(
        jgn.allocate_pools(num_layers, num_pages, page_size), latent, q
    )
    stacked, scan_out = jax.jit(scan_step, donate_argnums=0)(
        jgn.allocate_pools(num_layers, num_pages, page_size, stacked=True), latent, q
    )
    np.testing.assert_array_equal(np.asarray(stacked), np.stack([np.asarray(p) for p in pools]))
    np.testing.assert_array_equal(np.asarray(scan_out, np.float32), np.asarray(list_out, np.float32))
    assert np.asarray(stacked).any(axis=-1).sum() == num_layers * num_tokens  # every row written

    # At a size where a copy of the pool would dominate: compiled only, never allocated.
    big = jax.ShapeDtypeStruct((num_layers, 4096, page_size, 528), jnp.uint8)
    slots_per_layer = 4096 * page_size  # scan_step reads it at trace time
    memory = jax.jit(scan_step, donate_argnums=0).lower(big, latent, q).compile().memory_analysis()
    if memory is not None:  # the donated pool is the output and no copy of it, or of a layer, is made
        pool_bytes = jgn.pool_bytes(num_layers, 4096, page_size)
        assert memory.alias_size_in_bytes >= pool_bytes
        assert memory.temp_size_in_bytes < pool_bytes // num_layers // 4
