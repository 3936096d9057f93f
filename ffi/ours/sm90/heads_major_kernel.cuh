// The heads-major kernel: 33-128 heads, one CTA per group of 64 heads (grid y), every MMA
// with M = 64 heads (docs/cuda_sm90.md, "heads-major").
// Part of our sm_90a sparse-MLA kernels (sparse_mla_kernel.cuh is the entry).
//
// One producer warpgroup (two gathering warps, as in every kernel) and two consumer
// warpgroups. Warpgroup wg owns candidates 32 wg .. 32 wg + 31 of every block for the
// scores and the softmax, and dims 256 wg .. 256 wg + 255 (tiles 2 wg, 2 wg + 1) for O.
// Before the first block, the producer warp with no rows to gather brings the CTA's q rows
// (one contiguous run of up to 64 KB) into the fp16 tile's space by one bulk copy, and the
// consumers form q̂ from there (one global latency instead of one per head and warp).
// Per 64-candidate block, warpgroup wg:
//  1. converts its half of the dims of the block's codes, once, into the fp16 tile
//     (core-matrix layout, core_offset<64>), and its candidates' scales into a table: the
//     scales, the scales shifted by 2^-E_c and 2^E_c, once per candidate;
//  2. scores its candidates over all 512 dims: S_wg[64 heads, 32 candidates] = q̂ . codes^T,
//     one accumulator per tile (both operands from shared memory), summed with the exact
//     per-candidate tile scales;
//  3. runs the base-2 softmax of its candidates in registers (a head's candidates sit in
//     one quad: two shuffles per reduction); the two halves' block maxima are exchanged
//     (both warpgroups then hold the same running maximum), and so are the partial sums;
//  4. forms U_t = p s_t 2^-F_t in fp16 for all four tiles over its candidates (F_t per
//     (tile, head), the same in both warpgroups), keeps its own tiles' and hands the
//     other's tiles' to the other warpgroup (register fragments through shared memory);
//  5. accumulates O_t += U_t . V_t for its tiles over all 64 candidates (A from registers,
//     the tile read N-major as B).
// Exchanges live in the stage just converted (free once both warpgroups converted it),
// released to the producer once read. Four barriers per block: the warpgroup's (its half
// of the tile is free), then both warpgroups' after the conversion, the maxima and U.
//
// Numerics as in the candidates-major kernel: q̂ = q 2^-e1 per head, the score factor before or
// after the tile sum, candidate tile scales shifted by 2^-E_c, a lazy running maximum,
// O a running sum in units of 2^F per (tile, head), NaN and Inf rules the same. The bound
// behind F is tight: per head, the running maximum over candidates of p_c 2^E_c (E_c the
// exponent bound of the candidate's largest |s_t|), in log2 units; the four tiles of a head
// share it. A bound taken as max(p) x max_c |s_t| (two maxima over different candidates)
// lets one large row that scores low set F while the dominant small row's U sinks into
// fp16's subnormals. With the tight bound every U is at most 1 and the largest
// candidate's so far at least 2^-2, whatever the scales: a term keeps fp16's precision
// unless it is 2^-14 below the head's largest, and then its error is below O's rounding.

#pragma once

#include "ours/sm90/pipeline.cuh"

