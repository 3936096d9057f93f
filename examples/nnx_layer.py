"""A GLM sparse-MLA attention layer in Flax NNX over the compact 528-byte FP8 KV cache.

    pip install flax && python examples/nnx_layer.py

The layer owns the projections (NNX parameters); the KV pool is not module state but
an array passed in and returned, so the jitted step donates it and ``write_kv``
updates it in place (one pool per layer: ``jgn.allocate_pools``). Per call:

1. ``q_abs [T, H, 512]``: ``q_a -> RMSNorm -> q_b`` gives each head's 256-wide NoPE
   query; ``W_uk`` is absorbed into it, so the query is compared with the 512-wide
   latent directly;
2. ``c_kv [T, 512]``: ``kv_a -> RMSNorm``, the latent the cache holds, written as one
   528-byte row per token at ``slots`` (``write_kv``; -1 slots are dropped);
3. the candidates (the indexer's request-local positions ``[T, C]``, -1 for a missing
   one) become slots through the block table (``block_tables_to_candidate_slots``),
   are padded to a multiple of 128 columns (``pad_candidates``) and read by
   ``sparse_mla`` with ``sm_scale = 1/16`` (GLM's ``1/sqrt(qk_nope_head_dim +
   qk_rope_head_dim) = 1/sqrt(256 + 0)``; absorbing ``W_uk`` changes the width of the
   dot product, not its value);
4. ``W_uv`` per head, then ``o_proj`` back to the hidden size.

The indexer that picks the candidates, RoPE-free positions and the MLP are the model's
(see ``glm_nope_model.py`` for a whole model); this file is the attention layer alone.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from flax import nnx

import jax_glm_nope as jgn

KV_LORA_RANK = jgn.HEAD_DIM  # 512: the cached latent, q.k and value width


class GLMSparseMLA(nnx.Module):
    """GLM NoPE sparse MLA: ``(x [T, hidden], pool, ...) -> (y [T, hidden], pool)``."""

    def __init__(
        self,
        hidden_size: int,
        num_heads: int,
        *,
        q_lora_rank: int = 1536,
        qk_nope_head_dim: int = 256,
        v_head_dim: int = 256,
        rngs: nnx.Rngs,
    ):
        self.num_heads = num_heads
        self.sm_scale = 1.0 / (qk_nope_head_dim + 0) ** 0.5  # NoPE: no rope dims; 1/16 for GLM
        init = nnx.initializers.lecun_normal()
        self.q_a = nnx.Linear(hidden_size, q_lora_rank, use_bias=False, rngs=rngs)
        self.q_norm = nnx.RMSNorm(q_lora_rank, rngs=rngs)
        self.q_b = nnx.Linear(q_lora_rank, num_heads * qk_nope_head_dim, use_bias=False, rngs=rngs)
        self.w_uk = nnx.Param(init(rngs.params(), (num_heads, qk_nope_head_dim, KV_LORA_RANK)))
        self.kv_a = nnx.Linear(hidden_size, KV_LORA_RANK, use_bias=False, rngs=rngs)
        self.kv_norm = nnx.RMSNorm(KV_LORA_RANK, rngs=rngs)
        self.w_uv = nnx.Param(init(rngs.params(), (num_heads, KV_LORA_RANK, v_head_dim)))
        self.o_proj = nnx.Linear(num_heads * v_head_dim, hidden_size, use_bias=False, rngs=rngs)

    def queries_and_latent(self, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        """``q_abs [T, H, 512]`` bfloat16 and ``c_kv [T, 512]`` float32."""
        q_nope = self.q_b(self.q_norm(self.q_a(x))).reshape(x.shape[0], self.num_heads, -1)
        q_abs = jnp.einsum("thn,hnl->thl", q_nope, self.w_uk[...]).astype(jnp.bfloat16)
        return q_abs, self.kv_norm(self.kv_a(x))

    def output(self, attended: jax.Array) -> jax.Array:
        """``attended [T, H, 512]`` (the softmax-weighted latents) -> ``[T, hidden]``."""
        v = jnp.einsum("thl,hlv->thv", attended.astype(jnp.float32), self.w_uv[...])
        return self.o_proj(v.reshape(v.shape[0], -1))

    def __call__(
        self,
        x: jax.Array,
        pool: jax.Array,
        slots: jax.Array,
        candidate_slots: jax.Array,
        *,
        implementation: jgn.SparseMlaImplementation | None = None,
    ) -> tuple[jax.Array, jax.Array]:
        """``x [T, hidden]``; ``pool [pages, page_size, 528]`` uint8; ``slots [T]`` int32,
        where this call's tokens are written; ``candidate_slots [T, C]`` int32 slots each
        token attends (-1: none). Returns ``y [T, hidden]`` and the updated pool."""
        q_abs, c_kv = self.queries_and_latent(x)
        pool = jgn.write_kv(pool, c_kv, slots)  # in place when the caller donates the pool
        indices, topk_lens = jgn.pad_candidates(candidate_slots)
        attended, _ = jgn.sparse_mla(
            q_abs, pool, indices, self.sm_scale, topk_lens, implementation=implementation
        )
        return self.output(attended), pool


@functools.partial(nnx.jit, donate_argnums=1)
def step(layer, pool, x, block_tables, positions, token_req, candidate_positions):
    """One jitted call: request-local positions -> slots, the layer, the pool donated."""
    page_size = pool.shape[1]
    slots = jgn.block_tables_to_slots(block_tables, positions, token_req, page_size)
    candidates = jgn.block_tables_to_candidate_slots(block_tables, candidate_positions, token_req, page_size)
    return layer(x, pool, slots, candidates)


def causal_candidates(positions: jax.Array, width: int) -> jax.Array:
    """The ``width`` most recent positions up to each token's own (-1 before 0): a stand-in
    for the indexer's top-k in this demo."""
    offsets = jnp.arange(width, dtype=jnp.int32)[None, :]
    candidates = positions[:, None] - offsets
    return jnp.where(candidates >= 0, candidates, -1)


def main() -> None:
    hidden, heads, page_size, num_pages = 256, 8, 16, 8
    layer = GLMSparseMLA(hidden, heads, q_lora_rank=128, rngs=nnx.Rngs(0))
    (pool,) = jgn.allocate_pools(1, num_pages, page_size)
    block_tables = jnp.array([[3, 1, 6, -1], [0, 7, 2, 5]], jnp.int32)  # two requests' pages
    prompt = 20
    # prefill: both requests' first 20 tokens in one call
    positions = jnp.tile(jnp.arange(prompt, dtype=jnp.int32), 2)
    token_req = jnp.repeat(jnp.arange(2, dtype=jnp.int32), prompt)
    x = jax.random.normal(jax.random.key(1), (2 * prompt, hidden))
    y, pool = step(layer, pool, x, block_tables, positions, token_req, causal_candidates(positions, 32))
    print(f"prefill: y {y.shape} {y.dtype}, pool {pool.shape} {pool.dtype}")
    for t in range(prompt, prompt + 4):  # decode: one token per request
        positions = jnp.full((2,), t, jnp.int32)
        token_req = jnp.arange(2, dtype=jnp.int32)
        x = jax.random.normal(jax.random.key(t), (2, hidden))
        y, pool = step(layer, pool, x, block_tables, positions, token_req, causal_candidates(positions, 32))
        print(f"decode position {t}: |y| = {float(jnp.linalg.norm(y)):.4f}")
    written = int(jnp.any(pool != 0, axis=-1).sum())
    print(f"rows written: {written} of {pool.shape[0] * pool.shape[1]} slots ({pool.shape[-1]} B each)")


if __name__ == "__main__":
    main()
