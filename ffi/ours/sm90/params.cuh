// Constants, the operation's parameters and the split rules (mirrored in Python).
// Part of our sm_90a sparse-MLA kernels (sparse_mla_kernel.cuh is the entry).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cfloat>
#include <cstdint>

#include "common/limits.h"
#include "common/row_layout.h"

namespace jax_glm_nope::sm90 {

namespace L = layout;

// kMaxHeads (common/limits.h): 33-128 heads run in groups of kWideGroupHeads (head_groups)
constexpr int kGroupHeads = 32;    // heads per CTA up to 32 heads (one CTA per (token, split))
constexpr int kWideGroupHeads = 64;  // heads per CTA above 32: the heads-major kernel
constexpr int kBlockRows = 64;     // candidates per pipeline stage
constexpr int kConsumerWarps = 4;  // = value tiles: warp w owns tile w in the value MMA
// Consumer warpgroups per CTA: one up to 16 heads (two CTAs per SM), two above (one
// CTA per SM; the groups take alternate blocks, each with its own value accumulator,
// and are merged at the end). With two, the producer is a whole warpgroup (warp 8
// works, warps 9-11 leave) so that setmaxnreg can move its registers to the consumers.
__host__ __device__ constexpr int consumer_groups(int nt) { return nt > 2 ? 2 : 1; }
__host__ __device__ constexpr int threads_of(int nt) {
  return consumer_groups(nt) == 2 ? 3 * 128 : (kConsumerWarps + 2) * 32;  // + 2 producer warps
}
constexpr int kProducerRegs = 40, kConsumerRegs = 232;  // 128 x 40 + 256 x 232 <= 64K
constexpr int kRowBytes = L::kCompactRowBytes;  // bytes gathered per row and smem row stride
// A 528-byte smem row stride puts the 8 rows an ldmatrix phase reads 16 bytes apart
// in the bank space (528 / 4 = 132 = 4 mod 32 words): conflict-free without padding.
static_assert((kRowBytes / 4) % 32 == 4, "row stride must step the banks by 16 bytes");
// q in fp16, one padded row per head: 512 * 2 + 32 bytes, so the 8-byte B-fragment
// loads (head g, dims 4q..4q+3) of a half warp hit 16 distinct 8-byte bank pairs.
constexpr int kQRowBytes = L::kHeadDim * 2 + 32;
constexpr int kPRowFloats = kBlockRows + 8;  // probabilities [head][candidate], padded

// The operation on plain pointers. Candidate j of token t is active iff
// j < clamp(topk_lens[t], 0, topk) and 0 <= indices[t, j] < num_slots.
struct SparseMlaParams {
  const __nv_bfloat16* q;    // [tokens, heads, 512]
  const uint8_t* pool;       // [num_slots, row_bytes]
  const int32_t* indices;    // [tokens, topk]
  const int32_t* topk_lens;  // [tokens]; nullptr means topk for every token
  __nv_bfloat16* out;        // [tokens, heads, 512]
  float* lse;                // [tokens, heads], natural log
  float* part_out;           // [tokens, num_splits, heads, 512] when num_splits > 1
  float* part_lse;           // [tokens, num_splits, heads], log2 units, when num_splits > 1
  int64_t num_slots = 0;
  int64_t row_bytes = 0;  // 528 or 656: the pool's row stride
  int tokens = 0;
  int heads = 0;
  int topk = 0;
  int num_splits = 1;        // splits per token
  int blocks_per_split = 1;  // 64-candidate blocks per split
  float sm_scale = 1.0f;
};

// ---------------------------------------------------------------------------
// The split rules (pure; mirrored in jax_glm_nope/native/targets.py and tested against
// the compiled functions sparse_mla.cu exports).

__host__ __device__ constexpr int num_blocks(int topk) {
  return (topk + kBlockRows - 1) / kBlockRows;
}
// The number of splits that `blocks_per_split` blocks per split gives.
__host__ __device__ constexpr int splits_of(int topk, int blocks_per_split) {
  return (num_blocks(topk) + blocks_per_split - 1) / blocks_per_split;
}
// Blocks per split for a split count (the inverse of splits_of for canonical counts).
__host__ __device__ constexpr int blocks_per_split_of(int topk, int splits) {
  return (num_blocks(topk) + splits - 1) / splits;
}
// A split count is canonical when it is exactly what its blocks-per-split gives.
__host__ __device__ constexpr bool canonical_splits(int topk, int splits) {
  return splits >= 1 && splits <= num_blocks(topk) &&
         splits_of(topk, blocks_per_split_of(topk, splits)) == splits;
}
// Batch-invariant rule: depends on (heads, topk) only, so a token's bits do not
// depend on the rest of the batch. Eight blocks (512 candidates) per split.
constexpr int kInvariantBlocksPerSplit = 8;
__host__ __device__ constexpr int invariant_num_splits(int heads, int topk) {
  return (void)heads, splits_of(topk, kInvariantBlocksPerSplit);
}
// CTAs one SM holds: one up to 8 heads (the warp-private kernel: 8 consumer warps of
// 232 registers), two for 9-16 heads; above, the 512 x H fp32 value accumulator
// (4H registers per consumer thread) needs more than half the register file.
__host__ __device__ constexpr int ctas_per_sm(int heads) { return heads > 8 && heads <= 16 ? 2 : 1; }
// CTAs per (token, split): one up to 32 heads, above one per group of up to 64 heads (the
// heads-major kernel's second grid dimension; the groups read the same rows, the second
// from L2).
__host__ __device__ constexpr int head_groups(int heads) {
  return heads <= kGroupHeads ? 1 : (heads + kWideGroupHeads - 1) / kWideGroupHeads;
}
// Batch-sized rule (faster, not batch invariant): as many splits per token as keep the
// grid (tokens x splits x head groups) within one wave of resident CTAs (at least one,
// at most one block per split),
// so that T <= the resident CTAs never runs a second, short wave.
__host__ __device__ constexpr int batch_num_splits(int tokens, int heads, int topk,
                                                   int sm_count) {
  const int64_t blocks = num_blocks(topk);
  const int64_t target = int64_t(ctas_per_sm(heads)) * (sm_count > 0 ? sm_count : 1) / head_groups(heads);
  int64_t splits = target / (tokens > 0 ? tokens : 1);
  splits = splits < 1 ? 1 : (splits > blocks ? blocks : splits);
  return splits_of(topk, blocks_per_split_of(topk, int(splits)));
}
// Scratch rows per token: none when the kernel writes out/lse itself.
__host__ __device__ constexpr int scratch_splits(int splits) { return splits > 1 ? splits : 0; }

}  // namespace jax_glm_nope::sm90