namespace jax_glm_nope::sm90 {

constexpr int kHmHeads = 64;    // heads per CTA: the M of every MMA
constexpr int kHmStages = 2;    // a third stage does not fit beside q̂ and the fp16 tile
constexpr int kHmThreads = 3 * 128;

struct HmSmem {
  static constexpr int kHeadsPad = kHmHeads;
  static constexpr int kStage = kBlockRows * kRowBytes;
  static constexpr int kRows = 0;                                 // the row ring
  static constexpr int kQ = kRows + kHmStages * kStage;           // q̂ [64 heads][512], core_offset<64>
  // codes in fp16 [64][512], core_offset<64>; before the first block, the CTA's q rows
  static constexpr int kTile = kQ + kHmHeads * L::kHeadDim * 2;
  // Per block parity: the candidates' four tile scales s [64] float4, the same shifted by
  // 2^-E_c [64] float4, 2^E_c (or -1: inactive) [64] float, and E_c as a float (-inf:
  // inactive) [64] float.
  static constexpr int kTabBytes = kBlockRows * 40;
  static constexpr int kTab = kTile + kBlockRows * L::kHeadDim * 2;
  // Per consumer thread, [word][256 threads]: the running sums l[2] (words 0-1), the
  // (tile, head) bounds in log2 units [4][2] (2-9) and exponents F [4][2] (10-17), kept
  // here rather than in registers beside O. A head's four tiles hold equal values since
  // the bound is per head; the per-tile layout stays with the exchange's (below).
  static constexpr int kStateWords = 18;
  static constexpr int kState = kTab + 2 * kTabBytes;
  static constexpr int kFlags = kState + kStateWords * 256 * 4;
  static constexpr int kFactor = kFlags + kHmStages * kBlockRows * 4;
  static constexpr int kBad = kFactor + 2 * kHeadsPad * 4;
  static constexpr int kBars = (kBad + kHeadsPad * 4 + 16 + 15) / 16 * 16;
  static constexpr int kBytes = kBars + (2 * kHmStages + 1) * 8;  // full, empty, q_full
  // The exchanges, in the converted stage: U fragments and partial sums [wg][18 words][128
  // threads], then per head pair the block maxima and, per tile, the bounds relative to
  // them [wg][5][128] float2 (the four tiles' are equal today; one slot per tile keeps
  // ptxas 13.0 spill-free here, where two slots spill 32 bytes).
  static constexpr int kXchgU = 0;
  static constexpr int kXchgMax = kXchgU + 2 * 18 * 128 * 4;
  static constexpr int kXchgBytes = kXchgMax + 2 * 5 * 128 * 8;
  static_assert(kXchgBytes <= kStage, "the exchanges must fit in a stage");
  static_assert(kBytes <= 227 * 1024, "shared memory");
};
constexpr int kInactive = -1000;  // the exponent table's mark of an inactive candidate

// The heads-major kernel's steps, as functions, so that another kernel or a microbenchmark
// can reuse one (the conversion and the value MMA are).

// Sixteen e4m3 codes (one candidate, dims d .. d + 15, low byte first) as two 16-byte
// rows of fp16 (dims d .. d + 7 and d + 8 .. d + 15), exactly.
__device__ __forceinline__ void e4m3x16_to_f16(const uint4 x, uint4& lo, uint4& hi) {
  lo = make_uint4(e4m3x2_lo_to_f16x2(x.x), e4m3x2_hi_to_f16x2(x.x), e4m3x2_lo_to_f16x2(x.y),
                  e4m3x2_hi_to_f16x2(x.y));
  hi = make_uint4(e4m3x2_lo_to_f16x2(x.z), e4m3x2_hi_to_f16x2(x.z), e4m3x2_lo_to_f16x2(x.w),
                  e4m3x2_hi_to_f16x2(x.w));
}

// A candidate's exponent from the table (E_c, or kInactive): whether it is active, and
// 2^-E_c / 2^E_c (1 / 1 for an inactive one).
__device__ __forceinline__ bool hm_candidate(int e_c, float& down, float& up) {
  const bool a = e_c != kInactive;
  const int ee = a ? e_c : 0;
  down = pow2(-ee);
  up = pow2(ee);
  return a;
}

// A candidate's tile scales s shifted by 2^-E_c (sn) and its 2^E_c (up), from its exponent
// e_c (hm_candidate); whether it is active.
__device__ __forceinline__ bool hm_shifted_scales(const float4 s, int e_c, float (&sn)[4], float& up) {
  float down;
  const bool a = hm_candidate(e_c, down, up);
  sn[0] = s.x * down;
  sn[1] = s.y * down;
  sn[2] = s.z * down;
  sn[3] = s.w * down;
  return a;
}

// Score element e summed over the four tiles' accumulators with the candidate's tile
// scales shifted by 2^-E_c (in tile order: one fma chain).
__device__ __forceinline__ float hm_tile_sum(const float (&acc)[4][16], int e, const float (&sn)[4]) {
  float x = acc[0][e] * sn[0];
#pragma unroll
  for (int t = 1; t < 4; ++t) x = fmaf(acc[t][e], sn[t], x);
  return x;
}

// A candidate's score in log2 units from its scaled tile sum x: the head's factor before
// (pre) and after (post) the candidate's 2^E_c (up); +inf past the float range, never -inf
// for an active candidate, -inf for an inactive one. A NaN score stays NaN: the maxima skip
// it, its probability and so the head's sum become NaN, which marks the head bad.
__device__ __forceinline__ float hm_score(float x, float pre, float up, float post, bool active) {
  float v = ((x * pre) * up) * post;
  v = v >= FLT_MAX ? INFINITY : (v < -FLT_MAX ? -FLT_MAX : v);
  return active ? v : -INFINITY;
}

// The probabilities 2^(v - m) of this thread's N / 2 candidates of head row hi, in place
// (sc[4 j + 2 hi + k]), and their sum over the quad. Inactive scores are -inf, and m = -inf
// (no active candidate yet) is replaced by 0, so 2^(v - m) of an inactive candidate is +0
// without an activity test; v = m = +inf gives 1, a NaN stays NaN.
template <int N>
__device__ __forceinline__ float hm_probabilities(float (&sc)[N], int hi, float m) {
  const float mm = m == -INFINITY ? 0.0f : m;
  float sum = 0.0f;
#pragma unroll
  for (int j = 0; j < N / 4; ++j)
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      const int e = 4 * j + 2 * hi + k;
      const float v = sc[e];
      const float pr = ptx::exp2_approx(v == mm ? 0.0f : v - mm);
      sc[e] = pr;
      sum += pr;
    }
  sum += __shfl_xor_sync(~0u, sum, 1);
  sum += __shfl_xor_sync(~0u, sum, 2);
  return sum;
}

