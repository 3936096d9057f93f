"""A small GLM-NoPE model in JAX whose sparse-MLA layers read a compact FP8 KV cache.

The attention geometry is GLM-5.3-Flash's: absorbed MLA with NoPE,
``q_lora_rank`` 1536 -> ``num_heads`` x 256 nope dims, ``kv_lora_rank`` 512,
``v_head_dim`` 256; an indexer that scores pools of 4 tokens and returns 512 pools
(2048 tokens) plus the incomplete tail pool: 2051 candidate columns per query token.
Layers, hidden size, vocabulary and MLP width are free, so the model fits a CPU.

One function, :func:`forward`, is the whole model for one device shard. It runs
inside ``shard_map`` over a ``("data", "model")`` mesh: requests (and their KV
pages) split over ``data``, query heads split over ``model`` (the latent cache is
shared by every head, so each tensor-parallel rank holds the same rows, as MLA
engines do). ``attention`` picks how a layer attends:

- ``"compact"``: the new latent goes into the layer's 528-byte FP8 pool with
  ``write_kv``; candidates become global slots (``to_slots``), are padded to 2176
  columns (``pad_candidates``) and read by ``sparse_mla``.
- ``"dense"``: what JAX model code does today: a BF16 latent cache, the top-k
  turned into a dense ``[tokens, context]`` mask over every cached position.
- ``"dense-fp8"``: the dense-mask path over a float32 cache that holds exactly the
  values the compact rows decode to; it differs from ``"compact"`` only in how the
  candidates are read, so the two agree up to float32 rounding (which later layers'
  FP8 writes amplify; docs/example.md).
- ``"paired"``: the compact path, and beside it in the same step a second residual
  stream through the same weights whose layers read the compact path's own rows
  (dequantized) and its indexer's candidates with the dense mask. The two streams
  differ only in how attention reads the same values: no FP8 write downstream of the
  difference, no selection of its own, no second compiled program (docs/example.md).
- ``"none"``: the compact path with ``sparse_mla`` replaced by zeros (the indexer
  and KV writes still run), to measure the attention share of step time.
"""

from __future__ import annotations

import dataclasses
import math
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

import jax_glm_nope as jgn

ATTENTION_MODES = ("compact", "dense", "dense-fp8", "paired", "none")
DENSE_CACHE_DTYPES = {"dense": jnp.bfloat16, "dense-fp8": jnp.float32}


@dataclasses.dataclass(frozen=True)
class Config:
    vocab_size: int = 1024
    hidden_size: int = 512
    num_layers: int = 2
    ffn_size: int = 1024
    num_heads: int = 64  # GLM-5.3-Flash: 64 (8 per device at TP8)
    q_lora_rank: int = 1536
    qk_nope_head_dim: int = 256
    qk_rope_head_dim: int = 0  # NoPE
    v_head_dim: int = 256
    kv_lora_rank: int = jgn.HEAD_DIM  # 512: the cached latent, q.k and value width
    index_heads: int = 4
    index_head_dim: int = 64
    index_kpool: int = 4  # tokens per indexer pool
    topk_pools: int = 512  # 512 pools x 4 = 2048 tokens
    param_dtype: str = "float32"

    @property
    def num_candidates(self) -> int:
        """Indexer columns per query token: selected pools plus the 0-3 token tail."""
        return self.topk_pools * self.index_kpool + self.index_kpool - 1

    @property
    def sm_scale(self) -> float:
        # The softmax scale of the un-absorbed head, 1/sqrt(qk_nope + qk_rope) = 1/16;
        # absorbing W_uk into the query changes the dot product's width, not its value.
        return 1.0 / math.sqrt(self.qk_nope_head_dim + self.qk_rope_head_dim)


# --------------------------------------------------------------------------- weights


