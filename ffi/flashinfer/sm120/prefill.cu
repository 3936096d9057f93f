// GLM53_NOPE prefill (K a multiple of 64, any T): FlashInfer 0.7.4's header-level
// prefill launchers, one CTA per token and head group, no scratch. The variant
// follows FlashInfer's own automatic order for these head counts: swapAB for 64
// and 128 heads, the single-group kernel for 8 and 16, the multi-group kernel
// for 32. Other head counts are padded to the next of these in Python.
#include <cuda_runtime.h>

#include <cstdint>

#include "flashinfer/sm120/sm120_common.h"

#if JAX_GLM_NOPE_WITH_FLASHINFER
#include <flashinfer/attention/sparse_mla_sm120/execution/prefill_launch.cuh>
#endif

namespace jax_glm_nope::flashinfer_sm120 {
namespace {

ffi::Error prefill_impl(cudaStream_t stream, int32_t device, ffi::Buffer<ffi::BF16> q,
                        ffi::Buffer<ffi::U8> pool, ffi::Buffer<ffi::S32> indices,
                        ffi::Buffer<ffi::S32> topk_lens, float sm_scale,
                        ffi::ResultBuffer<ffi::BF16> out, ffi::ResultBuffer<ffi::F32> lse) {
  DeviceArch arch;
  if (auto e = check_arch(device, &arch); e.failure()) return e;
#if JAX_GLM_NOPE_WITH_FLASHINFER
  namespace fi = flashinfer::sparse_mla_sm120;
  AttentionShape shape;
  if (auto e = check_attention(q, pool, indices, topk_lens, *out, *lse, &shape); e.failure())
    return e;
  if (shape.topk % kCandidateWindow != 0)
    return ffi::Error::InvalidArgument(
        "indices: the prefill target takes K a multiple of 64 (pad 2051 to 2112 or 2176), got "
        "K = " +
        std::to_string(shape.topk));
  const int h = shape.heads;
  if (h != 8 && h != 16 && h != 32 && h != 64 && h != 128)
    return ffi::Error::InvalidArgument(
        "q: the prefill target takes H in {8, 16, 32, 64, 128} (pad the heads), got H = " +
        std::to_string(h));
  if (shape.tokens == 0) return ffi::Error::Success();

  constexpr int kPageSize = 64;  // FlashInfer's launchers are instantiated for 64
  PrefillColdParams cold{};
  cold.sm_scale = sm_scale;
  cold.num_tokens = shape.tokens;
  cold.kv_stride_bytes = size_t(shape.row_bytes);  // inline-scale rows: flat, this pitch
  cold.out_lse_stride_elems = size_t(h);
  cold.topk = shape.topk;
  cold.topk_length = topk_lens.typed_data();
  cold.page_block_size = kPageSize;
  cold.lse_scale = kLn2;  // FlashInfer reports base-2 LSEs scaled by lse_scale: natural log
  const auto* q_ptr = reinterpret_cast<const bf16*>(q.typed_data());
  auto* out_ptr = reinterpret_cast<bf16*>(out->typed_data());
  const uint8_t* kv = pool.typed_data();
  const int32_t* idx = indices.typed_data();
  float* lse_ptr = lse->typed_data();
  constexpr ModelType kModel = ModelType::GLM53_NOPE;
  fi::PrefillLaunchResult result = false;
  if (h == 64 || h == 128)
    result =
        fi::dispatch_v32_swapab<kModel>(h, q_ptr, kv, idx, nullptr, out_ptr, lse_ptr, stream, cold);
  else if (h == 32)
    result =
        fi::dispatch_v32_mg<kModel>(h, q_ptr, kv, idx, nullptr, out_ptr, lse_ptr, stream, cold);
  else
    result =
        fi::dispatch_v32_sg<kModel>(h, q_ptr, kv, idx, nullptr, out_ptr, lse_ptr, stream, cold);
  if (!result.supported)
    return ffi::Error::InvalidArgument("FlashInfer has no GLM53_NOPE prefill kernel for H = " +
                                       std::to_string(h));
  if (result.error != cudaSuccess)
    return cuda_error(result.error, result.operation ? result.operation : "prefill launch");
  return cuda_error(cudaGetLastError(), "GLM53_NOPE prefill launch");
#else
  return ffi::Error(ffi::ErrorCode::kUnimplemented, kBuiltWithoutFlashInfer);
#endif
}

}  // namespace
}  // namespace jax_glm_nope::flashinfer_sm120

XLA_FFI_DEFINE_HANDLER_SYMBOL(JaxGlmNopeFlashInferSm120Prefill, jax_glm_nope::flashinfer_sm120::prefill_impl,
                              jax_glm_nope::bind_attention()
                                  .Ret<xla::ffi::Buffer<xla::ffi::BF16>>()  // out
                                  .Ret<xla::ffi::Buffer<xla::ffi::F32>>(),  // lse
                              {xla::ffi::Traits::kCmdBufferCompatible});