// The CTA's first head (grid y: groups of kHmHeads heads).
__device__ __forceinline__ int hm_first_head() { return kHmHeads * int(blockIdx.y); }

// The epilogue's view: whether any scale was non-finite (the CTA's flag bad_all), and where
// it writes: the CTA's first head and head count, its token and split (read afresh:
// nothing kept across the loop).
struct HmPlace {
  bool any_bad_scale;
  int h0, nh, token, split;
};
__device__ __forceinline__ HmPlace hm_place(const SparseMlaParams& p, const int* bad_all) {
  HmPlace at;
  at.any_bad_scale = *bad_all != 0;
  at.h0 = hm_first_head();
  at.nh = min(kHmHeads, p.heads - at.h0);
  uint32_t cta;
  asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(cta));
  at.token = int(cta) / p.num_splits;
  at.split = int(cta) % p.num_splits;
  return at;
}

// The 64 accumulators of an m64n128 wgmma (one thread's floats) in an asm statement: the
// operand list, and the braces of them (operands 0-63) for the instruction string.
#define JGN_ACC64_OPERANDS(d)                                                                       \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),     \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),        \
      "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]),      \
      "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]),      \
      "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),      \
      "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]),      \
      "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),      \
      "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),      \
      "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define JGN_ACC64_PTX                                                                               \
  "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25," \
  "%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,"   \
  "%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, "

// wgmma shapes of the heads-major kernel: M = 64 heads.
struct HmWgmma {
  // D (+)= A . B, m64n32k16: A (64 heads x 16 dims) and B (32 candidates x 16 dims), both
  // K-major from shared memory; D zeroed first unless `accumulate`.
  __device__ __forceinline__ static void scores(float (&d)[16], uint64_t a, uint64_t b, int accumulate) {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %18, 0;\n"
        " wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, "
        "%16, %17, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
        : "l"(a), "l"(b), "r"(accumulate));
  }
  // D += A . B, m64n128k16: A (64 heads x 16 candidates) from registers, B (16 candidates
  // x 128 dims) N-major from shared memory (imm-trans-b = 1).
  __device__ __forceinline__ static void values(float (&d)[64], const uint32_t (&a)[4], uint64_t b) {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %69, 0;\n"
        " wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
        JGN_ACC64_PTX
        "{%64,%65,%66,%67}, %68, p, 1, 1, 1;\n}\n"
        : JGN_ACC64_OPERANDS(d)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
  }
};

