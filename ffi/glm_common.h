// What the GLM53_NOPE decode and prefill handlers share: the architecture gate,
// the operand checks, and the FlashInfer facts the Python side mirrors.
//
// FlashInfer's GLM53_NOPE kernels (flashinfer-python 0.7.4, header-only under
// flashinfer/attention/sparse_mla_sm120/) assemble only for sm_120a / sm_121a,
// so these handlers first check the device and answer Unimplemented elsewhere.
#pragma once

#include <string>

#include "ffi_common.h"
#include "row_layout.h"

namespace jax_glm_nope::glm {

// FlashInfer's split-K decode walks candidates in windows of 64
// (DSV32_CAND_WINDOW); prefill needs K to be a whole number of such windows.
constexpr int kCandidateWindow = 64;
constexpr int kMaxDecodeTokens = 64;  // FlashInfer routes T <= 64 to split-K decode
constexpr int kMaxHeads = 128;

// Scratch of the split-K decode, mirrored by jax_glm_nope.bridge.scratch_shapes:
// mid_out bf16 [T, scratch_heads(H), splits(K), 512], mid_lse f32 [T, scratch_heads(H),
// splits(K)]. The rule is FlashInfer's decode_scratch_heads: the dedicated H = 8
// kernel keeps 8 rows; every other head count is padded to the 16-row MMA tile.
constexpr int decode_scratch_heads(int heads) { return heads == 8 ? 8 : (heads + 15) / 16 * 16; }
constexpr int decode_splits(int topk) { return (topk + kCandidateWindow - 1) / kCandidateWindow; }

inline ffi::Error check_arch(int32_t device, DeviceArch* arch) {
  if (auto error = query_device(device, arch); error.failure()) return error;
  if (arch->major == 12 && (arch->minor == 0 || arch->minor == 1)) return ffi::Error::Success();
  return ffi::Error(ffi::ErrorCode::kUnimplemented,
                    "FlashInfer's GLM53_NOPE kernels need an SM120 or SM121 GPU (sm_120a / "
                    "sm_121a, compute capability 12.0 or 12.1); device " +
                        std::to_string(device) + " is sm_" + std::to_string(arch->major) +
                        std::to_string(arch->minor) + " (compute capability " +
                        std::to_string(arch->major) + "." + std::to_string(arch->minor) +
                        "). Use backend='pallas' or backend='reference' on this GPU.");
}

struct AttentionShape {
  int tokens = 0;
  int heads = 0;
  int topk = 0;
  int row_bytes = 0;
  int64_t num_slots = 0;
};

// q [T, H, 512] bf16, pool [num_slots, 528 | 656] u8, indices [T, K] s32,
// topk_lens [T] s32, out [T, H, 512] bf16, lse [T, H] f32; all 16-byte aligned.
inline ffi::Error check_attention(ffi::Buffer<ffi::BF16> q, ffi::Buffer<ffi::U8> pool,
                                  ffi::Buffer<ffi::S32> indices, ffi::Buffer<ffi::S32> topk_lens,
                                  const ffi::Buffer<ffi::BF16>& out,
                                  const ffi::Buffer<ffi::F32>& lse, AttentionShape* shape) {
  const auto q_dims = q.dimensions();
  if (q_dims.size() != 3 || q_dims[2] != layout::kHeadDim || q_dims[1] < 1 || q_dims[1] > kMaxHeads)
    return ffi::Error::InvalidArgument("q: expected bfloat16 [T, H, 512] with 1 <= H <= 128, got " +
                                       shape_string(q_dims));
  const auto pool_dims = pool.dimensions();
  if (pool_dims.size() != 2 ||
      (pool_dims[1] != layout::kCompactRowBytes && pool_dims[1] != layout::kPaddedRowBytes))
    return ffi::Error::InvalidArgument("pool: expected uint8 [num_slots, 528 | 656], got " +
                                       shape_string(pool_dims));
  const auto index_dims = indices.dimensions();
  if (index_dims.size() != 2 || index_dims[0] != q_dims[0] || index_dims[1] < 1)
    return ffi::Error::InvalidArgument(
        "indices: expected int32 [T, K] with T = " + std::to_string(q_dims[0]) +
        " and K >= 1, got " + shape_string(index_dims));
  shape->tokens = static_cast<int>(q_dims[0]);
  shape->heads = static_cast<int>(q_dims[1]);
  shape->topk = static_cast<int>(index_dims[1]);
  shape->row_bytes = static_cast<int>(pool_dims[1]);
  shape->num_slots = pool_dims[0];
  const int64_t t = shape->tokens, h = shape->heads;
  if (auto e = check_shape(topk_lens, "topk_lens", {t}); e.failure()) return e;
  if (auto e = check_shape(out, "out", {t, h, layout::kHeadDim}); e.failure()) return e;
  if (auto e = check_shape(lse, "lse", {t, h}); e.failure()) return e;
  for (auto e : {check_aligned(q, "q"), check_aligned(pool, "pool"),
                 check_aligned(indices, "indices"), check_aligned(topk_lens, "topk_lens"),
                 check_aligned(out, "out"), check_aligned(lse, "lse")})
    if (e.failure()) return e;
  return ffi::Error::Success();
}

// The binding both GLM handlers start from: stream, device, q [T, H, 512] bf16,
// pool u8, indices s32, topk_lens s32, sm_scale; each appends its results.
inline auto bind_attention() {
  return ffi::Ffi::Bind()
      .Ctx<ffi::PlatformStream<cudaStream_t>>()
      .Ctx<ffi::DeviceOrdinal>()
      .Arg<ffi::Buffer<ffi::BF16>>()  // q
      .Arg<ffi::Buffer<ffi::U8>>()    // pool
      .Arg<ffi::Buffer<ffi::S32>>()   // indices
      .Arg<ffi::Buffer<ffi::S32>>()   // topk_lens
      .Attr<float>("sm_scale");
}

// What the GLM targets answer on an SM120/SM121 GPU when the library was built
// without FlashInfer's units (no FlashInfer headers, or no sm_120a/sm_121a).
constexpr const char* kBuiltWithoutGlm =
    "this build of the jax_glm_nope FFI bridge has no FlashInfer GLM53_NOPE code (it was built "
    "without flashinfer-python==0.7.4 or without sm_120a/sm_121a in its arch list): pip install "
    "flashinfer-python==0.7.4 and run `jax-glm-nope build-ffi --force`";

// FlashInfer reports base-2 LSE scaled by lse_scale; ln 2 makes it natural-log (SPEC 3).
constexpr float kLn2 = 0.693147180559945309417f;

}  // namespace jax_glm_nope::glm
