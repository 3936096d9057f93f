// Our SM90 (Hopper, sm_90a) sparse-MLA attention, implementation="cuda": the XLA FFI
// handler over the kernels of sparse_mla_kernel.cuh (1 <= H <= 128).
//
// Results: out [T, H, 512] bf16, lse [T, H] f32, then the split scratch part_out
// f32 [T, P, H, 512] and part_lse f32 [T, P, H] with P = scratch_splits(S): S splits
// per token when S > 1, P = 0 when the kernel writes out/lse itself. The handler
// reads S from part_lse's shape, so Python picks the rule (batch invariant:
// jax_glm_nope_sm90_num_splits; batch sized: jax_glm_nope_sm90_batch_num_splits) and
// sizes the scratch; nothing is allocated here, so XLA may capture the call in a
// command buffer.
#include <cuda_runtime.h>

#include <string>

#include "common/attention_operands.h"
#include "ours/sm90/sparse_mla_kernel.cuh"

namespace jax_glm_nope::sm90 {
namespace {

ffi::Error sparse_mla_impl(cudaStream_t stream, int32_t device, ffi::Buffer<ffi::BF16> q,
                           ffi::Buffer<ffi::U8> pool, ffi::Buffer<ffi::S32> indices,
                           ffi::Buffer<ffi::S32> topk_lens, float sm_scale,
                           ffi::ResultBuffer<ffi::BF16> out, ffi::ResultBuffer<ffi::F32> lse,
                           ffi::ResultBuffer<ffi::F32> part_out,
                           ffi::ResultBuffer<ffi::F32> part_lse) {
  DeviceArch arch;
  if (auto e = query_device(device, &arch); e.failure()) return e;
  if (arch.major != 9 || arch.minor != 0)
    return ffi::Error(ffi::ErrorCode::kUnimplemented,
                      "the cuda sparse-MLA kernel is built for sm_90a (compute capability 9.0); "
                      "this device has compute capability " +
                          std::to_string(arch.major) + "." + std::to_string(arch.minor));
  AttentionShape shape;
  if (auto e = check_attention(q, pool, indices, topk_lens, *out, *lse, &shape,
                               /*lens_may_be_empty=*/true);
      e.failure())
    return e;
  const auto lse_dims = part_lse->dimensions();
  if (lse_dims.size() != 3)
    return ffi::Error::InvalidArgument("part_lse: expected f32 [T, P, H], got " +
                                       shape_string(lse_dims));
  const int64_t t = shape.tokens, h = shape.heads, scratch = lse_dims[1];
  const int splits = scratch == 0 ? 1 : static_cast<int>(scratch);
  if (scratch == 1 || scratch < 0 || scratch > num_blocks(shape.topk) ||
      !canonical_splits(shape.topk, splits))
    return ffi::Error::InvalidArgument(
        "part_lse: P = " + std::to_string(scratch) + " is not a split count for K = " +
        std::to_string(shape.topk) + " (0, or S >= 2 with S = ceil(B / ceil(B / S)), B = " +
        std::to_string(num_blocks(shape.topk)) + ")");
  if (auto e = check_shape(*part_lse, "part_lse", {t, scratch, h}); e.failure()) return e;
  if (auto e = check_shape(*part_out, "part_out", {t, scratch, h, layout::kHeadDim});
      e.failure())
    return e;
  if (auto e = check_aligned(*part_out, "part_out"); e.failure()) return e;
  if (auto e = check_aligned(*part_lse, "part_lse"); e.failure()) return e;
  if (shape.tokens == 0) return ffi::Error::Success();

  SparseMlaParams p;
  p.q = reinterpret_cast<const __nv_bfloat16*>(q.typed_data());
  p.pool = pool.typed_data();
  p.indices = indices.typed_data();
  p.topk_lens = topk_lens.element_count() == 0 ? nullptr : topk_lens.typed_data();
  p.out = reinterpret_cast<__nv_bfloat16*>(out->typed_data());
  p.lse = lse->typed_data();
  p.part_out = scratch ? part_out->typed_data() : nullptr;
  p.part_lse = scratch ? part_lse->typed_data() : nullptr;
  p.num_slots = shape.num_slots;
  p.row_bytes = shape.row_bytes;
  p.tokens = shape.tokens;
  p.heads = shape.heads;
  p.topk = shape.topk;
  p.num_splits = splits;
  p.blocks_per_split = blocks_per_split_of(shape.topk, splits);
  p.sm_scale = sm_scale;
  return cuda_error(launch_sparse_mla(p, stream), "sm_90a sparse-MLA launch");
}

}  // namespace
}  // namespace jax_glm_nope::sm90