def _layer_shapes(cfg: Config) -> dict[str, tuple[tuple[int, ...], int | None]]:
    """name -> (shape, fan_in); fan_in None marks an RMSNorm gain (ones)."""
    d, h = cfg.hidden_size, cfg.num_heads
    return {
        "attn_norm": ((d,), None),
        "w_dq": ((d, cfg.q_lora_rank), d),  # q_a_proj
        "q_norm": ((cfg.q_lora_rank,), None),
        "w_uq": ((cfg.q_lora_rank, h, cfg.qk_nope_head_dim), cfg.q_lora_rank),  # q_b_proj
        "w_uk": ((h, cfg.qk_nope_head_dim, cfg.kv_lora_rank), cfg.qk_nope_head_dim),  # absorbed k_b
        "w_dkv": ((d, cfg.kv_lora_rank), d),  # kv_a_proj (no rope part)
        "kv_norm": ((cfg.kv_lora_rank,), None),
        "w_uv": ((h, cfg.kv_lora_rank, cfg.v_head_dim), cfg.kv_lora_rank),  # v_b
        "w_o": ((h, cfg.v_head_dim, d), h * cfg.v_head_dim),
        "w_iq": ((d, cfg.index_heads, cfg.index_head_dim), d),  # indexer query
        "w_ik": ((d, cfg.index_head_dim), d),  # indexer key (one per token, all heads)
        "w_iw": ((d, cfg.index_heads), d),  # indexer head weights
        "mlp_norm": ((d,), None),
        "w_gate": ((d, cfg.ffn_size), d),
        "w_up": ((d, cfg.ffn_size), d),
        "w_down": ((cfg.ffn_size, d), cfg.ffn_size),
    }


# Tensor parallelism splits the heads axis of these weights over "model".
HEAD_AXIS = {"w_uq": 1, "w_uk": 0, "w_uv": 0, "w_o": 0}


def init_params(cfg: Config, seed: int = 0) -> dict:
    """Random weights, scaled 1/sqrt(fan_in), in ``cfg.param_dtype`` (norm gains are ones).

    Host (numpy) arrays, drawn with numpy: every platform, mesh and process starts
    from the same numbers.
    """
    dtype = jnp.dtype(cfg.param_dtype)
    rng = np.random.default_rng(seed)

    def dense(shape, fan_in):
        return (rng.standard_normal(shape, np.float32) / np.float32(math.sqrt(fan_in))).astype(dtype)

    embed = dense((cfg.vocab_size, cfg.hidden_size), 1)
    layers = [
        {
            name: np.ones(shape, dtype) if fan_in is None else dense(shape, fan_in)
            for name, (shape, fan_in) in _layer_shapes(cfg).items()
        }
        for _ in range(cfg.num_layers)
    ]
    return {
        "embed": embed,
        "layers": layers,
        "final_norm": np.ones((cfg.hidden_size,), dtype),
        "lm_head": dense((cfg.hidden_size, cfg.vocab_size), cfg.hidden_size),
    }


def param_specs(params: dict) -> dict:
    """PartitionSpecs: heads over "model", everything else replicated."""

    def layer_spec(layer):
        specs = {}
        for name, w in layer.items():
            axes = [None] * w.ndim
            if name in HEAD_AXIS:
                axes[HEAD_AXIS[name]] = "model"
            specs[name] = P(*axes)
        return specs

    return {
        "embed": P(),
        "layers": [layer_spec(layer) for layer in params["layers"]],
        "final_norm": P(),
        "lm_head": P(),
    }


# --------------------------------------------------------------------------- caches


def init_caches(
    cfg: Config,
    attention: str,
    num_pages: int,
    page_size: int,
    num_shards: int = 1,
    fmt: jgn.RowFormat = jgn.COMPACT,
) -> list[dict]:
    """One KV pool and one indexer-key cache per layer (host arrays), ``num_pages`` pages per data shard.

    Compact pools are ``[num_shards * num_pages, page_size, row_bytes]`` uint8; each
    shard's first page is never handed to a request (engines write padding tokens
    there) and holds 0xFF bytes, NaN in float8_e4m3fn, to show that holes are never
    read. The dense paths keep ``[num_slots, 512]`` BF16 (or float32) latents.
    """
    num_slots = num_shards * num_pages * page_size
    caches = []
    for _ in range(cfg.num_layers):
        if attention in DENSE_CACHE_DTYPES:
            kv = np.zeros((num_slots, cfg.kv_lora_rank), DENSE_CACHE_DTYPES[attention])
        else:
            kv = np.zeros((num_shards * num_pages, page_size, fmt.bytes_per_token), np.uint8)
            kv[::num_pages] = 0xFF
        index_keys = np.zeros((num_slots, cfg.index_head_dim), jnp.bfloat16)
        caches.append({"kv": kv, "index_keys": index_keys})
    return caches


def cache_specs(caches: list[dict]) -> list[dict]:
    """Pages (slots) split over "data"; every "model" rank holds the same rows."""
    return [{name: P("data") for name in cache} for cache in caches]


