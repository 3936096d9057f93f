// The lab's launcher: the product's kernels (ffi/ours/sm90/sparse_mla_kernel.cuh, its
// kKernels table) plus the lab's variants. A comparison forces a product kernel by its
// kKernels name for a band of heads; with nothing forced the lab takes the product's own
// select_kernel(), so the lab never restates the table's selection.
#pragma once

#include <cstring>

#include "ours/sm90/sparse_mla_kernel.cuh"
#include "lean_kernel.cuh"

namespace jax_glm_nope::lab {

using sm90::KernelSpec;

// The product kernels a comparison forces, by their names in kKernels (checked below).
constexpr const char* kBlockShared = "block-shared";
constexpr const char* kCandidatesMajor = "candidates-major";

constexpr bool same_name(const char* a, const char* b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}
constexpr bool is_kernel_name(const char* name) {
  for (const KernelSpec& k : sm90::kKernels)
    if (same_name(k.name, name)) return true;
  return false;
}
static_assert(is_kernel_name(kBlockShared) && is_kernel_name(kCandidatesMajor),
              "the lab forces a kernel that kKernels no longer names");

// The operation (the product's params) and the lab's comparison knobs.
struct LabParams : sm90::SparseMlaParams {
  // Programmatic dependent launch (the product always launches with it).
  bool pdl = true;
  // A product kernel forced, by name, for every split length of the calls of a band of
  // heads (nullptr: the product's choice), e.g. the block-shared kernel up to 8 heads, the
  // candidates-major kernel at 9-32 heads whatever the split, or above 32 heads the
  // candidates-major kernel over groups of 32 (the kernel before the heads-major one).
  const char* up_to_8_heads = nullptr;
  const char* up_to_32_heads = nullptr;
  const char* above_32_heads = nullptr;
  // 33-128 heads: the candidate in the pipelined slot (kCandidate) instead.
  bool candidate = false;
};

// The pipelined slot: a candidate for the 33-128-head kernel, declared as the product
// declares its kernels, e.g. {"name", sm90::kGroupHeads + 1, kMaxHeads, 1, sm90::kAnySplit,
// true, true, {kernel, threads, smem bytes, heads per CTA}} with its header included above
// (in namespace jax_glm_nope::lab). Empty when no study is open: answered candidates leave
// their code to git history (README).
constexpr const KernelSpec* kCandidate = &kLeanCandidate;  // research/lean_softmax.md

// The product kernel `name` for `heads` at any split length; above 32 heads, a kernel of
// at most 32 heads per CTA runs its 32-head row, ceil(H / 32) CTAs per split.
inline const KernelSpec* product_kernel(const char* name, int heads) {
  for (int h : {heads, heads > sm90::kGroupHeads ? sm90::kGroupHeads : heads})
    for (const KernelSpec& k : sm90::kKernels)
      if (!std::strcmp(k.name, name) && h >= k.min_heads && h <= k.max_heads) return &k;
  return nullptr;
}

inline const KernelSpec* lab_kernel(const LabParams& p) {
  const int h = p.heads;
  if (h > sm90::kGroupHeads && p.candidate) return kCandidate;
  const char* forced = h <= 8 ? p.up_to_8_heads
                       : h <= sm90::kGroupHeads ? p.up_to_32_heads
                                                : p.above_32_heads;
  if (forced) return product_kernel(forced, h);
  return sm90::select_kernel(h, p.blocks_per_split, p.row_bytes);
}

// sm90::launch_kernel with PDL optional (the product's launcher always uses it): the same
// grid, then the combine when num_splits > 1.
inline cudaError_t lab_launch_kernel(const sm90::KernelLaunch& kernel,
                                     const sm90::SparseMlaParams& p, cudaStream_t stream,
                                     bool pdl) {
  if (pdl) return sm90::launch_kernel(kernel, p, stream);
  cudaError_t status = cudaFuncSetAttribute(
      kernel.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kernel.smem_bytes);
  if (status != cudaSuccess) return status;
  const dim3 grid(static_cast<unsigned>(int64_t(p.tokens) * p.num_splits),
                  (p.heads + kernel.group_heads - 1) / kernel.group_heads);
  kernel.kernel<<<grid, kernel.threads, kernel.smem_bytes, stream>>>(p);
  status = cudaGetLastError();
  if (status != cudaSuccess || p.num_splits == 1) return status;
  sm90::combine_kernel<<<dim3(p.tokens, p.heads), 128, 0, stream>>>(p);
  return cudaGetLastError();
}

// Is every knob at the product's value?
inline bool product_defaults(const LabParams& p) {
  return p.pdl && !p.up_to_8_heads && !p.up_to_32_heads && !p.above_32_heads && !p.candidate;
}

// The launch the selftest makes: the product's own launcher when every knob is at its
// default, else the kernel the knobs pick.
inline cudaError_t lab_launch(const LabParams& p, cudaStream_t stream) {
  const sm90::SparseMlaParams& op = p;
  if (product_defaults(p)) return sm90::launch_sparse_mla(op, stream);
  if (p.tokens == 0) return cudaSuccess;
  if (!sm90::valid_launch(op)) return cudaErrorInvalidValue;
  const KernelSpec* kernel = lab_kernel(p);
  if (kernel == nullptr) return cudaErrorInvalidValue;
  return lab_launch_kernel(kernel->launch, op, stream, p.pdl);
}

}  // namespace jax_glm_nope::lab
