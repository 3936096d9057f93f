// Family S of our Hopper (sm_90a) sparse-MLA attention: 1 <= H <= 32 heads over
// compact FP8 rows, bound by the gather of 528-byte rows. Plain pointers and a
// params struct, so the FFI handler (sparse_mla.cu) and the standalone selftest
// (selftest.cu) call the same launcher. Design, numerics and measurements:
// docs/cuda_sm90.md.
//
// One CTA = one (token, split). Up to 16 heads: warp 4 is the producer, warps 0-3 the
// consumers (two CTAs per SM). Above 16 heads: two consumer warpgroups (warps 0-3 and
// 4-7) take alternate blocks, each with its own running state, merged in the CTA at
// the end; warp 8 of a third (producer) warpgroup gathers, and setmaxnreg moves that
// warpgroup's registers to the consumers (40 / 232).
//  - The producer reads 64 indices per block, zero-fills the shared-memory row of
//    every inactive candidate (a hole, past topk_lens, out of range: never
//    dereferenced) and gathers each active row with one 528-byte cp.async.bulk
//    completing on the stage's mbarrier; NS stages.
//  - Scores, candidates-major: consumer w computes S^T[16 candidates, H] for rows
//    16w..16w+15 with mma.sync m16n8k16 fp16 (A = codes converted exactly from
//    e4m3 in registers, B = q scaled by a power of two into fp16); one fresh fp32
//    accumulator per 128-value tile, scaled by that tile's fp32 scale (shifted per
//    candidate by a power of two so that no tile term can overflow: one FFMA each).
//  - Base-2 online softmax over the block (maxima and sums exchanged through
//    shared memory, fixed order), probabilities kept in [0, 1].
//  - Values: consumer w owns value tile w (dims 128w..128w+127) for all heads:
//    O^T[128, H] += V^T[128, 64] . U^T[64, H], A = the same raw codes through
//    ldmatrix.trans, U = p * s_w(candidate) / l, brought into fp16 range by a
//    power of two per (tile, head) that tracks the largest weighted scale; O is a
//    running weighted mean, so finite values never overflow it.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cfloat>
#include <cstdint>

#include "common/row_layout.h"

namespace jax_glm_nope::sm90 {

namespace L = layout;

constexpr int kMaxHeads = 32;      // family S
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
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

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
  // Gather engine: false = one 528-byte cp.async.bulk per row (the default), true =
  // 33 x 16-byte cp.async per row spread over the producer's lanes (for comparison).
  bool gather_cp_async = false;
  // Programmatic dependent launch: both kernels start with griddepcontrol.wait (before
  // any global access) and are launched so that their start overlaps the tail of the
  // previous kernel in the stream; the attention kernel lets the combine launch early.
  bool pdl = true;
  // Up to 8 heads: the warp-private kernel (false: the block-shared one, for comparison).
  bool warp_private = true;
};

// ---------------------------------------------------------------------------
// The split rules (pure; mirrored in Python, see docs/cuda_sm90.md).

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
// Batch-sized rule (faster, not batch invariant): as many splits per token as keep the
// grid within one wave of resident CTAs (at least one, at most one block per split),
// so that T <= the resident CTAs never runs a second, short wave.
__host__ __device__ constexpr int batch_num_splits(int tokens, int heads, int topk,
                                                   int sm_count) {
  const int64_t blocks = num_blocks(topk);
  const int64_t target = int64_t(ctas_per_sm(heads)) * (sm_count > 0 ? sm_count : 1);
  int64_t splits = target / (tokens > 0 ? tokens : 1);
  splits = splits < 1 ? 1 : (splits > blocks ? blocks : splits);
  return splits_of(topk, blocks_per_split_of(topk, int(splits)));
}
// Scratch rows per token: none when the kernel writes out/lse itself.
__host__ __device__ constexpr int scratch_splits(int splits) { return splits > 1 ? splits : 0; }

// ---------------------------------------------------------------------------
// PTX wrappers.

namespace ptx {

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count));
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("{ .reg .b64 st; mbarrier.arrive.shared::cta.b64 st, [%0]; }" ::"r"(
                   smem_u32(bar))
               : "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile(
      "{ .reg .b64 st; mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1; }" ::"r"(
          smem_u32(bar)),
      "r"(bytes)
      : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  asm volatile(
      "{\n"
      " .reg .pred done;\n"
      " WAIT_%=:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      " @!done bra WAIT_%=;\n"
      "}\n" ::"r"(smem_u32(bar)),
      "r"(parity)
      : "memory");
}
// One bulk copy global -> shared, completing `bytes` on the mbarrier's tx count.
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, uint32_t bytes,
                                          uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
          "r"(smem_u32(dst)),
      "l"(src), "r"(bytes), "r"(smem_u32(bar))
      : "memory");
}
__device__ __forceinline__ void cp_async16(void* dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_u32(dst)), "l"(src)
               : "memory");
}
// The mbarrier gets this thread's arrival once all its earlier cp.async have landed.
__device__ __forceinline__ void cp_async_arrive(uint64_t* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(smem_u32(bar))
               : "memory");
}
__device__ __forceinline__ void ldsm_x4(uint32_t (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_u32(p)));
}
__device__ __forceinline__ void ldsm_x4_trans(uint32_t (&r)[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_u32(p)));
}
// D += A . B, m16n8k16, fp16 inputs, fp32 accumulators.
__device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                    uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// Named barrier among the 128 threads of consumer group `group` (barrier 1 or 2;
// immediate ids, so ptxas counts the barriers the CTA really uses).
__device__ __forceinline__ void consumer_sync(int group = 0) {
  if (group == 0) {
    asm volatile("bar.sync 1, %0;" ::"n"(kConsumerWarps * 32) : "memory");
  } else {
    asm volatile("bar.sync 2, %0;" ::"n"(kConsumerWarps * 32) : "memory");
  }
}
// Named barrier among all consumer threads of the CTA (barrier 3 for two groups).
template <int NWG>
__device__ __forceinline__ void all_consumers_sync() {
  if constexpr (NWG == 1) {
    consumer_sync(0);
  } else {
    asm volatile("bar.sync 3, %0;" ::"n"(NWG * kConsumerWarps * 32) : "memory");
  }
}
template <int N>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N));
}
template <int N>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N));
}
// 2^x for x <= 0 (probabilities and corrections); -inf gives +0.
// PDL: wait until every prerequisite grid has completed and its memory is visible (a
// no-op without the launch attribute); let the dependent grid be scheduled.
__device__ __forceinline__ void grid_dependency_wait() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
}
__device__ __forceinline__ void launch_dependents() {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}
__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

}  // namespace ptx

// Two e4m3 codes to two fp16 values, exactly (NaN codes stay NaN): the codes in the low
// (lo) or high (hi) half of a word, low byte -> low half. The PTX half selection lets
// ptxas read the half in place (F2FP ... R.H1), with no shift.
__device__ __forceinline__ uint32_t e4m3x2_lo_to_f16x2(uint32_t codes) {
  uint32_t d;
  asm("{ .reg .b16 lo, hi;\n mov.b32 {lo, hi}, %1;\n cvt.rn.f16x2.e4m3x2 %0, lo; }"
      : "=r"(d)
      : "r"(codes));
  return d;
}
__device__ __forceinline__ uint32_t e4m3x2_hi_to_f16x2(uint32_t codes) {
  uint32_t d;
  asm("{ .reg .b16 lo, hi;\n mov.b32 {lo, hi}, %1;\n cvt.rn.f16x2.e4m3x2 %0, hi; }"
      : "=r"(d)
      : "r"(codes));
  return d;
}
// The 8x8 b16 matrix of a warp's fragments (lane: row lane / 4, columns 2 (lane % 4),
// +1), transposed in registers.
__device__ __forceinline__ uint32_t transpose_8x8(uint32_t x) {
  uint32_t y;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(y) : "r"(x));
  return y;
}
__device__ __forceinline__ uint32_t pack_f16x2(float lo, float hi) {
  const __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&h);
}
__device__ __forceinline__ float clamp_finite(float x) {
  return fminf(fmaxf(x, -FLT_MAX), FLT_MAX);  // also maps NaN to a number: flag it first
}
// 2^e for e in [-126, 127], built from the exponent bits (always a normal float).
__device__ __forceinline__ float pow2(int e) { return __int_as_float((127 + e) << 23); }
// The smallest F in [-126, 126] with x < 2^F for finite x >= 0 (126 for huge x).
__device__ __forceinline__ int exponent_bound(float x) {
  const int biased = (__float_as_int(x) >> 23) & 0xff;
  const int f = biased - 126;
  return f < -126 ? -126 : (f > 126 ? 126 : f);
}

