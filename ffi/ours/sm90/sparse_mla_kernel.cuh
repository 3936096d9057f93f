// Our Hopper (sm_90a) sparse-MLA attention: 1 <= H <= 128 heads over compact FP8 rows.
// Plain pointers and a params struct (params.cuh), so the FFI handler (sparse_mla.cu) and
// any standalone program call the same launcher, defined here. Design, numerics and
// measurements: docs/cuda_sm90.md.
//
// The shipped kernels, named by how a 64-candidate block's MMA work is organised:
//  - warp-private: mma.sync; each consumer warp scores its own 16 candidates and keeps
//    its own softmax and value accumulator (warp_private_kernel.cuh);
//  - block-shared: mma.sync; the four warps of a consumer group share each block's
//    softmax through shared memory, warp w accumulating value tile w
//    (block_shared_kernel.cuh);
//  - candidates-major: warpgroup MMAs with M = 64 candidates and N = the CTA's heads
//    (candidates_major_kernel.cuh);
//  - heads-major: warpgroup MMAs with M = 64 heads, one CTA per group of 64 heads
//    (heads_major_kernel.cuh);
//  - heads-major-pipelined: the same MMAs, the scores in one accumulator, the block's
//    halves in three fp16 slots so that consecutive blocks overlap, one-way roles
//    (heads_major_pipelined_kernel.cuh).
// kKernels declares the heads and split lengths (blocks per split) each serves and what it
// supports; the declarations are disjoint and cover every call (checked at compile time),
// and launch_sparse_mla launches the one that serves the call. Every
// kernel: producer warps gather each 64-row block by bulk copies of the active rows (one
// per row, or per row and half in the pipelined kernel) into a ring (pipeline.cuh);
// inactive candidates become zero
// rows and are never dereferenced; the codes convert exactly to fp16; a base-2 online
// softmax; splits merged by combine_kernel.cuh.
#pragma once

#include <atomic>

#include <climits>

#include "ours/sm90/block_shared_kernel.cuh"
#include "ours/sm90/candidates_major_kernel.cuh"
#include "ours/sm90/combine_kernel.cuh"
#include "ours/sm90/device_helpers.cuh"
#include "ours/sm90/heads_major_kernel.cuh"
#include "ours/sm90/heads_major_pipelined_kernel.cuh"
#include "ours/sm90/params.cuh"
#include "ours/sm90/pipeline.cuh"
#include "ours/sm90/warp_private_kernel.cuh"

