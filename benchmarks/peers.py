"""The peers: FlashMLA's SM90 sparse decode (torch) and plain JAX, on the same buffers.

torch and flash_mla are imported only when the FlashMLA peer runs.
"""

from __future__ import annotations

import importlib.util

import jax
import jax.numpy as jnp

import jax_glm_nope
from benchmarks.cases import FLASHMLA_PAGE, Case, Inputs
from benchmarks.timing import Timing, TimingOptions, time_torch
from jax_glm_nope.candidates import active_candidates
from jax_glm_nope.layout import HEAD_DIM, KERNEL_ROW_BYTES

PLAIN_JAX_MAX_KEY_BYTES = 8 << 30  # plain JAX materialises T x K x 1 KiB of bf16 keys


def plain_jax(q, pool, indices, topk_lens, sm_scale):
    """What model code writes today: ``jnp.take`` the rows, dequantize, two einsums."""
    if topk_lens is None:
        topk_lens = jnp.full((indices.shape[0],), indices.shape[1], jnp.int32)
    active = active_candidates(indices, topk_lens, pool.shape[0])
    rows = jnp.take(pool, jnp.where(active, indices, 0), axis=0)
    keys = jnp.where(active[..., None], jax_glm_nope.dequantize(rows), 0).astype(jnp.bfloat16)
    scores = jnp.einsum("thd,tkd->thk", q, keys, preferred_element_type=jnp.float32) * sm_scale
    scores = jnp.where(active[:, None, :], scores, -jnp.inf)
    lse = jax.nn.logsumexp(scores, axis=-1)
    probs = jnp.exp(scores - jnp.where(jnp.isfinite(lse), lse, 0)[..., None]).astype(jnp.bfloat16)
    out = jnp.einsum("thk,tkd->thd", probs, keys, preferred_element_type=jnp.float32)
    return out.astype(jnp.bfloat16), lse


def plain_jax_unsupported(case: Case) -> str | None:
    key_bytes = case.tokens * case.candidates * HEAD_DIM * 2
    if key_bytes > PLAIN_JAX_MAX_KEY_BYTES:
        return f"would materialise {key_bytes / 2**30:.1f} GiB of bf16 keys"
    return None


class FlashMLA:
    """``flash_mla.flash_mla_with_kvcache`` (sgl-flash-mla 1.0.0), SM90 ``V32_NO_ROPE``
    sparse decode over the very same 528-byte rows, reached through DLPack.

    Heads are padded to 64 or 128 (the kernel takes no other count, as engines do at
    TP8); holes become -1 (the V3.2 path takes no ``topk_length``); K must be a
    multiple of 64. Only decode: its sparse prefill needs a BF16 copy of the KV.
    """

    HEADS = (64, 128)
    TOPK_MULTIPLE = 64

    @staticmethod
    def unavailable_reason() -> str | None:
        for module in ("torch", "triton", "flash_mla"):
            if importlib.util.find_spec(module) is None:
                return f"{module} is not installed (FlashMLA: sgl-flash-mla==1.0.0 --no-deps beside torch)"
        if jax.default_backend() != "gpu":
            return f"needs a CUDA GPU; JAX's backend is {jax.default_backend()!r}"
        return None

    def unsupported(self, case: Case) -> str | None:
        if case.mode != "decode":
            return "decode only: FlashMLA's sparse prefill reads a BF16 KV, not these rows"
        if case.candidates % self.TOPK_MULTIPLE:
            return f"K must be a multiple of {self.TOPK_MULTIPLE}, got {case.candidates}"
        return None

    def prepare(self, case: Case, pool: jax.Array, inputs: Inputs, sm_scale: float):
        """The R calls (one per index set), as closures over torch views of JAX buffers."""
        import flash_mla
        import torch

        heads = next(h for h in self.HEADS if h >= case.heads)
        q = jnp.pad(inputs.q, ((0, 0), (0, heads - case.heads), (0, 0)))
        q = torch.from_dlpack(jax.block_until_ready(q.reshape(case.tokens, 1, heads, HEAD_DIM)))
        cache = torch.from_dlpack(pool).view(-1, FLASHMLA_PAGE, 1, KERNEL_ROW_BYTES)
        num_slots = pool.shape[0]
        lens = inputs.topk_lens
        if lens is None:
            lens = jnp.full(inputs.indices.shape[:2], case.candidates, jnp.int32)
        masked = jax.vmap(lambda idx, n: jnp.where(active_candidates(idx, n, num_slots), idx, -1))(
            inputs.indices, lens
        )
        masked = torch.from_dlpack(jax.block_until_ready(masked))
        metadata = flash_mla.get_mla_metadata()[0]

        def call(r: int):
            return flash_mla.flash_mla_with_kvcache(
                q,
                cache,
                None,
                None,
                HEAD_DIM,
                metadata,
                softmax_scale=sm_scale,
                is_fp8_kvcache=True,
                indices=masked[r].view(case.tokens, 1, case.candidates),
                use_legacy=True,
                kv_format="V32_NO_ROPE",
            )

        return call

    def outputs(self, case: Case, call, r: int):
        """Index set r's ``(out [T, H, 512], lse [T, H])`` as numpy, padded heads dropped."""
        import torch

        out, lse = call(r)
        torch.cuda.synchronize()
        out = out.float().cpu().numpy().reshape(case.tokens, -1, HEAD_DIM)[:, : case.heads]
        lse = lse.float().cpu().numpy().reshape(case.tokens, -1)[:, : case.heads]  # [b, h, s_q=1]
        return out, lse

    def time(self, call, rotations: int, options: TimingOptions) -> Timing:
        return time_torch([lambda r=r: call(r) for r in range(rotations)], options)