__global__ void __launch_bounds__(kHmThreads, 1) sparse_mla_heads_major_kernel(const SparseMlaParams p) {
  using S = HmSmem;
  constexpr int NS = kHmStages;
  extern __shared__ __align__(128) uint8_t smem[];
  const SmemView<S> sm(smem, NS);
  uint8_t* const tile = smem + S::kTile;
  ptx::grid_dependency_wait();  // before any global access, reads and writes
  ptx::launch_dependents();     // the combine may be scheduled once every CTA is here
  const auto [token, split, c_begin, c_stop, nblocks] = SplitRange(p);
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  uint64_t* const q_full = sm.empty + NS;  // the CTA's q rows landed in the tile's space
  const int q_heads = min(kHmHeads, p.heads - hm_first_head());
  if (threadIdx.x == 0) ptx::mbar_init(q_full, 1);
  // empty: one arrival per consumer warp (each warp's exchange reads done)
  init_barriers<NS>(sm.full, sm.empty, 2 * kConsumerWarps, sm.bad_all);

  if (warp >= 2 * kConsumerWarps) {
    // ---------------- producer ----------------
    ptx::setmaxnreg_dec<kProducerRegs>();
    const int half = warp - 2 * kConsumerWarps;
    if (half < kProducerWarps)
      gather_rows<NS>(p, token, c_begin, c_stop, nblocks, half, lane, sm.rows, sm.flags,
                      sm.full, sm.empty);
    else if (half == kProducerWarps && lane == 0) {  // the warp with no rows to gather
      const uint32_t bytes = uint32_t(q_heads) * L::kHeadDim * 2;
      ptx::mbar_arrive_expect_tx(q_full, bytes);
      ptx::bulk_copy(tile, p.q + (int64_t(token) * p.heads + hm_first_head()) * L::kHeadDim, bytes, q_full);
    }
    return;
  }

  // ---------------- consumers ----------------
  ptx::setmaxnreg_inc<kConsumerRegs>();
  // (a shuffle from lane 0: the compiler then knows it is warp-uniform)
  const int wg = __shfl_sync(~0u, warp / kConsumerWarps, 0);
  const int w = warp % kConsumerWarps;  // heads 16 w .. 16 w + 15 of every MMA
  const int tid = threadIdx.x % 128;
  const int g = lane >> 2;  // heads 16 w + g (hi = 0) and + 8 (hi = 1)
  const int q4 = lane & 3;  // candidates / dims 8 j + 2 q4 + {0, 1} in the C layouts
  // prepare_q over the rows in shared memory: token 0, heads from 0, one 1-KB row each
  SparseMlaParams ps = p;
  ps.q = reinterpret_cast<const __nv_bfloat16*>(tile);
  ps.heads = kHmHeads;
  ptx::mbar_wait(q_full, 0);
  prepare_q<kHmHeads, 2 * kConsumerWarps, true, true>(ps, 0, warp, lane, sm.qhat, sm.qpre, sm.qpost,
                                                      sm.bad_head, 0, q_heads);
  ptx::fence_proxy_async();
  ptx::all_consumers_sync<2>();  // (also: every read of the q rows done before the tile is written)

  float pre[2], post[2];
#pragma unroll
  for (int hi = 0; hi < 2; ++hi) {
    pre[hi] = sm.qpre[16 * w + g + 8 * hi];
    post[hi] = sm.qpost[16 * w + g + 8 * hi];
  }
  float m_run[2] = {-INFINITY, -INFINITY};
  // This thread's state words (word i at st[256 i]): l[hi] at hi, the bound of (tile t,
  // head hi) at 2 + 2 t + hi, its exponent F at 10 + 2 t + hi.
  float* const st = reinterpret_cast<float*>(smem + S::kState) + threadIdx.x;
  int* const st_f = reinterpret_cast<int*>(st);
#pragma unroll
  for (int i = 0; i < 2; ++i) st[256 * i] = 0.0f;
#pragma unroll
  for (int i = 2; i < 10; ++i) st[256 * i] = -INFINITY;
#pragma unroll
  for (int i = 10; i < 18; ++i) st_f[256 * i] = -126;
  bool scale_bad = false;
  float o[2][64];  // own tile t2: heads (g, g + 8), dims 128 (2 wg + t2) + 8 j + 2 q4 + {0, 1}
  zero_acc(o);
  // Descriptors (no swizzle): q̂ and the tile as K-major operands, LBO = 1024 bytes between
  // 8-dim cores, SBO = 128 between 8-row cores; the tile as the value MMA's N-major B,
  // 128 bytes between 8-candidate cores (K), 1024 between 8-dim cores (N) (this field
  // assignment verified on the H200, with a microbenchmark and in this kernel).
  // The warpgroup's part of each operand is in its base descriptors, so that every MMA in
  // the loop adds a compile-time offset (a runtime `wg` term costs five uniform
  // instructions per MMA).
  const uint64_t q_desc = ptx::smem_desc(sm.qhat, 1024, 128);
  const uint64_t k_desc = ptx::smem_desc(tile + 512 * wg, 1024, 128);
  const uint64_t v_desc = ptx::smem_desc(tile + core_offset<64>(0, 256 * wg), 128, 1024);
  // This thread's 16-byte code chunks of every block: candidate cr, dims 256 wg + 16 (dq + 2 i).
  const int cr = (lane & 7) + 8 * ((tid >> 3) & 7);
  const int dq = tid >> 6;

  for (int b = 0; b < nblocks; ++b) {
    const int stage = b % NS;
    uint8_t* const tab = smem + S::kTab + (b & 1) * S::kTabBytes;
    float4* const tab_s = reinterpret_cast<float4*>(tab);                      // [64]
    float4* const tab_sn = reinterpret_cast<float4*>(tab + kBlockRows * 16);    // [64] s 2^-E_c
    float* const tab_up = reinterpret_cast<float*>(tab + kBlockRows * 32);      // [64] 2^E_c, -1 inactive
    float* const tab_e = reinterpret_cast<float*>(tab + kBlockRows * 36);       // [64] E_c, -inf inactive
    ptx::consumer_sync(wg);  // (1) this warpgroup's value MMAs of the previous block are done
    ptx::mbar_wait(&sm.full[stage], (b / NS) & 1);
    uint8_t* rows = sm.rows + stage * S::kStage;

    // ---- the block's codes (own dims) -> fp16 tile; own candidates' scales -> table ----
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int d = 256 * wg + 16 * (dq + 2 * i);
      uint4 lo, hi;
      e4m3x16_to_f16(*reinterpret_cast<const uint4*>(rows + cr * kRowBytes + d), lo, hi);
      *reinterpret_cast<uint4*>(tile + core_offset<64>(cr, d)) = lo;
      *reinterpret_cast<uint4*>(tile + core_offset<64>(cr, d + 8)) = hi;
    }
    if (w == 0) {  // lane = candidate 32 wg + lane
      const int c = 32 * wg + lane;
      const float4 s = *reinterpret_cast<const float4*>(rows + c * kRowBytes + L::kScalesOffset);
      const float sv[4] = {fabsf(s.x), fabsf(s.y), fabsf(s.z), fabsf(s.w)};
      scale_bad |= !isfinite(s.x) || !isfinite(s.y) || !isfinite(s.z) || !isfinite(s.w);  // zero rows: 0
      tab_s[c] = s;
      // The candidate's shifted scales and 2^E_c, once per candidate here rather than by
      // each of the 32 threads that hold it.
      const int e_c = sm.flags[stage * kBlockRows + c] != 0
                          ? exponent_bound(fmaxf(fmaxf(sv[0], sv[1]), fmaxf(sv[2], sv[3])))
                          : kInactive;
      float sn[4], up;
      const bool a = hm_shifted_scales(s, e_c, sn, up);
      tab_sn[c] = make_float4(sn[0], sn[1], sn[2], sn[3]);
      tab_up[c] = a ? up : -1.0f;
      tab_e[c] = a ? float(e_c) : -INFINITY;  // (a NaN scale: flagged bad anyway)
    }
    ptx::fence_proxy_async();      // the tile is read by the MMAs through the async proxy
    ptx::all_consumers_sync<2>();  // (2) the tile and table are complete; the stage is free

    // ---- scores of own candidates over all dims: one accumulator per tile ----
    float acc[4][16];
#pragma unroll
    for (int t = 0; t < 4; ++t)
#pragma unroll
      for (int e = 0; e < 16; ++e) asm volatile("" : "=f"(acc[t][e]));  // overwritten by s = 0
    ptx::wgmma_fence();
#pragma unroll
    for (int t = 0; t < 4; ++t)
#pragma unroll
      for (int s = 0; s < 8; ++s) {
        const int d0 = 128 * t + 16 * s;  // core_offset<64>(0, d0) and (32 wg, d0)
        HmWgmma::scores(acc[t], q_desc + uint64_t((d0 * 128) >> 4), k_desc + uint64_t((d0 * 128) >> 4), s > 0);
      }
    ptx::wgmma_commit();
    ptx::wgmma_wait<0>();
#pragma unroll
    for (int t = 0; t < 4; ++t) ptx::fence_regs(acc[t]);

    // ---- scaled scores (e = 4 j + 2 hi + k: candidate 32 wg + 8 j + 2 q4 + k, head hi) ----
    float sc[16];
    float mx[2] = {-INFINITY, -INFINITY};
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int k = 0; k < 2; ++k) {
        const int c = 32 * wg + 8 * j + 2 * q4 + k;
        const float4 s4 = tab_sn[c];
        const float sn[4] = {s4.x, s4.y, s4.z, s4.w};
        const float up = tab_up[c];
        const bool a = up > 0.0f;
#pragma unroll
        for (int hi = 0; hi < 2; ++hi) {
          const int e = 4 * j + 2 * hi + k;
          sc[e] = hm_score(hm_tile_sum(acc, e, sn), pre[hi], up, post[hi], a);  // (an inactive one: -inf)
          mx[hi] = fmaxf(mx[hi], sc[e]);
        }
      }
    // The block maximum per head over this warpgroup's candidates; then, relative to it, the
    // bound of p_c 2^E_c in log2 units: max_c (v_c - mx) + E_c (a NaN score is skipped by
    // the maxima; an inactive candidate's E is -inf).
