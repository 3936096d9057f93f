// The pipelined heads-major kernel with each softmax (heads_major_pipelined_kernel.cuh,
// hp_kernel_body<kLean>): today's two-exponential one and the lean one
// (research/lean_softmax.md), for the lab's pipelined slot (lab_launch.cuh) and
// lean_check.cu, whatever the product's kHpLeanSoftmax.
#pragma once

#include "ours/sm90/sparse_mla_kernel.cuh"

namespace jax_glm_nope::lab {

__global__ void __launch_bounds__(sm90::kHpThreads, 1) hp_kernel_old(const sm90::SparseMlaParams p) {
  sm90::hp_kernel_body<false>(p);
}
__global__ void __launch_bounds__(sm90::kHpThreads, 1) hp_kernel_lean(const sm90::SparseMlaParams p) {
  sm90::hp_kernel_body<true>(p);
}

constexpr sm90::KernelLaunch kHpOldLaunch = {hp_kernel_old, sm90::kHpThreads, sm90::HpSmem::kBytes,
                                             sm90::kHpHeads};
constexpr sm90::KernelLaunch kHpLeanLaunch = {hp_kernel_lean, sm90::kHpThreads, sm90::HpSmem::kBytes,
                                              sm90::kHpHeads};
// The pipelined slot's candidate: the lean kernel at 33-128 heads and any split length.
constexpr sm90::KernelSpec kLeanCandidate = {
    "heads-major-pipelined-lean", sm90::kGroupHeads + 1, kMaxHeads, 1, sm90::kAnySplit, true, true,
    kHpLeanLaunch};

}  // namespace jax_glm_nope::lab