namespace jax_glm_nope::sm90 {

using KernelFn = void (*)(SparseMlaParams);

constexpr int kAnySplit = INT_MAX;  // max_blocks_per_split: no upper limit

// How one compiled kernel is launched.
struct KernelLaunch {
  KernelFn kernel;
  int threads;
  int smem_bytes;   // dynamic shared memory per CTA
  int group_heads;  // heads per CTA: grid y = ceil(H / group_heads) CTAs per (token, split)
};
constexpr KernelLaunch warp_private() {
  return {sparse_mla_warp_private_kernel<kPrivateStages>, 3 * 128, Smem<1, kPrivateStages>::kBytes, 8};
}
template <int NT>  // NT = 1-4: the MMA's N, heads rounded up to 8
constexpr KernelLaunch block_shared() {
  return {sparse_mla_block_shared_kernel<NT, stages_for<NT>()>, threads_of(NT),
          Smem<NT, stages_for<NT>()>::kBytes, 8 * NT};
}
template <int NT>  // NT = 2-4, one CTA per group of 32 heads
constexpr KernelLaunch candidates_major() {
  return {sparse_mla_candidates_major_kernel<NT, candidates_major_stages<NT>()>, threads_of(NT),
          CmSmem<NT, candidates_major_stages<NT>()>::kBytes, kGroupHeads};
}
constexpr KernelLaunch heads_major() {
  return {sparse_mla_heads_major_kernel, kHmThreads, HmSmem::kBytes, kHmHeads};
}
constexpr KernelLaunch heads_major_pipelined() {
  return {sparse_mla_heads_major_pipelined_kernel, kHpThreads, HpSmem::kBytes, kHpHeads};
}

// What one kernel serves and supports.
struct KernelSpec {
  const char* name;
  int min_heads, max_heads;  // the head counts it serves
  // The split lengths it serves, in 64-candidate blocks per split (the split rule fixes
  // them from (H, K, splits) alone).
  int min_blocks_per_split, max_blocks_per_split;
  bool padded_rows;      // reads 656-byte rows (their first 528 bytes) besides 528-byte ones
  bool batch_invariant;  // a token's bits depend on (H, K, splits), never on other tokens
  KernelLaunch launch;
  constexpr bool serves(int heads, int blocks_per_split, int64_t row_bytes) const {
    return heads >= min_heads && heads <= max_heads && blocks_per_split >= min_blocks_per_split &&
           blocks_per_split <= max_blocks_per_split &&
           (row_bytes == L::kCompactRowBytes || (padded_rows && row_bytes == L::kPaddedRowBytes));
  }
};

// The shipped kernels. Why these boundaries: with one block per split the warp-private
// kernel's second consumer group would idle; below four blocks per split the
// candidates-major kernel's fixed cost per CTA outweighs its faster block loop; above 32
// heads the value accumulator of all heads no longer fits in one CTA's registers; below
// kHpMinBlocks blocks per split the pipelined kernel's pipeline does not fill and the
// heads-major kernel is faster.
// clang-format off
constexpr KernelSpec kKernels[] = {
    // name                 heads    blocks per split                656-B rows, batch invariant
    {"warp-private",           1,   8, 2,            kAnySplit,        true, true, warp_private()},
    {"block-shared",           1,   8, 1,            1,                true, true, block_shared<1>()},
    {"block-shared",           9,  16, 1,            3,                true, true, block_shared<2>()},
    {"block-shared",          17,  24, 1,            3,                true, true, block_shared<3>()},
    {"block-shared",          25,  32, 1,            3,                true, true, block_shared<4>()},
    {"candidates-major",       9,  16, 4,            kAnySplit,        true, true, candidates_major<2>()},
    {"candidates-major",      17,  24, 4,            kAnySplit,        true, true, candidates_major<3>()},
    {"candidates-major",      25,  32, 4,            kAnySplit,        true, true, candidates_major<4>()},
    {"heads-major",           33, 128, 1,            kHpMinBlocks - 1, true, true, heads_major()},
    {"heads-major-pipelined", 33, 128, kHpMinBlocks, kAnySplit,        true, true, heads_major_pipelined()},
};
// clang-format on

// The kernel that serves the call, or nullptr (heads outside 1-128, another row size).
constexpr const KernelSpec* select_kernel(int heads, int blocks_per_split,
                                          int64_t row_bytes = L::kCompactRowBytes) {
  for (const KernelSpec& k : kKernels)
    if (k.serves(heads, blocks_per_split, row_bytes)) return &k;
  return nullptr;
}

// Exactly one kernel serves each call, each is batch invariant, and each fits in shared
// memory, so the invariant split rule gives a token the same bits in any batch.
constexpr bool kernels_cover_every_call() {
  for (int64_t row_bytes : {L::kCompactRowBytes, L::kPaddedRowBytes})
    for (int heads = 1; heads <= kMaxHeads; ++heads)
      for (int bps : {1, 2, 3, 4, 5, 8, 16, 1024, kAnySplit}) {
        int serving = 0;
        for (const KernelSpec& k : kKernels)
          if (k.serves(heads, bps, row_bytes)) {
            ++serving;
            if (!k.batch_invariant || k.launch.smem_bytes > 227 * 1024) return false;
          }
        if (serving != 1) return false;
      }
  return select_kernel(0, 1) == nullptr && select_kernel(kMaxHeads + 1, 1) == nullptr;
}
static_assert(kernels_cover_every_call(), "kKernels: every (heads, blocks per split) served once");

// The batch-sized split rule sizes the grid from head_groups(H) and ctas_per_sm(H)
// (params.cuh): each row launches head_groups(H) CTAs per (token, split) at every H it
// serves, and ctas_per_sm(H) of its CTAs fit on one SM (228 KiB of shared memory with
// 1 KiB reserved per CTA, 2048 threads).
constexpr bool split_rules_match_the_kernels() {
  for (const KernelSpec& k : kKernels)
    for (int heads = k.min_heads; heads <= k.max_heads; ++heads) {
      const int ctas = ctas_per_sm(heads);
      if ((heads + k.launch.group_heads - 1) / k.launch.group_heads != head_groups(heads))
        return false;
      if (ctas * (k.launch.smem_bytes + 1024) > 228 * 1024 || ctas * k.launch.threads > 2048)
        return false;
    }
  return true;
}
static_assert(split_rules_match_the_kernels(),
              "kKernels: a row's grid or residency disagrees with head_groups / ctas_per_sm");

// ---------------------------------------------------------------------------
// Launcher. Requires 1 <= heads <= 128, canonical num_splits, blocks_per_split set by
// blocks_per_split_of, scratch present when num_splits > 1. Returns the first CUDA error;
// allocates nothing; stream-capturable.

// The opt-in to more than 48 KiB of dynamic shared memory, once per kernel and device: a
// function attribute keeps its value for the context's life, and setting it on every call
// was host time before each launch (see query_device). A thread that finds it unset sets it
// (concurrent first calls set the same value twice, harmlessly).
inline cudaError_t allow_shared_memory(const KernelLaunch& kernel) {
  constexpr int kMaxDevices = 64;
  constexpr int kMaxKernels = 32;
  static std::atomic<const void*> done[kMaxDevices][kMaxKernels];
  int device = 0;
  cudaError_t status = cudaGetDevice(&device);
  if (status != cudaSuccess) return status;
  const void* key = reinterpret_cast<const void*>(kernel.kernel);
  const bool cacheable = device >= 0 && device < kMaxDevices;
  int free_slot = -1;
  if (cacheable)
    for (int i = 0; i < kMaxKernels; ++i) {
      const void* seen = done[device][i].load(std::memory_order_acquire);
      if (seen == key) return cudaSuccess;
      if (seen == nullptr) {
        free_slot = i;
        break;
      }
    }
  status = cudaFuncSetAttribute(kernel.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                kernel.smem_bytes);
  if (status == cudaSuccess && free_slot >= 0) {
    const void* expected = nullptr;
    done[device][free_slot].compare_exchange_strong(expected, key, std::memory_order_acq_rel);
  }
  return status;
}

// `kernel` for p's (token, split) grid, then the split combine when num_splits > 1, both
// under programmatic dependent launch: each kernel starts with griddepcontrol.wait (before
// any global access), so its launch overlaps the tail of the previous kernel in the stream.
inline cudaError_t launch_kernel(const KernelLaunch& kernel, const SparseMlaParams& p,
                                 cudaStream_t stream) {
  cudaLaunchAttribute pdl;
  pdl.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  pdl.val.programmaticStreamSerializationAllowed = 1;
  cudaError_t status = allow_shared_memory(kernel);
  if (status != cudaSuccess) return status;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(int64_t(p.tokens) * p.num_splits),
                        (p.heads + kernel.group_heads - 1) / kernel.group_heads);
  config.blockDim = dim3(kernel.threads);
  config.dynamicSmemBytes = kernel.smem_bytes;
  config.stream = stream;
  config.attrs = &pdl;
  config.numAttrs = 1;
  status = cudaLaunchKernelEx(&config, kernel.kernel, p);
  if (status != cudaSuccess || p.num_splits == 1) return status;
  config.gridDim = dim3(p.tokens, p.heads);
  config.blockDim = dim3(128);
  config.dynamicSmemBytes = 0;
  return cudaLaunchKernelEx(&config, combine_kernel, p);
}

inline bool valid_launch(const SparseMlaParams& p) {
  return p.heads >= 1 && p.heads <= kMaxHeads && p.topk >= 1 &&
         canonical_splits(p.topk, p.num_splits) &&
         p.blocks_per_split == blocks_per_split_of(p.topk, p.num_splits) &&
         (p.num_splits == 1 || (p.part_out && p.part_lse));
}

inline cudaError_t launch_sparse_mla(const SparseMlaParams& p, cudaStream_t stream) {
  if (p.tokens == 0) return cudaSuccess;
  if (!valid_launch(p)) return cudaErrorInvalidValue;
  const KernelSpec* kernel = select_kernel(p.heads, p.blocks_per_split, p.row_bytes);
  return kernel ? launch_kernel(kernel->launch, p, stream) : cudaErrorInvalidValue;
}

}  // namespace jax_glm_nope::sm90