def page_table(
    num_requests: int, max_len: int, page_size: int, num_shards: int = 1, seed: int = 0
) -> tuple[np.ndarray, int]:
    """``req_to_token [num_requests, max_len]`` int32 and pages per data shard.

    Requests split evenly over ``num_shards`` data shards; each shard owns its own
    pool, so the slots are shard-local. Pages are handed out in a shuffled order
    (page 0 kept back) so that a request's tokens are scattered through the pool, as
    in a serving engine after some churn.
    """
    if num_requests % num_shards:
        raise ValueError(f"batch: expected a multiple of the {num_shards} data shards, got {num_requests}")
    per_shard = num_requests // num_shards
    pages_per_request = -(-max_len // page_size)
    num_pages = 1 + per_shard * pages_per_request
    rng = np.random.default_rng(seed)
    table = np.empty((num_requests, max_len), np.int32)
    position = np.arange(max_len)
    for shard in range(num_shards):
        order = 1 + rng.permutation(num_pages - 1)
        for local in range(per_shard):
            pages = order[local * pages_per_request : (local + 1) * pages_per_request]
            table[shard * per_shard + local] = pages[position // page_size] * page_size + position % page_size
    return table, num_pages


# --------------------------------------------------------------------------- the model


def rms_norm(x, gain, eps=1e-6):
    x = x.astype(jnp.float32)
    return x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + eps) * gain.astype(jnp.float32)


def _mm(x, w, spec):
    return jnp.einsum(spec, x, w.astype(jnp.float32), preferred_element_type=jnp.float32)


def indexer_candidates(cfg: Config, x, layer, index_keys, req_to_token, positions):
    """Top pools of 4 tokens per query token -> request-local positions ``[R, C, 2051]``.

    Token scores follow DeepSeek-V3.2's lightning indexer, ``sum_h w_h relu(q_h . k)``;
    a pool scores the max of its 4 tokens. Only complete pools (all 4 tokens at or
    before the query position) can be selected; when fewer than ``topk_pools`` exist
    the missing groups are runs of four -1. The tail is the 0-3 tokens of the
    incomplete pool that ends at the query token. Columns:
    ``[topk_pools x 4 group positions | 3 tail positions]``, -1 where missing.
    """
    num_requests, chunk, _ = x.shape
    max_len = req_to_token.shape[1]
    kpool = cfg.index_kpool
    num_pools = max_len // kpool
    q = _mm(x, layer["w_iq"], "rcd,dne->rcne")
    weights = _mm(x, layer["w_iw"], "rcd,dn->rcn") / math.sqrt(cfg.index_heads)
    keys = index_keys[jnp.maximum(req_to_token, 0)].astype(jnp.float32)  # [R, L, e]
    logits = jnp.einsum("rcne,rle->rcnl", q, keys) / math.sqrt(cfg.index_head_dim)
    scores = jnp.einsum("rcnl,rcn->rcl", jax.nn.relu(logits), weights)  # [R, C, L]
    pool_scores = jnp.max(scores[..., : num_pools * kpool].reshape(num_requests, chunk, num_pools, kpool), -1)
    complete = (positions + 1) // kpool  # pools whose 4 tokens are all <= position
    pool_ids = jnp.arange(num_pools, dtype=jnp.int32)
    pool_scores = jnp.where(pool_ids < complete[..., None], pool_scores, -jnp.inf)
    k = min(cfg.topk_pools, num_pools)
    top_scores, top_pools = jax.lax.top_k(pool_scores, k)
    offsets = jnp.arange(kpool, dtype=jnp.int32)
    groups = top_pools[..., None] * kpool + offsets  # [R, C, k, 4]
    groups = jnp.where(jnp.isfinite(top_scores)[..., None], groups, -1).reshape(
        num_requests, chunk, k * kpool
    )
    missing = (cfg.topk_pools - k) * kpool  # the context holds fewer pools than topk_pools
    groups = jnp.pad(groups, ((0, 0), (0, 0), (0, missing)), constant_values=-1)
    tail = (complete * kpool)[..., None] + offsets[: kpool - 1]
    tail = jnp.where(tail <= positions[..., None], tail, -1)
    return jnp.concatenate([groups, tail], axis=-1).astype(jnp.int32)


def _write_rows(cache, rows, slots):
    """``cache[slots] = rows`` for a plain ``[num_slots, width]`` cache; slot -1 writes nothing."""
    target = jnp.where(slots >= 0, slots, cache.shape[0])
    return cache.at[target].set(rows.astype(cache.dtype), mode="drop")


def _dense_attention(cfg, q_abs, kv, req_to_token, local):
    """The dense cache (BF16 or float32), top-k as a mask over the whole context: ``[R, C, H, 512]``."""
    num_requests, chunk, _ = local.shape
    max_len = req_to_token.shape[1]
    keys = kv[jnp.maximum(req_to_token, 0)].astype(jnp.float32)  # [R, L, 512]
    rows = jnp.arange(num_requests)[:, None, None]
    cols = jnp.arange(chunk)[None, :, None]
    mask = jnp.zeros((num_requests, chunk, max_len), bool)
    mask = mask.at[rows, cols, jnp.where(local >= 0, local, max_len)].set(True, mode="drop")
    hi = jax.lax.Precision.HIGHEST
    scores = jnp.einsum("rchd,rld->rchl", q_abs.astype(jnp.float32), keys, precision=hi) * cfg.sm_scale
    scores = jnp.where(mask[:, :, None, :], scores, -jnp.inf)
    probs = jax.nn.softmax(scores, axis=-1)
    probs = jnp.where(mask[:, :, None, :], probs, 0.0)
    return jnp.einsum("rchl,rld->rchd", probs, keys, precision=hi).astype(jnp.bfloat16)


def forward(
    params,
    caches,
    tokens,
    positions,
    req_to_token,
    *,
    cfg: Config,
    attention: str,
    implementation: str | None,
    interpret: bool = False,
):
    """One step on one shard: ``tokens``/``positions`` ``[R, C]`` (C = 1 for decode).

    Returns the updated caches, the last token's logits ``[R, vocab]`` (float32) and
    the greedy next token ``[R]``. Heads are the local heads of this "model" rank;
    their partial outputs meet in a ``psum`` after ``o_proj``. With ``attention=
    "paired"`` the logits are ``[R, 2, vocab]``: the compact path's, then those of a
    second residual stream through the same weights whose layers attend with the dense
    mask over the compact path's own rows (dequantized) and candidates.
    """
    num_requests, chunk = tokens.shape
    num_tokens = num_requests * chunk
    token_req = jnp.repeat(jnp.arange(num_requests, dtype=jnp.int32), chunk)
    slots = jgn.to_slots(positions.reshape(num_tokens, 1), req_to_token, token_req)[:, 0]
    h = params["embed"][tokens].astype(jnp.float32)  # [R, C, D]
    h_dense = h if attention == "paired" else None
    new_caches = []
    for layer, cache in zip(params["layers"], caches, strict=True):
        x, q_abs = _queries(layer, h)  # q_abs [R, C, H, 512]
        latent = rms_norm(_mm(x, layer["w_dkv"], "rcd,dl->rcl"), layer["kv_norm"]).reshape(num_tokens, -1)
        index_key = _mm(x, layer["w_ik"], "rcd,de->rce").reshape(num_tokens, -1)

        index_keys = _write_rows(cache["index_keys"], index_key, slots)
        if attention in DENSE_CACHE_DTYPES:
            if attention == "dense-fp8":
                latent = jgn.dequantize(jgn.quantize(latent, jgn.COMPACT))
            kv = _write_rows(cache["kv"], latent, slots)
        else:
            kv = jgn.write_kv(cache["kv"], latent, slots)
        new_caches.append({"kv": kv, "index_keys": index_keys})

        local = indexer_candidates(cfg, x, layer, index_keys, req_to_token, positions)
        if attention in DENSE_CACHE_DTYPES:
            out = _dense_attention(cfg, q_abs, kv, req_to_token, local)
        else:
            candidates = jgn.to_slots(local.reshape(num_tokens, -1), req_to_token, token_req)
            padded, topk_lens = jgn.pad_candidates(candidates)
            q = q_abs.reshape(num_tokens, -1, cfg.kv_lora_rank)
            if attention in ("compact", "paired"):
                out, _ = jgn.sparse_mla(
                    q, kv, padded, cfg.sm_scale, topk_lens, implementation=implementation, interpret=interpret
                )
            else:  # "none": zeros that still depend on the candidates, so the indexer runs
                keep = (jnp.sum(padded).astype(jnp.float32) * 0.0).astype(jnp.bfloat16)
                out = jnp.zeros(q.shape, jnp.bfloat16) + keep
            out = out.reshape(q_abs.shape)
        h = _layer_rest(layer, h, out)
        if h_dense is not None:  # the same rows and candidates, read with the dense mask
            _, q_dense = _queries(layer, h_dense)
            values = jgn.dequantize(kv.reshape(-1, kv.shape[-1]))  # [num_slots, 512] float32
            h_dense = _layer_rest(layer, h_dense, _dense_attention(cfg, q_dense, values, req_to_token, local))
    logits = _logits(params, h)
    next_token = jnp.argmax(logits, axis=-1).astype(jnp.int32)
    if h_dense is not None:
        logits = jnp.stack([logits, _logits(params, h_dense)], axis=1)
    return new_caches, logits, next_token


def _queries(layer, h):
    """``(x, q_abs)``: a layer's normalised input and its absorbed bf16 queries ``[R, C, H, 512]``."""
    x = rms_norm(h, layer["attn_norm"])
    q_lora = rms_norm(_mm(x, layer["w_dq"], "rcd,dq->rcq"), layer["q_norm"])
    q_nope = _mm(q_lora, layer["w_uq"], "rcq,qhn->rchn")
    return x, _mm(q_nope, layer["w_uk"], "rchn,hnl->rchl").astype(jnp.bfloat16)


def _layer_rest(layer, h, out):
    """After attention: ``W_uv``, the row-parallel ``o_proj`` (psum over "model"), the MLP."""
    v = _mm(out.astype(jnp.float32), layer["w_uv"], "rchl,hlv->rchv")
    h = h + jax.lax.psum(_mm(v, layer["w_o"], "rchv,hvd->rcd"), "model")
    x = rms_norm(h, layer["mlp_norm"])
    gate = _mm(x, layer["w_gate"], "rcd,df->rcf")
    up = _mm(x, layer["w_up"], "rcd,df->rcf")
    return h + _mm(jax.nn.silu(gate) * up, layer["w_down"], "rcf,fd->rcd")


def _logits(params, h):
    return _mm(rms_norm(h[:, -1], params["final_norm"]), params["lm_head"], "rd,dv->rv")


def make_mesh(data: int, model: int, devices=None) -> Mesh:
    """A ``("data", "model")`` mesh over the first ``data * model`` devices, row-major.

    ``devices`` (default ``jax.devices()``) may be an array already laid out, e.g. by
    ``mesh_utils.create_hybrid_device_mesh`` so that "model" stays inside a host.
    """
    devices = np.asarray(jax.devices() if devices is None else devices).reshape(-1)
    if data * model > devices.size:
        raise ValueError(
            f"devices: a {data} x {model} mesh needs {data * model} devices, found {devices.size}"
        )
    return Mesh(devices[: data * model].reshape(data, model), ("data", "model"))


def make_step(
    cfg: Config,
    mesh: Mesh,
    params,
    caches,
    *,
    attention: str,
    implementation: str | None,
    interpret: bool = False,
):
    """The jitted, sharded step; the caches (argument 1) are donated and updated in place."""
    if attention not in ATTENTION_MODES:
        raise ValueError(f"attention: expected one of {ATTENTION_MODES}, got {attention!r}")
    if cfg.num_heads % mesh.shape["model"]:
        raise ValueError(
            f"heads: expected a multiple of the {mesh.shape['model']}-way model axis, got {cfg.num_heads}"
        )
    body = partial(forward, cfg=cfg, attention=attention, implementation=implementation, interpret=interpret)
    batch = P("data")
    sharded = jax.shard_map(
        body,
        mesh=mesh,
        in_specs=(param_specs(params), cache_specs(caches), batch, batch, batch),
        out_specs=(cache_specs(caches), batch, batch),
        # JAX's Pallas *interpreter* (a CPU test mode) fails JAX's own varying-axes check
        # inside shard_map; every compiled path runs with the check on.
        check_vma=not interpret,
    )
    return jax.jit(sharded, donate_argnums=(1,))


if __name__ == "__main__":
    # A library module: say what it is and what runs it, rather than exit in silence.
    cfg = Config()
    print(__doc__.split("\n\n")[0])
    print(
        f"Default geometry: {cfg.num_layers} layers, hidden {cfg.hidden_size}, {cfg.num_heads} heads, "
        f"{cfg.num_candidates} candidates per token; attention modes {', '.join(ATTENTION_MODES)}."
    )
    print("It is imported by decode_loop.py; run: python examples/decode_loop.py --help")