// ---------------------------------------------------------------------------
// The producers: two warps per pipeline, warp `half` gathering rows 32 half .. 32 half
// + 31 of each block (lane = row; the bulk copies of one warp issue one after another,
// so two warps double the rows in flight per cycle). Per block: the indices (one block
// ahead), activity flags, a zero row for each inactive candidate and one bulk copy per
// active row into the stage, once the consumers released it; each warp arrives on the
// stage's full barrier with its own byte count (the barrier expects kProducerWarps).

constexpr int kProducerWarps = 2;

// Blocks first, first + step, ... (the warp-private kernel's two groups alternate).
template <int NS, bool kCpAsync>
__device__ __forceinline__ void gather_rows(const SparseMlaParams& p, int token, int c_begin,
                                            int c_stop, int nblocks, int half, int lane,
                                            uint8_t* rows_base, int* flags, uint64_t* full,
                                            uint64_t* empty, int first = 0, int step = 1) {
  const int32_t* idx_row = p.indices + int64_t(token) * p.topk;
  const int r = 32 * half + lane;  // this lane's row of every block
  auto load = [&](int blk) {
    const int j = c_begin + blk * kBlockRows + r;
    return j < c_stop ? __ldg(idx_row + j) : -1;
  };
  int next = first < nblocks ? load(first) : -1;
  for (int blk = first; blk < nblocks; blk += step) {
    const int stage = blk % NS;
    const int idx = next;
    if (blk + step < nblocks) next = load(blk + step);  // one block of index latency ahead
    ptx::mbar_wait(&empty[stage], ((blk / NS) & 1) ^ 1);
    const bool active = idx >= 0 && int64_t(idx) < p.num_slots;
    uint8_t* row = rows_base + (stage * kBlockRows + r) * kRowBytes;
    // Inactive rows become zero rows: 0 * NaN in the value MMA cannot happen, and
    // the slot an inactive index names is never read.
    if (!active)
      for (int v = 0; v < kRowBytes / 16; ++v) reinterpret_cast<uint4*>(row)[v] = make_uint4(0, 0, 0, 0);
    flags[stage * kBlockRows + r] = active;
    const uint32_t n = __popc(__ballot_sync(~0u, active));
    __syncwarp();
    if (kCpAsync) {
      // Row q's 33 chunks: lane l takes chunk l, lane 0 also chunk 32.
      uint8_t* rows = rows_base + (stage * kBlockRows + 32 * half) * kRowBytes;
      for (int q = 0; q < 32; ++q) {
        const int slot = __shfl_sync(~0u, idx, q);
        if (slot < 0 || int64_t(slot) >= p.num_slots) continue;
        const uint8_t* src = p.pool + int64_t(slot) * p.row_bytes;
        uint8_t* dst = rows + q * kRowBytes;
        ptx::cp_async16(dst + lane * 16, src + lane * 16);
        if (lane == 0) ptx::cp_async16(dst + 512, src + 512);
      }
      ptx::cp_async_arrive(&full[stage]);  // fires when this lane's copies land
      (void)n;
      continue;
    }
    if (lane == 0) ptx::mbar_arrive_expect_tx(&full[stage], n * kRowBytes);
    __syncwarp();
    if (active) ptx::bulk_copy(row, p.pool + int64_t(idx) * p.row_bytes, kRowBytes, &full[stage]);
  }
}

// ---------------------------------------------------------------------------
// q -> fp16 in shared memory, one padded row per head, by the kWarps consumer warps.

template <int HP, int kWarps>
__device__ __forceinline__ void prepare_q(const SparseMlaParams& p, int token, int warp, int lane,
                                          uint8_t* qhat, float* qpre, float* qpost,
                                          int* bad_head) {
  // q -> fp16 scaled by 2^-e1 per head (e1 from the exponent of max|q_h|, clamped so
  // the factor is a normal float); the factor goes back into the score factor.
  for (int h = warp; h < HP; h += kWarps) {
    float v[16];
    if (h < p.heads) {
      const __nv_bfloat16* src = p.q + (int64_t(token) * p.heads + h) * L::kHeadDim;
      const uint4 lo = *reinterpret_cast<const uint4*>(src + lane * 8);
      const uint4 hi = *reinterpret_cast<const uint4*>(src + 256 + lane * 8);
      const uint32_t words[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        v[2 * i] = __uint_as_float(words[i] << 16);
        v[2 * i + 1] = __uint_as_float(words[i] & 0xffff0000u);
      }
    } else {
#pragma unroll
      for (int i = 0; i < 16; ++i) v[i] = 0.0f;
    }
    float amax = 0.0f;
    bool finite = true;
#pragma unroll
    for (int i = 0; i < 16; ++i) {
      amax = fmaxf(amax, fabsf(v[i]));
      finite = finite && isfinite(v[i]);
    }
#pragma unroll
    for (int o = 16; o > 0; o /= 2) amax = fmaxf(amax, __shfl_xor_sync(~0u, amax, o));
    const bool bad = __any_sync(~0u, !finite);
    const int e1 = amax == 0.0f ? 0 : exponent_bound(amax);  // max|q| < 2^e1
    const float down = pow2(-e1);
    uint32_t packed[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) packed[i] = pack_f16x2(v[2 * i] * down, v[2 * i + 1] * down);
    uint8_t* dst = qhat + h * kQRowBytes;
    *reinterpret_cast<uint4*>(dst + lane * 16) = make_uint4(packed[0], packed[1], packed[2], packed[3]);
    *reinterpret_cast<uint4*>(dst + 512 + lane * 16) =
        make_uint4(packed[4], packed[5], packed[6], packed[7]);
    if (lane == 0) {
      // sm_scale * log2(e) * 2^e1, clamped: a finite factor keeps 0 * factor a zero.
      const float f = clamp_finite(ldexpf(p.sm_scale * kLog2e, e1));
      qpre[h] = fabsf(f) <= 1.0f ? f : 1.0f;
      qpost[h] = fabsf(f) <= 1.0f ? 1.0f : f;
      bad_head[h] = bad;
    }
  }
}

// ---------------------------------------------------------------------------
// One head's result for M-tiles mt0..mt0 + NMT - 1 of value tile w: v[mt] = the values
// at dims 128 w + 16 (mt0 + mt) + 2 g, +1, in units of 2^f (up = 2^f), lse2 in log2
// units. A split writes its partial (fp32, log2), a single split the output (bf16,
// natural log); lse by the thread of tile 0, mt0 = 0, g = 0. A bad head gets NaN.
template <int NMT>
__device__ __forceinline__ void store_head(const SparseMlaParams& p, int token, int split, int h,
                                           int w, int mt0, int g, const float (&v)[NMT][2],
                                           float up, float lse2, bool bad) {
  if (bad) lse2 = __int_as_float(0x7fffffff);
  const bool partial = p.num_splits > 1;
  const int64_t row = partial ? (int64_t(token) * p.num_splits + split) * p.heads + h
                              : int64_t(token) * p.heads + h;
  if (partial) {
    float* dst = p.part_out + row * L::kHeadDim;
#pragma unroll
    for (int mt = 0; mt < NMT; ++mt) {
      const int d = L::kTile * w + 16 * (mt0 + mt) + 2 * g;
      const float2 x = bad ? make_float2(lse2, lse2) : make_float2(v[mt][0] * up, v[mt][1] * up);
      *reinterpret_cast<float2*>(dst + d) = x;
    }
    if (w == 0 && mt0 == 0 && g == 0) p.part_lse[row] = lse2;
  } else {
    __nv_bfloat16* dst = p.out + row * L::kHeadDim;
#pragma unroll
    for (int mt = 0; mt < NMT; ++mt) {
      const int d = L::kTile * w + 16 * (mt0 + mt) + 2 * g;
      const float2 x = bad ? make_float2(lse2, lse2) : make_float2(v[mt][0] * up, v[mt][1] * up);
      *reinterpret_cast<__nv_bfloat162*>(dst + d) = __floats2bfloat162_rn(x.x, x.y);
    }
    if (w == 0 && mt0 == 0 && g == 0) p.lse[row] = lse2 * kLn2;
  }
}

