// Our Hopper (sm_90a) sparse-MLA attention: 1 <= H <= 128 heads over
// compact FP8 rows. Plain pointers and a params struct, so the FFI handler
// (sparse_mla.cu) and the standalone selftest (selftest.cu) call the same launcher,
// defined here. Design, numerics and measurements: docs/cuda_sm90.md.
//
// One CTA = one (token, split) and head group; the launcher picks one of five kernels:
//  - up to 8 heads, splits of two blocks or more: the warp-private kernel
//    (warp_private_kernel.cuh), one CTA of two consumer warpgroups per SM;
//  - up to 16 heads otherwise: the block-shared kernel with one consumer group
//    (block_shared_kernel.cuh), two CTAs per SM;
//  - 17-32 heads: the block-shared kernel with two consumer groups on alternate blocks;
//  - from `wgmma_from_heads` heads (9 by default) with splits of at least
//    `wgmma_min_blocks` blocks (4): the wgmma kernel (wgmma_kernel.cuh), same CTAs,
//    candidates-major warpgroup MMAs;
//  - 33-128 heads: the heads-major kernel (heads_major_kernel.cuh), one CTA per group of
//    64 heads (grid y), every MMA with M = 64 heads (`heads_major = false`: the wgmma
//    kernel over groups of 32 heads, for comparison).
// Every kernel: two producer warps gather each 64-row block with one 528-byte bulk copy
// per active row into a multi-stage ring (pipeline.cuh); inactive candidates become zero
// rows and are never dereferenced; the codes converted exactly to fp16; a base-2 online
// softmax; O as a running mean or sum kept in fp16 range by powers of two; splits merged
// by combine_kernel.cuh.
#pragma once

#include "ours/sm90/params.cuh"
#include "ours/sm90/device_helpers.cuh"
#include "ours/sm90/pipeline.cuh"
#include "ours/sm90/block_shared_kernel.cuh"
#include "ours/sm90/warp_private_kernel.cuh"
#include "ours/sm90/wgmma_kernel.cuh"
#include "ours/sm90/heads_major_kernel.cuh"
#include "ours/sm90/asym_kernel.cuh"
#include "ours/sm90/combine_kernel.cuh"

namespace jax_glm_nope::sm90 {

// ---------------------------------------------------------------------------
// Launcher. Requires 1 <= heads <= 128, canonical num_splits, blocks_per_split set
// by blocks_per_split_of, scratch present when num_splits > 1. Returns the first
// CUDA error; allocates nothing; stream-capturable.

template <int NT>
cudaError_t launch_heads(const SparseMlaParams& p, cudaStream_t stream) {
  constexpr int NS = stages_for<NT>();
  auto kernel = p.gather_cp_async ? sparse_mla_kernel<NT, NS, true> : sparse_mla_kernel<NT, NS, false>;
  int threads = threads_of(NT);
  int bytes = Smem<NT, NS>::kBytes;
  int groups = 1;  // CTAs per (token, split), grid y
  // Up to 8 heads, splits of two blocks or more: the warp-private kernel (with one block
  // per split its second group would idle; the block-shared kernel is faster there).
  if constexpr (NT == 1) {
    if (p.warp_private && p.blocks_per_split > 1) {
      constexpr int NP = kPrivateStages;
      kernel = p.gather_cp_async ? sparse_mla_private_kernel<NP, true> : sparse_mla_private_kernel<NP, false>;
      threads = 3 * 128;
      bytes = Smem<1, NP>::kBytes;
    }
  } else {
    if ((p.heads >= p.wgmma_from_heads && p.blocks_per_split >= p.wgmma_min_blocks) ||
        p.heads > kGroupHeads) {
      constexpr int NW = wgmma_stages<NT>();
      kernel = p.gather_cp_async ? sparse_mla_wgmma_kernel<NT, NW, true>
                                 : sparse_mla_wgmma_kernel<NT, NW, false>;
      bytes = WSmem<NT, NW>::kBytes;
      groups = (p.heads + kGroupHeads - 1) / kGroupHeads;
    }
    if (p.heads > kGroupHeads && p.heads_major) {
      // (bulk copies only: the cp.async comparison engine is not built for this kernel)
      kernel = p.hm_asym        ? sparse_mla_asym_kernel<false>
               : p.hm_pipelined ? sparse_mla_seesaw_kernel<false>
                                : sparse_mla_heads_major_kernel<false>;
      threads = kHmThreads;
      bytes = p.hm_asym ? AsSmem::kBytes : (p.hm_pipelined ? SbSmem::kBytes : HmSmem::kBytes);
      groups = head_groups(p.heads);
    }
  }
  cudaError_t status =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  if (status != cudaSuccess) return status;
  const int64_t ctas = int64_t(p.tokens) * p.num_splits;
  cudaLaunchAttribute pdl;
  pdl.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  pdl.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(ctas), groups);
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = bytes;
  config.stream = stream;
  config.attrs = &pdl;
  config.numAttrs = p.pdl ? 1 : 0;
  status = cudaLaunchKernelEx(&config, kernel, p);
  if (status != cudaSuccess || p.num_splits == 1) return status;
  config.gridDim = dim3(p.tokens, p.heads);
  config.blockDim = dim3(128);
  config.dynamicSmemBytes = 0;
  return cudaLaunchKernelEx(&config, combine_kernel, p);
}

inline cudaError_t launch_sparse_mla(const SparseMlaParams& p, cudaStream_t stream) {
  if (p.tokens == 0) return cudaSuccess;
  if (p.heads < 1 || p.heads > kMaxHeads || p.topk < 1 || !canonical_splits(p.topk, p.num_splits) ||
      p.blocks_per_split != blocks_per_split_of(p.topk, p.num_splits) ||
      (p.num_splits > 1 && (!p.part_out || !p.part_lse)))
    return cudaErrorInvalidValue;
  switch ((min(p.heads, kGroupHeads) + 7) / 8) {
    case 1:
      return launch_heads<1>(p, stream);
    case 2:
      return launch_heads<2>(p, stream);
    case 3:
      return launch_heads<3>(p, stream);
    default:
      return launch_heads<4>(p, stream);
  }
}

}  // namespace jax_glm_nope::sm90