#pragma unroll
    for (int hi = 0; hi < 2; ++hi) {
      mx[hi] = fmaxf(mx[hi], __shfl_xor_sync(~0u, mx[hi], 1));
      mx[hi] = fmaxf(mx[hi], __shfl_xor_sync(~0u, mx[hi], 2));
    }
    float y1[2] = {-INFINITY, -INFINITY};
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int k = 0; k < 2; ++k) {
        const float e_c = tab_e[32 * wg + 8 * j + 2 * q4 + k];
#pragma unroll
        for (int hi = 0; hi < 2; ++hi) {
          const float v = sc[4 * j + 2 * hi + k];
          const float rel = v == mx[hi] ? 0.0f : v - mx[hi];  // <= 0; (+inf == +inf: 0)
          y1[hi] = fmaxf(y1[hi], rel + e_c);
        }
      }
#pragma unroll
    for (int hi = 0; hi < 2; ++hi) {
      y1[hi] = fmaxf(y1[hi], __shfl_xor_sync(~0u, y1[hi], 1));
      y1[hi] = fmaxf(y1[hi], __shfl_xor_sync(~0u, y1[hi], 2));
    }
    float yb[2][4];  // [hi][t]
#pragma unroll
    for (int hi = 0; hi < 2; ++hi)
#pragma unroll
      for (int t = 0; t < 4; ++t) yb[hi][t] = y1[hi];
    float2* const xmax = reinterpret_cast<float2*>(rows + S::kXchgMax);  // [wg][5][128]
    xmax[(wg * 5) * 128 + tid] = make_float2(mx[0], mx[1]);