// ---------------------------------------------------------------------------
// Shared memory.

template <int NT, int NS>
struct Smem {
  static constexpr int kHeadsPad = NT * 8;
  static constexpr int kGroups = consumer_groups(NT);
  static constexpr int kRows = 0;
  static constexpr int kQ = kRows + NS * kBlockRows * kRowBytes;
  // Per consumer group (stride kGroup): probabilities, block maxima and sums, and the
  // per-(tile, head) bound and exponent.
  static constexpr int kP = kQ + kHeadsPad * kQRowBytes;
  static constexpr int kRedMax = kP + kHeadsPad * kPRowFloats * 4;
  static constexpr int kRedSum = kRedMax + kConsumerWarps * kHeadsPad * 4;
  static constexpr int kBound = kRedSum + kConsumerWarps * kHeadsPad * 4;
  static constexpr int kGroup = kBound + 2 * kConsumerWarps * kHeadsPad * 4 - kP;
  static constexpr int kFlags = kP + kGroups * kGroup;
  static constexpr int kFactor = kFlags + NS * kBlockRows * 4;
  static constexpr int kBad = kFactor + 2 * kHeadsPad * 4;
  static constexpr int kBars = (kBad + kHeadsPad * 4 + 16 + 15) / 16 * 16;
  static constexpr int kBytes = kBars + 2 * NS * 8;
  // The group merge reuses the row ring once every block is consumed: per consumer
  // thread of group 1, its 32 NT accumulators and 4 NT softmax values.
  static constexpr int kXchgFloats = 36 * NT;
  static_assert(kGroups == 1 || kXchgFloats * kConsumerWarps * 32 * 4 <= NS * kBlockRows * kRowBytes,
                "the merge buffer must fit in the row ring");
};

// Stages per head-tile count: the most that keep ctas_per_sm CTAs resident
// (2 x ~113 KB, or 1 x ~180 KB).
template <int NT>
constexpr int stages_for() {
  return NT == 1 ? 3 : (NT == 2 ? 2 : 4);
}

// ---------------------------------------------------------------------------
// What every attention kernel's CTA starts with.

// The shared-memory regions common to the kernels' layouts S (Smem).
template <typename S>
struct SmemView {
  uint8_t* rows;   // the NS-stage row ring
  uint8_t* qhat;   // q in fp16, one padded row per head
  int* flags;      // activity of each staged row
  // The per-head score factor f = sm_scale log2(e) 2^e1, applied before the tile scale
  // when |f| <= 1 (pre) and after the tile sum otherwise (post), so that no product
  // overflows unless the score itself does.
  float* qpre;
  float* qpost;
  int* bad_head;   // per head: a NaN seen (query or accumulator)
  int* bad_all;    // a non-finite scale in an active row
  uint64_t* full;  // per stage: rows landed
  uint64_t* empty; // per stage: consumers done
  __device__ explicit SmemView(uint8_t* smem, int stages)
      : rows(smem + S::kRows),
        qhat(smem + S::kQ),
        flags(reinterpret_cast<int*>(smem + S::kFlags)),
        qpre(reinterpret_cast<float*>(smem + S::kFactor)),
        qpost(qpre + S::kHeadsPad),
        bad_head(reinterpret_cast<int*>(smem + S::kBad)),
        bad_all(bad_head + S::kHeadsPad),
        full(reinterpret_cast<uint64_t*>(smem + S::kBars)),
        empty(full + stages) {}
};

// The candidates of this CTA's split: [c_begin, c_stop) active-eligible, in nblocks blocks.
struct SplitRange {
  int token, split, c_begin, c_stop, nblocks;
  __device__ explicit SplitRange(const SparseMlaParams& p) {
    token = blockIdx.x / p.num_splits;
    split = blockIdx.x % p.num_splits;
    int len = p.topk_lens ? p.topk_lens[token] : p.topk;
    len = len < 0 ? 0 : (len > p.topk ? p.topk : len);
    c_begin = split * p.blocks_per_split * kBlockRows;
    const int c_end = min(p.topk, c_begin + p.blocks_per_split * kBlockRows);
    c_stop = min(c_end, len);  // candidates at or past c_stop are inactive
    nblocks = c_stop > c_begin ? (c_stop - c_begin + kBlockRows - 1) / kBlockRows : 0;
  }
};

// Thread 0: the stage barriers (the producer warps arrive on full, `readers` consumer
// warps on empty) and the shared flag.
template <int NS, bool kCpAsync>
__device__ __forceinline__ void init_barriers(uint64_t* full, uint64_t* empty, int readers,
                                              int* bad_all) {
  if (threadIdx.x == 0) {
    for (int s = 0; s < NS; ++s) {
      ptx::mbar_init(&full[s], kProducerWarps * (kCpAsync ? 32 : 1));
      ptx::mbar_init(&empty[s], readers);
    }
    *bad_all = 0;
  }
  __syncthreads();
}

// ---------------------------------------------------------------------------
// The attention kernel.