// The split rules and the scratch size, for Python to mirror and test against.
extern "C" int jax_glm_nope_sm90_num_splits(int heads, int topk) {
  return jax_glm_nope::sm90::invariant_num_splits(heads, topk);
}
extern "C" int jax_glm_nope_sm90_batch_num_splits(int tokens, int heads, int topk,
                                                  int sm_count) {
  return jax_glm_nope::sm90::batch_num_splits(tokens, heads, topk, sm_count);
}
extern "C" int jax_glm_nope_sm90_scratch_splits(int splits) {
  return jax_glm_nope::sm90::scratch_splits(splits);
}
// The kernel table (kKernels) row by row, the one source Python reads for the docs' table,
// the tests, its grid rule and the kernel a call reaches: nothing restates the rows.
struct JaxGlmNopeSm90KernelRow {
  const char* name;                                    // rows of one kernel share it
  int32_t min_heads, max_heads;                        // the head counts it serves
  int32_t min_blocks_per_split, max_blocks_per_split;  // INT_MAX: no upper limit
  int32_t group_heads;  // heads per CTA: grid y = ceil(H / group_heads) per (token, split)
  int32_t ctas_per_sm;  // the resident CTAs per SM the batch-sized split rule counts on
  int32_t threads, smem_bytes;
  int32_t padded_rows, batch_invariant;
};
extern "C" int jax_glm_nope_sm90_kernel_count() {
  namespace sm90 = jax_glm_nope::sm90;
  return static_cast<int>(sizeof(sm90::kKernels) / sizeof(sm90::kKernels[0]));
}
// Fills `row` with row `index` of kKernels; false for an index outside the table.
extern "C" bool jax_glm_nope_sm90_kernel_row(int index, JaxGlmNopeSm90KernelRow* row) {
  namespace sm90 = jax_glm_nope::sm90;
  if (index < 0 || index >= jax_glm_nope_sm90_kernel_count() || row == nullptr) return false;
  const sm90::KernelSpec& k = sm90::kKernels[index];
  *row = {k.name,
          k.min_heads,
          k.max_heads,
          k.min_blocks_per_split,
          k.max_blocks_per_split,
          k.launch.group_heads,
          sm90::ctas_per_sm(k.min_heads),
          k.launch.threads,
          k.launch.smem_bytes,
          k.padded_rows,
          k.batch_invariant};
  return true;
}
// The row (index into kKernels) the launcher takes for (heads, topk, splits) over 528-byte
// rows (656-byte rows take the same), or -1 for a call it refuses (heads outside 1-128, a
// split count that is not canonical).
extern "C" int jax_glm_nope_sm90_kernel_index(int heads, int topk, int splits) {
  namespace sm90 = jax_glm_nope::sm90;
  if (topk < 1 || !sm90::canonical_splits(topk, splits)) return -1;
  const sm90::KernelSpec* kernel =
      sm90::select_kernel(heads, sm90::blocks_per_split_of(topk, splits));
  return kernel ? static_cast<int>(kernel - sm90::kKernels) : -1;
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(JaxGlmNopeSm90SparseMla, jax_glm_nope::sm90::sparse_mla_impl,
                              jax_glm_nope::bind_attention()
                                  .Ret<xla::ffi::Buffer<xla::ffi::BF16>>()  // out
                                  .Ret<xla::ffi::Buffer<xla::ffi::F32>>()   // lse
                                  .Ret<xla::ffi::Buffer<xla::ffi::F32>>()   // part_out
                                  .Ret<xla::ffi::Buffer<xla::ffi::F32>>(),  // part_lse
                              {xla::ffi::Traits::kCmdBufferCompatible});