#pragma unroll
    for (int t = 0; t < 4; ++t) xmax[(wg * 5 + 1 + t) * 128 + tid] = make_float2(yb[0][t], yb[1][t]);
    ptx::all_consumers_sync<2>();  // (3) both halves' maxima and bounds
    const float2 mo = xmax[((wg ^ 1) * 5) * 128 + tid];
    float yo[2][4];
#pragma unroll
    for (int t = 0; t < 4; ++t) {
      const float2 y2 = xmax[((wg ^ 1) * 5 + 1 + t) * 128 + tid];
      yo[0][t] = y2.x;
      yo[1][t] = y2.y;
    }
    float bmax[2], corr[2], shift[2], psum[2];
#pragma unroll
    for (int hi = 0; hi < 2; ++hi) {
      const float other = hi ? mo.y : mo.x;
      bmax[hi] = wg == 0 ? fmaxf(mx[hi], other) : fmaxf(other, mx[hi]);  // one order in both
      const float m_old = m_run[hi];
      const float m = bmax[hi] > m_old + kLazyMax ? bmax[hi] : m_old;  // lazy_max
      corr[hi] = m_old == m ? 1.0f : ptx::exp2_approx(m_old - m);
      shift[hi] = m_old == m ? 0.0f : m_old - m;  // log2(corr): the old bounds' move
      m_run[hi] = m;
      psum[hi] = hm_probabilities(sc, hi, m);
      // The block's bounds relative to m, the same bits in both warpgroups (each adds the
      // same pair of numbers and takes an exact maximum).
      const float d_own = mx[hi] == m ? 0.0f : mx[hi] - m;
      const float d_oth = other == m ? 0.0f : other - m;
#pragma unroll
      for (int t = 0; t < 4; ++t) {
        yb[hi][t] = fmaxf(yb[hi][t] + d_own, yo[hi][t] + d_oth);
      }
    }
    // Per (tile, head), the same in both warpgroups: the running bound B of log2(p 2^E),
    // its exponent F = ceil(B) and O's rescale factor (own tiles).
    // r = 0: own tiles (2 wg + t2), r = 1: the other warpgroup's.
    float down[2][2][2];  // [r][t2][hi]: 2^-F