template <int NT, int NS, bool kCpAsync>
__global__ void __launch_bounds__(threads_of(NT), ctas_per_sm(NT * 8)) sparse_mla_kernel(const SparseMlaParams p) {
  using S = Smem<NT, NS>;
  constexpr int HP = S::kHeadsPad;
  constexpr int NWG = S::kGroups;
  extern __shared__ __align__(128) uint8_t smem[];
  const SmemView<S> sm(smem, NS);
  ptx::grid_dependency_wait();  // before any global access, reads and writes
  ptx::launch_dependents();     // the combine may be scheduled once every CTA is here
  const auto [token, split, c_begin, c_stop, nblocks] = SplitRange(p);
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  init_barriers<NS, kCpAsync>(sm.full, sm.empty, kConsumerWarps, sm.bad_all);

  if (warp >= NWG * kConsumerWarps) {
    // ---------------- producer ----------------
    if constexpr (NWG == 2) ptx::setmaxnreg_dec<kProducerRegs>();  // the whole producer warpgroup
    const int half = warp - NWG * kConsumerWarps;
    if (half < kProducerWarps)
      gather_rows<NS, kCpAsync>(p, token, c_begin, c_stop, nblocks, half, lane, sm.rows, sm.flags,
                                sm.full, sm.empty);
    return;
  }

  // ---------------- consumers ----------------
  if constexpr (NWG == 2) ptx::setmaxnreg_inc<kConsumerRegs>();
  const int grp = NWG == 1 ? 0 : warp / kConsumerWarps;  // group: blocks grp, grp + NWG, ...
  const int w = NWG == 1 ? warp : warp % kConsumerWarps;  // value tile of this warp
  uint8_t* gbase = smem + S::kP + grp * S::kGroup;
  float* pbuf = reinterpret_cast<float*>(gbase);
  float* red_max = reinterpret_cast<float*>(gbase + (S::kRedMax - S::kP));
  float* red_sum = reinterpret_cast<float*>(gbase + (S::kRedSum - S::kP));
  // red_* layout: [head][warp] up to 16 heads (each head's four values are one 16-byte
  // load), [warp][head] above (the vector loads cost registers the accumulator needs).
  constexpr int kRh = NT <= 2 ? kConsumerWarps : 1, kRw = NT <= 2 ? 1 : HP;
  const int g = lane >> 2;  // mma group: row of A/C, column (head) of B
  const int q4 = lane & 3;  // thread in group

  prepare_q<HP, NWG * kConsumerWarps>(p, token, warp, lane, sm.qhat, sm.qpre, sm.qpost, sm.bad_head);
  ptx::all_consumers_sync<NWG>();

  // Online-softmax state, base 2: C layout (heads 8j + 2q4 + i) and B layout (head 8j + g),
  // updated by the same arithmetic from the same shared values, hence identical.
  float m_c[NT][2], l_c[NT][2], m_b[NT], l_b[NT];
  // Per (tile w, head): bound = max over seen candidates of (p / l) * |s_w|, and the
  // exponent f with O held in units of 2^f. Kept in shared memory (one slot per warp
  // and head, read and written by that warp only): registers go to the accumulator.
  float* bound_s = reinterpret_cast<float*>(gbase + (S::kBound - S::kP)) + w * HP;
  int* f_s = reinterpret_cast<int*>(gbase + (S::kBound - S::kP)) + (kConsumerWarps + w) * HP;
  uint32_t bad_bits = 0;
  bool scale_bad = false;
  float o[8][NT][4];
#pragma unroll
  for (int j = 0; j < NT; ++j) {
    m_c[j][0] = m_c[j][1] = m_b[j] = -INFINITY;
    l_c[j][0] = l_c[j][1] = l_b[j] = 0.0f;
    if (q4 == 0) {
      bound_s[8 * j + g] = 0.0f;
      f_s[8 * j + g] = -126;
    }
#pragma unroll
    for (int mt = 0; mt < 8; ++mt)
#pragma unroll
      for (int e = 0; e < 4; ++e) o[mt][j][e] = 0.0f;
  }

  const int c_a = 16 * w + g, c_b = c_a + 8;  // this thread's score rows

  for (int b = grp; b < nblocks; b += NWG) {
    const int stage = b % NS;
    ptx::mbar_wait(&sm.full[stage], (b / NS) & 1);
    const uint8_t* rows = sm.rows + stage * kBlockRows * kRowBytes;
    const int* fl = sm.flags + stage * kBlockRows;

    // ---- scores: S^T[16 candidates, heads] per warp, one accumulator per tile ----
    float sc[NT][4];
#pragma unroll
    for (int j = 0; j < NT; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) sc[j][e] = 0.0f;
    const uint8_t* arow = rows + (16 * w + (lane & 15)) * kRowBytes + (lane >> 4) * 16;
    // Per candidate, the tile scales are shifted by 2^-E_c, E_c = the exponent bound of
    // max_t |s_t| (a normal power of two): |s_t 2^-E_c| < 1 (< 4 past 2^126), so no tile term can overflow
    // and the 2^E_c goes back in once per summed score (Pallas kernel, docs/pallas.md
    // change 11). fmaxf drops a NaN scale here; it is flagged through scale_bad.
    float sdown_a, sdown_b, up_a, up_b;
    {
      const float4 xa = *reinterpret_cast<const float4*>(rows + c_a * kRowBytes + L::kScalesOffset);
      const float4 xb = *reinterpret_cast<const float4*>(rows + c_b * kRowBytes + L::kScalesOffset);
      const float ma = fmaxf(fmaxf(fabsf(xa.x), fabsf(xa.y)), fmaxf(fabsf(xa.z), fabsf(xa.w)));
      const float mb = fmaxf(fmaxf(fabsf(xb.x), fabsf(xb.y)), fmaxf(fabsf(xb.z), fabsf(xb.w)));
      const int ea = exponent_bound(ma), eb = exponent_bound(mb);
      sdown_a = pow2(-ea);
      sdown_b = pow2(-eb);
      up_a = pow2(ea);
      up_b = pow2(eb);
    }
    // Unrolled up to 16 heads (four independent MMA chains); above, one tile's 8 k-steps
    // x NT MMAs are independent enough and the registers go to the value accumulator.
#pragma unroll(NT <= 2 ? 4 : 1)
    for (int t = 0; t < L::kNumTiles; ++t) {
      float acc[NT][4];
#pragma unroll
      for (int j = 0; j < NT; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[j][e] = 0.0f;
#pragma unroll 2
      for (int kp = 0; kp < 4; ++kp) {
        uint32_t r[4];
        ptx::ldsm_x4(r, arow + t * L::kTile + kp * 32);
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          // r[2h]: rows 0-7, bytes 4q4..4q4+3 of the 16-dim chunk; r[2h+1]: rows 8-15.
          // k order inside the chunk is permuted (dims 4q4, 4q4+1 -> k 2q4, 2q4+1;
          // dims 4q4+2, 4q4+3 -> k 2q4+8, 2q4+9), and q's B fragment uses the same order.
          const uint32_t a[4] = {e4m3x2_lo_to_f16x2(r[2 * half]), e4m3x2_lo_to_f16x2(r[2 * half + 1]),
                                 e4m3x2_hi_to_f16x2(r[2 * half]),
                                 e4m3x2_hi_to_f16x2(r[2 * half + 1])};
          const int dim = t * L::kTile + kp * 32 + half * 16 + 4 * q4;
#pragma unroll
          for (int j = 0; j < NT; ++j) {
            const uint2 bq =
                *reinterpret_cast<const uint2*>(sm.qhat + (8 * j + g) * kQRowBytes + dim * 2);
            ptx::mma(acc[j], a, bq.x, bq.y);
          }
        }
      }
      // |acc| < 128 x 448 < 2^16 and |s'| < 4: one FFMA per element, no clamp; a NaN
      // accumulator (NaN code or q) stays NaN through the sum and is flagged once below.
      const float s_a = *reinterpret_cast<const float*>(rows + c_a * kRowBytes + L::kScalesOffset + 4 * t);
      const float s_b = *reinterpret_cast<const float*>(rows + c_b * kRowBytes + L::kScalesOffset + 4 * t);
      scale_bad |= !isfinite(s_a) || !isfinite(s_b);  // zero rows (inactive) have scale 0
      const float sn_a = s_a * sdown_a, sn_b = s_b * sdown_b;
#pragma unroll
      for (int j = 0; j < NT; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) sc[j][e] = fmaf(acc[j][e], e < 2 ? sn_a : sn_b, sc[j][e]);
    }
    const bool act_a = fl[c_a] != 0, act_b = fl[c_b] != 0;
#pragma unroll
    for (int j = 0; j < NT; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float v0 = sc[j][e];
        bad_bits |= uint32_t(isnan(v0)) << (2 * j + (e & 1));
        // |sum'| < 2^20: (sum' pre) cannot overflow (|pre| <= 1); x 2^E_c and x post
        // overflow only when the score itself does (post != 1 only when |f| > 1): a
        // score past float32 saturates to +inf (the max) or -FLT_MAX.
        const float pre = sm.qpre[8 * j + 2 * q4 + (e & 1)];
        const float post = sm.qpost[8 * j + 2 * q4 + (e & 1)];
        float v = ((v0 * pre) * (e < 2 ? up_a : up_b)) * post;
        v = v >= FLT_MAX ? INFINITY : fmaxf(v, -FLT_MAX);
        sc[j][e] = (e < 2 ? act_a : act_b) ? v : -INFINITY;
      }
    // Block maximum per head over this warp's 16 candidates.
#pragma unroll
    for (int j = 0; j < NT; ++j)
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        float mx = fmaxf(sc[j][i], sc[j][i + 2]);
#pragma unroll
        for (int o_ = 4; o_ < 32; o_ *= 2) mx = fmaxf(mx, __shfl_xor_sync(~0u, mx, o_));
        if (g == 0) red_max[(8 * j + 2 * q4 + i) * kRh + w * kRw] = mx;
      }
    ptx::consumer_sync(grp);

    float mnew_c[NT][2], mnew_b[NT];
#pragma unroll
    for (int j = 0; j < NT; ++j) {
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const int h = 8 * j + 2 * q4 + i;
        float m = m_c[j][i];
#pragma unroll
        for (int ww = 0; ww < kConsumerWarps; ++ww) m = fmaxf(m, red_max[h * kRh + ww * kRw]);
        mnew_c[j][i] = m;
      }
      float m = m_b[j];
#pragma unroll
      for (int ww = 0; ww < kConsumerWarps; ++ww) m = fmaxf(m, red_max[(8 * j + g) * kRh + ww * kRw]);
      mnew_b[j] = m;
    }
    // Probabilities in [0, 1] relative to the running max; a +inf score equal to the
    // max counts 1 (inf == inf), never inf - inf.
