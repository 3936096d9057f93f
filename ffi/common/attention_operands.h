// Operand checks and the FFI binding every sparse-MLA handler of the library
// shares (ours for SM90, FlashInfer's for SM120): q [T, H, 512] bf16, a flat pool
// of 528- or 656-byte rows, indices [T, K], topk_lens [T], sm_scale; results out
// [T, H, 512] bf16 and lse [T, H] f32. Python validates user input before any of
// this runs; these checks guard the FFI contract itself (shapes, 16-B alignment).
#pragma once

#include <string>

#include "common/ffi_helpers.h"
#include "common/limits.h"
#include "common/row_layout.h"

namespace jax_glm_nope {

struct AttentionShape {
  int tokens = 0;
  int heads = 0;
  int topk = 0;
  int row_bytes = 0;
  int64_t num_slots = 0;
};

// q [T, H, 512] bf16, pool [num_slots, 528 | 656] u8, indices [T, K] s32,
// topk_lens [T] s32, out [T, H, 512] bf16, lse [T, H] f32; all 16-byte aligned. With
// `lens_may_be_empty`, topk_lens may also be [0]: every candidate counts (the handler
// passes no pointer), so no [T] constant reaches XLA, which would broadcast it in a
// kernel of its own before ours.
inline ffi::Error check_attention(ffi::Buffer<ffi::BF16> q, ffi::Buffer<ffi::U8> pool,
                                  ffi::Buffer<ffi::S32> indices, ffi::Buffer<ffi::S32> topk_lens,
                                  const ffi::Buffer<ffi::BF16>& out,
                                  const ffi::Buffer<ffi::F32>& lse, AttentionShape* shape,
                                  bool lens_may_be_empty = false) {
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
  const bool no_lens = lens_may_be_empty && topk_lens.dimensions().size() == 1 &&
                       topk_lens.dimensions()[0] == 0;
  if (!no_lens) {
    if (auto e = check_shape(topk_lens, "topk_lens", {t}); e.failure()) return e;
    if (auto e = check_aligned(topk_lens, "topk_lens"); e.failure()) return e;
  }
  if (auto e = check_shape(out, "out", {t, h, layout::kHeadDim}); e.failure()) return e;
  if (auto e = check_shape(lse, "lse", {t, h}); e.failure()) return e;
  for (auto e : {check_aligned(q, "q"), check_aligned(pool, "pool"),
                 check_aligned(indices, "indices"), check_aligned(out, "out"),
                 check_aligned(lse, "lse")})
    if (e.failure()) return e;
  return ffi::Error::Success();
}

// The binding every attention handler starts from: stream, device, q [T, H, 512] bf16,
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

}  // namespace jax_glm_nope