#pragma unroll
    for (int r = 0; r < 2; ++r)
#pragma unroll
      for (int t2 = 0; t2 < 2; ++t2) {
        const int t = 2 * (wg ^ r) + t2;
#pragma unroll
        for (int hi = 0; hi < 2; ++hi) {
          float* const bw = st + 256 * (2 + 2 * t + hi);
          int* const fw = st_f + 256 * (10 + 2 * t + hi);
          // (tile t's bound by two compile-time indices: a runtime one puts yb in memory)
          const float y_t = (wg ^ r) != 0 ? yb[hi][2 + t2] : yb[hi][t2];
          const float bnd = fmaxf(*bw + shift[hi], y_t);
          const int f_new = int(fminf(fmaxf(ceilf(bnd), -126.0f), 126.0f));  // (-inf: -126)
          const int d = *fw - f_new;
          *bw = bnd;
          *fw = f_new;
          down[r][t2][hi] = pow2(-f_new);
          if (r == 0) {
            // |d| <= 252: two normal powers of two; 1 (no rescale) unless the maximum or
            // the exponent moved.
            const float factor = corr[hi] * pow2(d / 2) * pow2(d - d / 2);
            if (factor != 1.0f) {
#pragma unroll
              for (int j = 0; j < 16; ++j) {
                o[t2][4 * j + 2 * hi] *= factor;
                o[t2][4 * j + 2 * hi + 1] *= factor;
              }
            }
          }
        }
      }
    // U_t = p s_t 2^-F over own candidates: own tiles kept, the other's handed over (with
    // the partial sums) through the stage.
    uint32_t u[2][4][2];   // own tiles [t2][j][hi]
    uint32_t* const xu = reinterpret_cast<uint32_t*>(rows + S::kXchgU);  // [wg][18][128]
#pragma unroll
    for (int r = 0; r < 2; ++r)
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int c = 32 * wg + 8 * j + 2 * q4;
        // scales of tiles 2 (wg ^ r), + 1 of candidates c, c + 1
        const float2 s0 = reinterpret_cast<const float2*>(tab_s + c)[wg ^ r];
        const float2 s1 = reinterpret_cast<const float2*>(tab_s + c + 1)[wg ^ r];