#pragma unroll
    for (int j = 0; j < NT; ++j)
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const int h = 8 * j + 2 * q4 + i;
        const float m = mnew_c[j][i];
        const float v0 = sc[j][i], v1 = sc[j][i + 2];
        const float p0 = act_a ? (v0 == m ? 1.0f : ptx::exp2_approx(v0 - m)) : 0.0f;
        const float p1 = act_b ? (v1 == m ? 1.0f : ptx::exp2_approx(v1 - m)) : 0.0f;
        pbuf[h * kPRowFloats + c_a] = p0;
        pbuf[h * kPRowFloats + c_b] = p1;
        float s = p0 + p1;
#pragma unroll
        for (int o_ = 4; o_ < 32; o_ *= 2) s += __shfl_xor_sync(~0u, s, o_);
        if (g == 0) red_sum[h * kRh + w * kRw] = s;
      }
    ptx::consumer_sync(grp);

    // New sums; alpha = l_old * corr / l_new is the weight the old mean keeps.
    auto update = [&](float m_old, float m_new, float l_old, int h, float& l_new) {
      const float corr = m_old == m_new ? 1.0f : ptx::exp2_approx(m_old - m_new);
      float sum = 0.0f;
#pragma unroll
      for (int ww = 0; ww < kConsumerWarps; ++ww) sum = __fadd_rn(sum, red_sum[h * kRh + ww * kRw]);
      const float kept = __fmul_rn(l_old, corr);
      l_new = __fadd_rn(kept, sum);
      return l_new > 0.0f ? __fdiv_rn(kept, l_new) : 0.0f;  // l_new >= 1 when > 0
    };
    float alpha_c[NT][2], alpha_b[NT], rl_b[NT];
#pragma unroll
    for (int j = 0; j < NT; ++j) {
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        float l_new;
        alpha_c[j][i] = update(m_c[j][i], mnew_c[j][i], l_c[j][i], 8 * j + 2 * q4 + i, l_new);
        l_c[j][i] = l_new;
        m_c[j][i] = mnew_c[j][i];
      }
      float l_new;
      alpha_b[j] = update(m_b[j], mnew_b[j], l_b[j], 8 * j + g, l_new);
      l_b[j] = l_new;
      m_b[j] = mnew_b[j];
      rl_b[j] = l_new > 0.0f ? __fdiv_rn(1.0f, l_new) : 0.0f;
    }

    // ---- values: O^T[tile w dims, heads] += V^T . U^T ----
    // B fragment: candidates 16kk + 2q4 + {0, 1, 8, 9}, head 8j + g.
    float s_w[4][4];
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int c = 16 * kk + 2 * q4 + (e & 1) + (e >> 1) * 8;
        s_w[kk][e] =
            *reinterpret_cast<const float*>(rows + c * kRowBytes + L::kScalesOffset + 4 * w);
      }
    // Pass 1: the new per-(tile, head) power of two from the largest weighted scale.
    float down_b[NT];
    int delta_b[NT];
#pragma unroll
    for (int j = 0; j < NT; ++j) {
      const float* prow = pbuf + (8 * j + g) * kPRowFloats;
      float big = 0.0f;
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        const float2 x = *reinterpret_cast<const float2*>(prow + 16 * kk + 2 * q4);
        const float2 y = *reinterpret_cast<const float2*>(prow + 16 * kk + 2 * q4 + 8);
        big = fmaxf(big, fabsf(x.x * s_w[kk][0]));
        big = fmaxf(big, fabsf(x.y * s_w[kk][1]));
        big = fmaxf(big, fabsf(y.x * s_w[kk][2]));
        big = fmaxf(big, fabsf(y.y * s_w[kk][3]));
      }
      big = fmaxf(big, __shfl_xor_sync(~0u, big, 1));
      big = fmaxf(big, __shfl_xor_sync(~0u, big, 2));
      big *= rl_b[j];  // rl <= 1
      const float bound = fmaxf(bound_s[8 * j + g] * alpha_b[j], big);
      const int f_new = exponent_bound(bound);
      down_b[j] = pow2(-f_new) * rl_b[j];  // 2^-F / l: U = (p s) down, |U| < 1
      delta_b[j] = f_s[8 * j + g] - f_new;
      __syncwarp();
      if (q4 == 0) {
        bound_s[8 * j + g] = bound;
        f_s[8 * j + g] = f_new;
      }
    }
    // Rescale the running mean: O * alpha * 2^(f_old - f_new), per C-layout head.
#pragma unroll
    for (int j = 0; j < NT; ++j)
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const int d = __shfl_sync(~0u, delta_b[j], (2 * q4 + i) * 4);
        // |d| <= 252: two normal powers of two; alpha <= 1 and the product is <= 2.
        const float f = alpha_c[j][i] * pow2(d / 2) * pow2(d - d / 2);
#pragma unroll
        for (int mt = 0; mt < 8; ++mt) {
          o[mt][j][i] *= f;
          o[mt][j][i + 2] *= f;
        }
      }
    // Pass 2, per 16 candidates: U^T fragments (the same products as pass 1, so |U| < 1
    // before the fp16 rounding), then 8 M-tiles of 16 dims x NT MMAs.
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      uint32_t bfrag[NT][2];
#pragma unroll
      for (int j = 0; j < NT; ++j) {
        const float* prow = pbuf + (8 * j + g) * kPRowFloats;
        const float2 x = *reinterpret_cast<const float2*>(prow + 16 * kk + 2 * q4);
        const float2 y = *reinterpret_cast<const float2*>(prow + 16 * kk + 2 * q4 + 8);
        const float k = down_b[j];
        bfrag[j][0] = pack_f16x2((x.x * s_w[kk][0]) * k, (x.y * s_w[kk][1]) * k);
        bfrag[j][1] = pack_f16x2((y.x * s_w[kk][2]) * k, (y.y * s_w[kk][3]) * k);
      }
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        uint32_t r[4];
        ptx::ldsm_x4_trans(
            r, rows + (16 * kk + (lane & 15)) * kRowBytes + L::kTile * w + 32 * i + (lane >> 4) * 16);
        // r: bytes (c, d), (c, d+1), (c+1, d), (c+1, d+1) with c = 16kk + 2q4 (+8 for r[1],
        // r[3]) and d = 128w + 32i + 2g (+16 for r[2], r[3]); regroup to (d: c, c+1).
        uint32_t a[2][4];
#pragma unroll
        for (int m = 0; m < 2; ++m) {
          const uint32_t x = __byte_perm(r[2 * m], 0, 0x3120);
          const uint32_t y = __byte_perm(r[2 * m + 1], 0, 0x3120);
          a[m][0] = e4m3x2_lo_to_f16x2(x);
          a[m][1] = e4m3x2_hi_to_f16x2(x);
          a[m][2] = e4m3x2_lo_to_f16x2(y);
          a[m][3] = e4m3x2_hi_to_f16x2(y);
        }
#pragma unroll
        for (int j = 0; j < NT; ++j) {
          ptx::mma(o[2 * i][j], a[0], bfrag[j][0], bfrag[j][1]);
          ptx::mma(o[2 * i + 1][j], a[1], bfrag[j][0], bfrag[j][1]);
        }
      }
    }
    __syncwarp();
    if (lane == 0) ptx::mbar_arrive(&sm.empty[stage]);
  }

  // ---- epilogue ----
#pragma unroll
  for (int j = 0; j < NT; ++j)
#pragma unroll
    for (int i = 0; i < 2; ++i)
      if ((bad_bits >> (2 * j + i)) & 1) atomicOr(&sm.bad_head[8 * j + 2 * q4 + i], 1);
  if (__any_sync(~0u, scale_bad) && lane == 0) atomicOr(sm.bad_all, 1);
  ptx::all_consumers_sync<NWG>();  // every block consumed: the row ring is free
  // O of this warp's (tile, heads) is held in units of 2^f (written by other lanes).
  int f_c[NT][2];
#pragma unroll
  for (int j = 0; j < NT; ++j)
