// The lab's launcher: the product's kernels (ffi/ours/sm90/sparse_mla_kernel.cuh, its
// kKernels table) plus the lab's variants, picked by the comparison knobs the product
// does not have. With every knob at its default, lab_kernel() is the product's
// select_kernel() (the selftest checks it on every call it makes).
#pragma once

#include <cstring>

#include "ours/sm90/sparse_mla_kernel.cuh"
#include "lean_kernel.cuh"

namespace jax_glm_nope::lab {

using sm90::KernelSpec;

// The operation (the product's params) and the lab's comparison knobs.
struct LabParams : sm90::SparseMlaParams {
  // Programmatic dependent launch (the product always launches with it).
  bool pdl = true;
  // Up to 8 heads: the warp-private kernel where the product takes it (false: the
  // block-shared kernel there).
  bool warp_private = true;
  // The candidates-major kernel from `wgmma_from_heads` heads for splits of at least
  // `wgmma_min_blocks` blocks (the product: 9 and 4); otherwise the block-shared kernel.
  int wgmma_from_heads = 9;
  int wgmma_min_blocks = 4;
  // 33-128 heads: the heads-major kernel (false: the candidates-major kernel over groups
  // of 32 heads, the kernel before the heads-major one).
  bool heads_major = true;
  // 33-128 heads: the candidate in the pipelined slot (kCandidate) instead.
  bool hm_pipelined = false;
};

// The pipelined slot: a candidate for the 33-128-head kernel, declared as the product
// declares its kernels, e.g. {"name", sm90::kGroupHeads + 1, kMaxHeads, 1, sm90::kAnySplit,
// true, true, {kernel, threads, smem bytes, heads per CTA}} with its header included above
// (in namespace jax_glm_nope::lab). Empty when no study is open: answered candidates leave
// their code to git history (README).
constexpr const KernelSpec* kCandidate = &kLeanCandidate;  // research/lean_softmax.md

// The product kernel `name` for `heads` (any split length; above 32 heads the 32-head
// instantiation, which runs ceil(H / 32) CTAs per split).
inline const KernelSpec* product_kernel(const char* name, int heads) {
  const bool heads_major = !std::strncmp(name, "heads-major", 11);  // either heads-major kernel
  const int h = heads > sm90::kGroupHeads && !heads_major ? sm90::kGroupHeads : heads;
  for (const KernelSpec& k : sm90::kKernels)
    if (!std::strcmp(k.name, name) && h >= k.min_heads && h <= k.max_heads) return &k;
  return nullptr;
}

inline const KernelSpec* lab_kernel(const LabParams& p) {
  const int h = p.heads, bps = p.blocks_per_split;
  if (h <= 8) return product_kernel(p.warp_private && bps > 1 ? "warp-private" : "block-shared", h);
  if (h > sm90::kGroupHeads && p.heads_major) {
    if (p.hm_pipelined) return kCandidate;
    return product_kernel(bps >= sm90::kHpMinBlocks ? "heads-major-pipelined" : "heads-major", h);
  }
  const bool candidates_major =
      (h >= p.wgmma_from_heads && bps >= p.wgmma_min_blocks) || h > sm90::kGroupHeads;
  return product_kernel(candidates_major ? "candidates-major" : "block-shared", h);
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
  const LabParams d{};
  return p.pdl == d.pdl && p.warp_private == d.warp_private &&
         p.wgmma_from_heads == d.wgmma_from_heads && p.wgmma_min_blocks == d.wgmma_min_blocks &&
         p.heads_major == d.heads_major && p.hm_pipelined == d.hm_pipelined;
}

// The launch the selftest makes: the product's own launcher when every knob is at its
// default (after checking that the lab would have picked the same kernel), else the
// kernel the knobs pick.
inline cudaError_t lab_launch(const LabParams& p, cudaStream_t stream) {
  const sm90::SparseMlaParams& op = p;
  if (p.tokens == 0) return cudaSuccess;
  if (!sm90::valid_launch(op)) return cudaErrorInvalidValue;
  const KernelSpec* kernel = lab_kernel(p);
  if (kernel == nullptr) return cudaErrorInvalidValue;
  if (product_defaults(p)) {
    if (kernel != sm90::select_kernel(p.heads, p.blocks_per_split))
      return cudaErrorInvalidConfiguration;
    return sm90::launch_sparse_mla(op, stream);
  }
  return lab_launch_kernel(kernel->launch, op, stream, p.pdl);
}

}  // namespace jax_glm_nope::lab