#pragma unroll
        for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
          for (int hi = 0; hi < 2; ++hi) {
            const float dn = down[r][t2][hi];
            const uint32_t x = pack_f16x2((sc[4 * j + 2 * hi] * (t2 ? s0.y : s0.x)) * dn,
                                          (sc[4 * j + 2 * hi + 1] * (t2 ? s1.y : s1.x)) * dn);
            if (r == 0)
              u[t2][j][hi] = x;
            else
              xu[(wg * 18 + (t2 * 4 + j) * 2 + hi) * 128 + tid] = x;
          }
      }
    xu[(wg * 18 + 16) * 128 + tid] = __float_as_uint(psum[0]);
    xu[(wg * 18 + 17) * 128 + tid] = __float_as_uint(psum[1]);
    ptx::all_consumers_sync<2>();  // (4) both halves' U and sums
    uint32_t uo[2][4][2];  // own tiles over the other warpgroup's candidates
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int hi = 0; hi < 2; ++hi) uo[t2][j][hi] = xu[((wg ^ 1) * 18 + (t2 * 4 + j) * 2 + hi) * 128 + tid];
#pragma unroll
    for (int hi = 0; hi < 2; ++hi) {
      const float other = __uint_as_float(xu[((wg ^ 1) * 18 + 16 + hi) * 128 + tid]);
      const float sum = wg == 0 ? __fadd_rn(psum[hi], other) : __fadd_rn(other, psum[hi]);
      st[256 * hi] = __fadd_rn(__fmul_rn(st[256 * hi], corr[hi]), sum);
    }
    ptx::fence_proxy_async();  // generic accesses of the stage before the producer's bulk copies
    __syncwarp();
    if (lane == 0) ptx::mbar_arrive(&sm.empty[stage]);

    // ---- values: O_t[64 heads, 128 dims] += U_t . V_t per own tile, all 64 candidates ----
    // The A fragments first (all defined before the fence: no injected arrives).
    uint32_t a[2][4][4];  // [t2][kk]: candidates 16 kk .. 16 kk + 15, warpgroup kk / 2's
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        const bool mine = (kk / 2) == wg;
        const int j0 = 2 * (kk % 2);
        a[t2][kk][0] = mine ? u[t2][j0][0] : uo[t2][j0][0];
        a[t2][kk][1] = mine ? u[t2][j0][1] : uo[t2][j0][1];
        a[t2][kk][2] = mine ? u[t2][j0 + 1][0] : uo[t2][j0 + 1][0];
        a[t2][kk][3] = mine ? u[t2][j0 + 1][1] : uo[t2][j0 + 1][1];
      }
    ptx::wgmma_fence();
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        // candidates 16 kk.. (cores 2 kk, 2 kk + 1), dims 128 (2 wg + t2).. (core 16 (2 wg + t2))
        const uint64_t off = uint64_t((core_offset<64>(16 * kk, 128 * t2)) >> 4);
        HmWgmma::values(o[t2], a[t2][kk], v_desc + off);
      }
    ptx::wgmma_commit();
    ptx::wgmma_wait<0>();
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2) ptx::fence_regs(o[t2]);
  }

  // ---- epilogue ----
  if (__any_sync(~0u, scale_bad) && lane == 0) atomicOr(sm.bad_all, 1);
  ptx::all_consumers_sync<2>();
  const HmPlace at = hm_place(p, sm.bad_all);
#pragma unroll
  for (int hi = 0; hi < 2; ++hi) {
    const int h = 16 * w + g + 8 * hi;
    if (h >= at.nh) continue;
    const float l = st[256 * hi];
    const float rl = l > 0.0f ? __fdiv_rn(1.0f, l) : 0.0f;
    // A NaN sum: a NaN score was seen; otherwise non-finite referenced input poisons the
    // head (never the empty sentinel).
    const bool bad = isnan(l) || (l > 0.0f && (sm.bad_head[h] != 0 || at.any_bad_scale));
    const float lse2 = l > 0.0f ? m_run[hi] + log2f(l) : -INFINITY;
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2) {
      float v[16][2];
#pragma unroll
      for (int j = 0; j < 16; ++j) {
        v[j][0] = o[t2][4 * j + 2 * hi] * rl;
        v[j][1] = o[t2][4 * j + 2 * hi + 1] * rl;
      }
      store_head_at<16>(p, at.token, at.split, at.h0 + h, 128 * (2 * wg + t2), 8, q4, v,
                        pow2(st_f[256 * (10 + 2 * (2 * wg + t2) + hi)]), lse2, bad,
                        wg == 0 && t2 == 0 && q4 == 0);
    }
  }
}

}  // namespace jax_glm_nope::sm90