#pragma unroll
    for (int i = 0; i < 2; ++i) f_c[j][i] = f_s[8 * j + 2 * q4 + i];
  if constexpr (NWG == 2) {
    // One block or none (a split of one block, b = 1): group 1 saw nothing, no merge.
    if (nblocks <= 1 && grp == 1) return;
  }
  if (NWG == 2 && nblocks > 1) {  // CTA-uniform: both groups take this branch or neither
    // Group 1 hands its state to the same (warp, lane) of group 0 through the ring;
    // group 0 merges the two running means like the split combine (weights
    // l_g 2^(m_g - M), 1 where m_g == M), in units of 2^max(f_0, f_1).
    float* xchg = reinterpret_cast<float*>(sm.rows) + w * (S::kXchgFloats * 32) + lane;
    if (grp == 1) {
#pragma unroll
      for (int j = 0; j < NT; ++j)
#pragma unroll
        for (int i = 0; i < 2; ++i) {
          xchg[(32 * NT + 4 * j + 2 * i) * 32] = m_c[j][i];
          xchg[(32 * NT + 4 * j + 2 * i + 1) * 32] = l_c[j][i];
#pragma unroll
          for (int mt = 0; mt < 8; ++mt) {
            xchg[((mt * NT + j) * 4 + i) * 32] = o[mt][j][i];
            xchg[((mt * NT + j) * 4 + i + 2) * 32] = o[mt][j][i + 2];
          }
        }
    }
    ptx::all_consumers_sync<NWG>();
    if (grp == 1) return;
    const int* f_s1 = reinterpret_cast<const int*>(smem + S::kP + S::kGroup + (S::kBound - S::kP)) +
                      (kConsumerWarps + w) * HP;
#pragma unroll
    for (int j = 0; j < NT; ++j)
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const float m0 = m_c[j][i], l0 = l_c[j][i];
        const float m1 = xchg[(32 * NT + 4 * j + 2 * i) * 32];
        const float l1 = xchg[(32 * NT + 4 * j + 2 * i + 1) * 32];
        const int f0 = f_c[j][i], f1 = f_s1[8 * j + 2 * q4 + i];
        const float m = fmaxf(m0, m1);
        const float k0 = l0 * (m0 == m ? 1.0f : ptx::exp2_approx(m0 - m));
        const float k1 = l1 * (m1 == m ? 1.0f : ptx::exp2_approx(m1 - m));
        const float l = k0 + k1;  // >= 1 when either group saw an active candidate
        const int f = max(f0, f1);
        const int d0 = f0 - f, d1 = f1 - f;  // in [-252, 0]: two normal powers of two
        const float w0 = l > 0.0f ? __fdiv_rn(k0, l) * pow2(d0 / 2) * pow2(d0 - d0 / 2) : 0.0f;
        const float w1 = l > 0.0f ? __fdiv_rn(k1, l) * pow2(d1 / 2) * pow2(d1 - d1 / 2) : 0.0f;
#pragma unroll
        for (int mt = 0; mt < 8; ++mt) {
          o[mt][j][i] = o[mt][j][i] * w0 + xchg[((mt * NT + j) * 4 + i) * 32] * w1;
          o[mt][j][i + 2] = o[mt][j][i + 2] * w0 + xchg[((mt * NT + j) * 4 + i + 2) * 32] * w1;
        }
        m_c[j][i] = m;
        l_c[j][i] = l;
        f_c[j][i] = f;
      }
  }
  const bool any_bad_scale = *sm.bad_all != 0;
#pragma unroll
  for (int j = 0; j < NT; ++j)
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int h = 8 * j + 2 * q4 + i;
      const int f = f_c[j][i];
      if (h >= p.heads) continue;
      const float l = l_c[j][i];
      // Non-finite referenced input poisons the head (never the empty sentinel); a
      // split with no active candidate references nothing.
      const bool bad = l > 0.0f && (sm.bad_head[h] != 0 || any_bad_scale);
      const float up = pow2(f);
      const float lse2 = l > 0.0f ? m_c[j][i] + log2f(l) : -INFINITY;
      float v[8][2];
#pragma unroll
      for (int mt = 0; mt < 8; ++mt) {
        v[mt][0] = o[mt][j][i];
        v[mt][1] = o[mt][j][i + 2];
      }
      store_head(p, token, split, h, w, 0, g, v, up, lse2, bad);
    }
}

// ---------------------------------------------------------------------------
// Up to 8 heads: the warp-private kernel. One CTA per SM of 384 threads: two consumer
// warpgroups take alternate blocks (group g: blocks g, g + 2, ...) and two warps of the
// producer warpgroup gather them (warp 8 + g for group g's blocks, stages of that parity);
// setmaxnreg moves the producers' registers to the consumers. Consumer warp w of a group
// owns rows 16w..16w+15 of each of the group's blocks: its scores S^T[16 candidates, 8 heads] (as above), its own base-2 online softmax
// over those candidates (maxima across the 8 row groups of the warp by shuffles), and its
// own value accumulator O^T[512, 8] over all four tiles (128 fp32 per thread). The block
// loop has no barrier and no shared-memory exchange; the four warps are merged once per
// split (like the split combine). U^T, the value MMA's B operand, comes from the score
// C layout by an 8x8 transpose in registers (movmatrix). O is a running sum in units of
// 2^F per (tile, head), F the exponent bound of the largest weighted scale p |s_t| seen
// (so |U| < 1 in fp16), rescaled only when a maximum or an F moves:
// |O| <= 448 x (candidates of the split) in those units, far from overflow.

constexpr int kPrivateStages = 6;  // 3 per group: 203 KB of rows
constexpr int kPrivateWarps = 2 * kConsumerWarps;

template <int NS, bool kCpAsync>
__global__ void __launch_bounds__(3 * 128, 1) sparse_mla_private_kernel(const SparseMlaParams p) {
  static_assert(NS % 2 == 0, "a group's blocks use the stages of its parity");
  using S = Smem<1, NS>;
  constexpr int HP = 8;
  extern __shared__ __align__(128) uint8_t smem[];
  const SmemView<S> sm(smem, NS);
  ptx::grid_dependency_wait();  // before any global access, reads and writes
  ptx::launch_dependents();
  init_barriers<NS, kCpAsync>(sm.full, sm.empty, kConsumerWarps, sm.bad_all);
  // The split's candidates are computed after setmaxnreg in each role (nothing live
  // across it: a value kept over setmaxnreg is spilled).
  if (threadIdx.x >= kPrivateWarps * 32) {
    ptx::setmaxnreg_dec<kProducerRegs>();  // the whole producer warpgroup
    // Warps 8, 9 gather group 0's blocks (rows 0-31, 32-63), warps 10, 11 group 1's.
    const int k = threadIdx.x / 32 - kPrivateWarps, lane = threadIdx.x % 32;
    const SplitRange r(p);
    gather_rows<NS, kCpAsync>(p, r.token, r.c_begin, r.c_stop, r.nblocks, k % 2, lane, sm.rows,
                              sm.flags, sm.full, sm.empty, k / 2, 2);
    return;
  }
  ptx::setmaxnreg_inc<kConsumerRegs>();
  const auto [token, split, c_begin, c_stop, nblocks] = SplitRange(p);
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;

  prepare_q<HP, kPrivateWarps>(p, token, warp, lane, sm.qhat, sm.qpre, sm.qpost, sm.bad_head);
  ptx::all_consumers_sync<2>();
  const int grp = warp / kConsumerWarps;  // blocks grp, grp + 2, ...
  const int w = warp % kConsumerWarps;    // rows 16 w .. 16 w + 15 of each block
  const int g = lane >> 2;  // mma group: score row (candidate) / value row (dims)
  const int q4 = lane & 3;  // heads 2 q4, 2 q4 + 1 in the C layouts
  const int c_a = 16 * w + g, c_b = c_a + 8;
  const float pre[2] = {sm.qpre[2 * q4], sm.qpre[2 * q4 + 1]};
  const float post[2] = {sm.qpost[2 * q4], sm.qpost[2 * q4 + 1]};

  float m[2] = {-INFINITY, -INFINITY};
  float l[2] = {0.0f, 0.0f};  // this thread's two candidates per block; reduced at the end
  float bound[4][2];
  int fexp[4][2];
  float o[32][4];  // M-tile 8 t + 2 i + m: dims 128 t + 32 i + 16 m + (2 g, 2 g + 1)
#pragma unroll
  for (int t = 0; t < 4; ++t)
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      bound[t][i] = 0.0f;
      fexp[t][i] = -126;
    }
