// GLM53_NOPE split-K decode (T <= 64): FlashInfer 0.7.4's
// sparse_mla_decode_dsv3_2_kernel<GLM53_NOPE, H> over candidate windows, then its
// merge kernel. Scratch (mid_out, mid_lse) arrives as extra XLA result buffers,
// sized in Python by jax_glm_nope.native.targets.flashinfer_scratch_shapes; nothing is allocated here,
// so XLA may capture the call in a command buffer.
#include <cuda_runtime.h>

#include <cstdint>

#include "flashinfer/sm120/sm120_common.h"

#if JAX_GLM_NOPE_WITH_FLASHINFER
#include <flashinfer/attention/sparse_mla_sm120/execution/attention_plan.h>

#include <flashinfer/attention/sparse_mla_sm120/execution/merge.cuh>
#include <flashinfer/attention/sparse_mla_sm120/kernels/dsv32_fp8/decode.cuh>
#include <flashinfer/attention/sparse_mla_sm120/model/kv_cache_traits.cuh>
#endif

namespace jax_glm_nope::flashinfer_sm120 {
namespace {

#if JAX_GLM_NOPE_WITH_FLASHINFER
namespace fi = flashinfer::sparse_mla_sm120;

constexpr ModelType kModel = ModelType::GLM53_NOPE;
using KV = ::KVCacheTraits<kModel>;

static_assert(fi::DSV32_CAND_WINDOW == kCandidateWindow, "FlashInfer changed its decode window");
static_assert(KV::D_QK == layout::kHeadDim && KV::D_V == layout::kHeadDim,
              "GLM53_NOPE reads 512-wide latents");
static_assert(KV::BYTES_PER_TOKEN == layout::kCompactRowBytes, "GLM53_NOPE rows are 528 bytes");
static_assert(fi::execution::decode_scratch_heads(8) == decode_scratch_heads(8) &&
                  fi::execution::decode_scratch_heads(24) == decode_scratch_heads(24) &&
                  fi::execution::decode_scratch_heads(128) == decode_scratch_heads(128),
              "the scratch rule mirrored in Python must be FlashInfer's");

// Each inactive split still costs a block launch, so pick how many 64-candidate
// windows one block walks: the largest count that keeps the grid within three
// waves and wastes the least of its last wave. Deterministic per (shape, GPU).
int choose_windows_per_block(int tokens, int head_blocks, int windows, int sm_count) {
  int best = 1;
  double best_idle = 2.0;
  for (int per_block = 1; per_block <= windows; ++per_block) {
    const int64_t splits = (windows + per_block - 1) / per_block;
    const int64_t blocks = int64_t(tokens) * head_blocks * splits;
    const int64_t waves = (blocks + sm_count - 1) / sm_count;
    if (waves > 3) continue;
    const double idle = double(waves) - double(blocks) / sm_count;
    if (idle < best_idle - 1e-6 || (idle < best_idle + 1e-6 && per_block > best)) {
      best_idle = idle;
      best = per_block;
    }
  }
  return best;
}

struct DecodeCall {
  const bf16* q;
  const uint8_t* pool;
  const int32_t* indices;
  const int32_t* topk_lens;
  bf16* out;
  float* lse;
  bf16* mid_out;
  float* mid_lse;
  AttentionShape shape;
  int splits;
  int windows_per_block;
  float sm_scale;
};

template <int kHeads>  // 0: FlashInfer's runtime-head-count instantiation
cudaError_t launch(const DecodeCall& c, cudaStream_t stream) {
  constexpr int kPageSize = 64;  // a flat pool seen as pages with no gap between them
  auto kernel = fi::sparse_mla_decode_dsv3_2_kernel<kModel, kHeads>;
  constexpr int smem_bytes = fi::Dsv32DecodeSmem<kModel>::LAUNCH_BYTES;
  cudaError_t status =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
  if (status != cudaSuccess) return status;
  const int heads = c.shape.heads;
  const int head_blocks = (heads + ::HPB - 1) / ::HPB;
  kernel<<<dim3(c.shape.tokens, head_blocks, c.splits), fi::DSV32_BLOCK_THREADS, smem_bytes,
           stream>>>(c.q, c.pool, c.indices, c.mid_out, c.mid_lse, c.topk_lens, c.shape.tokens,
                     heads, c.shape.topk, c.splits, c.windows_per_block, c.sm_scale,
                     size_t(kPageSize) * c.shape.row_bytes, size_t(c.shape.topk), c.shape.row_bytes,
                     flashinfer::uint_fastdiv(uint32_t(kPageSize)));
  status = cudaGetLastError();
  if (status != cudaSuccess) return status;
  constexpr int kMergeThreads = 64;
  auto merge = fi::sparse_mla_decode_dsv4_merge_kernel<kHeads, KV::D_V, kMergeThreads,
                                                       KV::D_V / kMergeThreads>;
  merge<<<dim3(c.shape.tokens, heads), kMergeThreads, size_t(c.splits) * sizeof(float), stream>>>(
      c.mid_out, c.mid_lse, c.out, c.lse, /*attn_sink=*/nullptr, c.shape.tokens, c.splits, heads,
      head_blocks * ::HPB, size_t(heads), kLn2);
  return cudaGetLastError();
}
#endif  // JAX_GLM_NOPE_WITH_FLASHINFER

ffi::Error decode_impl(cudaStream_t stream, int32_t device, ffi::Buffer<ffi::BF16> q,
                       ffi::Buffer<ffi::U8> pool, ffi::Buffer<ffi::S32> indices,
                       ffi::Buffer<ffi::S32> topk_lens, float sm_scale,
                       ffi::ResultBuffer<ffi::BF16> out, ffi::ResultBuffer<ffi::F32> lse,
                       ffi::ResultBuffer<ffi::BF16> mid_out, ffi::ResultBuffer<ffi::F32> mid_lse) {
  DeviceArch arch;
  if (auto e = check_arch(device, &arch); e.failure()) return e;
#if JAX_GLM_NOPE_WITH_FLASHINFER
  AttentionShape shape;
  if (auto e = check_attention(q, pool, indices, topk_lens, *out, *lse, &shape); e.failure())
    return e;
  if (shape.tokens > kMaxDecodeTokens)
    return ffi::Error::InvalidArgument("q: the decode target takes T <= 64 tokens, got T = " +
                                       std::to_string(shape.tokens));
  const int64_t t = shape.tokens, sh = decode_scratch_heads(shape.heads);
  const int64_t splits = decode_splits(shape.topk);
  if (auto e = check_shape(*mid_out, "mid_out", {t, sh, splits, layout::kHeadDim}); e.failure())
    return e;
  if (auto e = check_shape(*mid_lse, "mid_lse", {t, sh, splits}); e.failure()) return e;
  if (auto e = check_aligned(*mid_out, "mid_out"); e.failure()) return e;
  if (auto e = check_aligned(*mid_lse, "mid_lse"); e.failure()) return e;
  if (shape.tokens == 0) return ffi::Error::Success();
  const int head_blocks = (shape.heads + 15) / 16;
  DecodeCall call{
      reinterpret_cast<const bf16*>(q.typed_data()),
      pool.typed_data(),
      indices.typed_data(),
      topk_lens.typed_data(),
      reinterpret_cast<bf16*>(out->typed_data()),
      lse->typed_data(),
      reinterpret_cast<bf16*>(mid_out->typed_data()),
      mid_lse->typed_data(),
      shape,
      static_cast<int>(splits),
      choose_windows_per_block(shape.tokens, head_blocks, static_cast<int>(splits), arch.sm_count),
      sm_scale};
  // FlashInfer's head table: dedicated kernels for 8/16/32/64 heads, the
  // runtime-head kernel (0) for every other count up to 128.
  const cudaError_t status = fi::execution::visit_decode_heads<kModel>(
      shape.heads, [&](auto heads) { return launch<decltype(heads)::value>(call, stream); });
  return cuda_error(status, "GLM53_NOPE decode launch");
#else
  return ffi::Error(ffi::ErrorCode::kUnimplemented, kBuiltWithoutFlashInfer);
#endif
}

}  // namespace
}  // namespace jax_glm_nope::flashinfer_sm120

extern "C" int jax_glm_nope_flashinfer_decode_scratch_heads(int heads) {
  return jax_glm_nope::flashinfer_sm120::decode_scratch_heads(heads);
}
extern "C" int jax_glm_nope_flashinfer_decode_splits(int topk) {
  return jax_glm_nope::flashinfer_sm120::decode_splits(topk);
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(JaxGlmNopeFlashInferSm120Decode, jax_glm_nope::flashinfer_sm120::decode_impl,
                              jax_glm_nope::bind_attention()
                                  .Ret<xla::ffi::Buffer<xla::ffi::BF16>>()  // out
                                  .Ret<xla::ffi::Buffer<xla::ffi::F32>>()   // lse
                                  .Ret<xla::ffi::Buffer<xla::ffi::BF16>>()  // mid_out
                                  .Ret<xla::ffi::Buffer<xla::ffi::F32>>(),  // mid_lse
                              {xla::ffi::Traits::kCmdBufferCompatible});