#pragma unroll
  for (int mt = 0; mt < 32; ++mt)
#pragma unroll
    for (int e = 0; e < 4; ++e) o[mt][e] = 0.0f;
  uint32_t bad_bits = 0;
  bool scale_bad = false;

  for (int b = grp; b < nblocks; b += 2) {
    const int stage = b % NS;
    ptx::mbar_wait(&sm.full[stage], (b / NS) & 1);
    const uint8_t* rows = sm.rows + stage * kBlockRows * kRowBytes;
    const int* fl = sm.flags + stage * kBlockRows;

    // ---- scores S^T[16 candidates, 8 heads], per-candidate scale shift (see above) ----
    const float4 xa = *reinterpret_cast<const float4*>(rows + c_a * kRowBytes + L::kScalesOffset);
    const float4 xb = *reinterpret_cast<const float4*>(rows + c_b * kRowBytes + L::kScalesOffset);
    const float sa[4] = {xa.x, xa.y, xa.z, xa.w}, sb[4] = {xb.x, xb.y, xb.z, xb.w};
    float sdown_a, sdown_b, up_a, up_b;
    {
      const float ma = fmaxf(fmaxf(fabsf(xa.x), fabsf(xa.y)), fmaxf(fabsf(xa.z), fabsf(xa.w)));
      const float mb = fmaxf(fmaxf(fabsf(xb.x), fabsf(xb.y)), fmaxf(fabsf(xb.z), fabsf(xb.w)));
      const int ea = exponent_bound(ma), eb = exponent_bound(mb);
      sdown_a = pow2(-ea);
      sdown_b = pow2(-eb);
      up_a = pow2(ea);
      up_b = pow2(eb);
    }
    float sc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    const uint8_t* arow = rows + (16 * w + (lane & 15)) * kRowBytes + (lane >> 4) * 16;
#pragma unroll
    for (int t = 0; t < L::kNumTiles; ++t) {
      float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
      for (int kp = 0; kp < 4; ++kp) {
        uint32_t r[4];
        ptx::ldsm_x4(r, arow + t * L::kTile + kp * 32);
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const uint32_t a[4] = {e4m3x2_lo_to_f16x2(r[2 * half]), e4m3x2_lo_to_f16x2(r[2 * half + 1]),
                                 e4m3x2_hi_to_f16x2(r[2 * half]), e4m3x2_hi_to_f16x2(r[2 * half + 1])};
          const int dim = t * L::kTile + kp * 32 + half * 16 + 4 * q4;
          const uint2 bq = *reinterpret_cast<const uint2*>(sm.qhat + g * kQRowBytes + dim * 2);
          ptx::mma(acc, a, bq.x, bq.y);
        }
      }
      scale_bad |= !isfinite(sa[t]) || !isfinite(sb[t]);  // zero rows (inactive) have scale 0
      const float sn_a = sa[t] * sdown_a, sn_b = sb[t] * sdown_b;
#pragma unroll
      for (int e = 0; e < 4; ++e) sc[e] = fmaf(acc[e], e < 2 ? sn_a : sn_b, sc[e]);
    }
    const bool act_a = fl[c_a] != 0, act_b = fl[c_b] != 0;
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const float v0 = sc[e];
      bad_bits |= uint32_t(isnan(v0)) << (e & 1);
      float v = ((v0 * pre[e & 1]) * (e < 2 ? up_a : up_b)) * post[e & 1];
      v = v >= FLT_MAX ? INFINITY : fmaxf(v, -FLT_MAX);
      sc[e] = (e < 2 ? act_a : act_b) ? v : -INFINITY;
    }

    // ---- online softmax over this warp's candidates (heads 2 q4 + i) ----
    float corr[2], pr[4];
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      float mx = fmaxf(sc[i], sc[i + 2]);
#pragma unroll
      for (int o_ = 4; o_ < 32; o_ *= 2) mx = fmaxf(mx, __shfl_xor_sync(~0u, mx, o_));
      const float mn = fmaxf(m[i], mx);
      corr[i] = m[i] == mn ? 1.0f : ptx::exp2_approx(m[i] - mn);  // +inf == +inf: 1
      m[i] = mn;
      pr[i] = act_a ? (sc[i] == mn ? 1.0f : ptx::exp2_approx(sc[i] - mn)) : 0.0f;
      pr[i + 2] = act_b ? (sc[i + 2] == mn ? 1.0f : ptx::exp2_approx(sc[i + 2] - mn)) : 0.0f;
      l[i] = fmaf(l[i], corr[i], pr[i] + pr[i + 2]);
    }

    // ---- per tile: weighted scales p s_t, the power of two 2^F, U^T by transposition ----
    uint32_t bfrag[4][2];
    float factor[4][2];
    bool rescale = false;
#pragma unroll
    for (int t = 0; t < 4; ++t) {
      const float w0 = pr[0] * sa[t], w1 = pr[1] * sa[t], w2 = pr[2] * sb[t], w3 = pr[3] * sb[t];
      float down[2];
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        float big = fmaxf(fabsf(i ? w1 : w0), fabsf(i ? w3 : w2));
#pragma unroll
        for (int o_ = 4; o_ < 32; o_ *= 2) big = fmaxf(big, __shfl_xor_sync(~0u, big, o_));
        const float bd = fmaxf(bound[t][i] * corr[i], big);
        const int fn = exponent_bound(bd);
        const int d = fexp[t][i] - fn;  // |d| <= 252: two normal powers of two
        bound[t][i] = bd;
        fexp[t][i] = fn;
        factor[t][i] = corr[i] * pow2(d / 2) * pow2(d - d / 2);
        rescale |= factor[t][i] != 1.0f;
        down[i] = pow2(-fn);
      }
      bfrag[t][0] = transpose_8x8(pack_f16x2(w0 * down[0], w1 * down[1]));
      bfrag[t][1] = transpose_8x8(pack_f16x2(w2 * down[0], w3 * down[1]));
    }
    if (__any_sync(~0u, rescale)) {
#pragma unroll
      for (int t = 0; t < 4; ++t)
#pragma unroll
        for (int k = 0; k < 8; ++k)
#pragma unroll
          for (int e = 0; e < 4; ++e) o[8 * t + k][e] *= factor[t][e & 1];
    }

    // ---- values: O^T[512, 8] += V^T[512, own 16 rows] . U^T[16, 8] ----
#pragma unroll
    for (int t = 0; t < 4; ++t)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        uint32_t r[4];
        ptx::ldsm_x4_trans(r, rows + (16 * w + (lane & 15)) * kRowBytes + L::kTile * t + 32 * i +
                                  (lane >> 4) * 16);
#pragma unroll
        for (int mm = 0; mm < 2; ++mm) {
          const uint32_t x = __byte_perm(r[2 * mm], 0, 0x3120);
          const uint32_t y = __byte_perm(r[2 * mm + 1], 0, 0x3120);
          const uint32_t a[4] = {e4m3x2_lo_to_f16x2(x), e4m3x2_hi_to_f16x2(x), e4m3x2_lo_to_f16x2(y),
                                 e4m3x2_hi_to_f16x2(y)};
          ptx::mma(o[8 * t + 2 * i + mm], a, bfrag[t][0], bfrag[t][1]);
        }
      }
    __syncwarp();
    if (lane == 0) ptx::mbar_arrive(&sm.empty[stage]);
  }

  // ---- the eight warps merged: warp u finishes M-tiles 4 (u / 4) .. + 3 of tile u % 4 ----
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    if ((bad_bits >> i) & 1) atomicOr(&sm.bad_head[2 * q4 + i], 1);
#pragma unroll
    for (int o_ = 4; o_ < 32; o_ *= 2) l[i] += __shfl_xor_sync(~0u, l[i], o_);
  }
  if (__any_sync(~0u, scale_bad) && lane == 0) atomicOr(sm.bad_all, 1);
  ptx::all_consumers_sync<2>();  // every block consumed: the row ring is free
  constexpr int U = kPrivateWarps;
  float4* xo = reinterpret_cast<float4*>(sm.rows);  // [tile][source warp][8 M-tiles][32 lanes]
  float* xm = reinterpret_cast<float*>(xo + 4 * U * 8 * 32);  // [source warp][head]
  float* xl = xm + U * HP;
  int* xf = reinterpret_cast<int*>(xl + U * HP);  // [source warp][tile][head]
  static_assert((4 * U * 8 * 32 * 16 + 6 * U * HP * 4) <= NS * kBlockRows * kRowBytes,
                "the merge buffers must fit in the row ring");
#pragma unroll
  for (int t = 0; t < 4; ++t)
#pragma unroll
    for (int k = 0; k < 8; ++k)
      xo[((t * U + warp) * 8 + k) * 32 + lane] =
          make_float4(o[8 * t + k][0], o[8 * t + k][1], o[8 * t + k][2], o[8 * t + k][3]);
  if (g == 0) {
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      xm[warp * HP + 2 * q4 + i] = m[i];
      xl[warp * HP + 2 * q4 + i] = l[i];
#pragma unroll
      for (int t = 0; t < 4; ++t) xf[(warp * 4 + t) * HP + 2 * q4 + i] = fexp[t][i];
    }
  }
  ptx::all_consumers_sync<2>();
  const int tile = warp % 4, mt0 = 4 * (warp / 4);
  const bool any_bad_scale = *sm.bad_all != 0;
  float wgt[U][2], up[2], lse2[2];
  bool bad[2];
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int h = 2 * q4 + i;
    float mmax = -INFINITY;
    int fmax = -126;
#pragma unroll
    for (int u = 0; u < U; ++u) {
      mmax = fmaxf(mmax, xm[u * HP + h]);
      fmax = max(fmax, xf[(u * 4 + tile) * HP + h]);
    }
    float k[U], total = 0.0f;
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const float mu = xm[u * HP + h];
      k[u] = mu == mmax ? 1.0f : ptx::exp2_approx(mu - mmax);  // -inf warps weigh 0
      total = fmaf(xl[u * HP + h], k[u], total);  // fixed order: deterministic
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int d = xf[(u * 4 + tile) * HP + h] - fmax;  // in [-252, 0]
      wgt[u][i] = total > 0.0f ? __fdiv_rn(k[u], total) * pow2(d / 2) * pow2(d - d / 2) : 0.0f;
    }
    up[i] = pow2(fmax);
    lse2[i] = total > 0.0f ? mmax + log2f(total) : -INFINITY;
    bad[i] = total > 0.0f && (sm.bad_head[h] != 0 || any_bad_scale);
  }
  float v[2][4][2];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const float4 x = xo[((tile * U + u) * 8 + mt0 + k) * 32 + lane];
      sum.x = fmaf(x.x, wgt[u][0], sum.x);
      sum.y = fmaf(x.y, wgt[u][1], sum.y);
      sum.z = fmaf(x.z, wgt[u][0], sum.z);
      sum.w = fmaf(x.w, wgt[u][1], sum.w);
    }
    v[0][k][0] = sum.x;  // head 2 q4: dims 2 g (row g) and 2 g + 1 (row g + 8)
    v[0][k][1] = sum.z;
    v[1][k][0] = sum.y;
    v[1][k][1] = sum.w;
  }
#pragma unroll
  for (int i = 0; i < 2; ++i)
    if (2 * q4 + i < p.heads)
      store_head(p, token, split, 2 * q4 + i, tile, mt0, g, v[i], up[i], lse2[i], bad[i]);
}

// ---------------------------------------------------------------------------
// Split combine: one CTA per (token, head), 128 threads x 4 dims, splits merged in
// index order as a running weighted mean (exact LSE merge, no atomics).

__global__ void __launch_bounds__(128) combine_kernel(const SparseMlaParams p) {
  ptx::grid_dependency_wait();  // the attention kernel's partials
  const int token = blockIdx.x;
  const int h = blockIdx.y;
  const int splits = p.num_splits;
  const int64_t base = int64_t(token) * splits * p.heads + h;  // part_lse index of split 0
  // Loads are issued 8 splits at a time before the ordered merge (b = 1 has 32 splits:
  // one global latency per 8 splits instead of per split); same arithmetic and order.
  constexpr int kAhead = 8;
  float m = -INFINITY;
  bool nan = false;
#pragma unroll 8
  for (int s = 0; s < splits; ++s) {
    const float v = p.part_lse[base + int64_t(s) * p.heads];
    nan = nan || isnan(v);
    m = fmaxf(m, v);
  }
  float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  float total = 0.0f;
  if (!nan && m != -INFINITY) {
    for (int s0 = 0; s0 < splits; s0 += kAhead) {
      float v[kAhead];
      float4 x[kAhead];
#pragma unroll
      for (int k = 0; k < kAhead; ++k) {
        const int64_t row = base + int64_t(s0 + k) * p.heads;
        const bool in = s0 + k < splits;  // every split's rows are written, empty ones too
        v[k] = in ? p.part_lse[row] : -INFINITY;
        x[k] = in ? *reinterpret_cast<const float4*>(p.part_out + row * L::kHeadDim + threadIdx.x * 4)
                  : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      }
#pragma unroll
      for (int k = 0; k < kAhead; ++k) {
        const float wgt = v[k] == m ? 1.0f : ptx::exp2_approx(v[k] - m);  // -inf splits weigh 0
        if (wgt == 0.0f) continue;
        const float next = total + wgt;  // >= 1: the split at the max weighs 1
        const float keep = total / next, take = wgt / next;
        acc.x = acc.x * keep + x[k].x * take;
        acc.y = acc.y * keep + x[k].y * take;
        acc.z = acc.z * keep + x[k].z * take;
        acc.w = acc.w * keep + x[k].w * take;
        total = next;
      }
    }
  }
  float lse;
  if (nan) {
    lse = __int_as_float(0x7fffffff);
    acc = make_float4(lse, lse, lse, lse);
  } else {
    lse = total > 0.0f ? (m + log2f(total)) * kLn2 : -INFINITY;
  }
  const int64_t row = int64_t(token) * p.heads + h;
  __nv_bfloat162* dst = reinterpret_cast<__nv_bfloat162*>(p.out + row * L::kHeadDim + threadIdx.x * 4);
  dst[0] = __floats2bfloat162_rn(acc.x, acc.y);
  dst[1] = __floats2bfloat162_rn(acc.z, acc.w);
  if (threadIdx.x == 0) p.lse[row] = lse;
}

// ---------------------------------------------------------------------------
// Launcher. Requires 1 <= heads <= 32, canonical num_splits, blocks_per_split set
// by blocks_per_split_of, scratch present when num_splits > 1. Returns the first
// CUDA error; allocates nothing; stream-capturable.

template <int NT>
cudaError_t launch_heads(const SparseMlaParams& p, cudaStream_t stream) {
  constexpr int NS = stages_for<NT>();
  auto kernel = p.gather_cp_async ? sparse_mla_kernel<NT, NS, true> : sparse_mla_kernel<NT, NS, false>;
  int threads = threads_of(NT);
  int bytes = Smem<NT, NS>::kBytes;
  // Up to 8 heads, splits of two blocks or more: the warp-private kernel (with one block
  // per split its second group would idle; the block-shared kernel is faster there).
  if constexpr (NT == 1) {
    if (p.warp_private && p.blocks_per_split > 1) {
      constexpr int NP = kPrivateStages;
      kernel = p.gather_cp_async ? sparse_mla_private_kernel<NP, true> : sparse_mla_private_kernel<NP, false>;
      threads = 3 * 128;
      bytes = Smem<1, NP>::kBytes;
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
  config.gridDim = dim3(static_cast<unsigned>(ctas));
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
  switch ((p.heads + 7) / 8) {
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
