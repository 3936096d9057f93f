// The heads-major kernel (family L): 33-128 heads, one CTA per group of 64 heads (grid y),
// every MMA with M = 64 heads (docs/cuda_sm90.md, "The heads-major kernel").
// Part of our sm_90a sparse-MLA kernels (sparse_mla_kernel.cuh is the entry).
//
// One producer warpgroup (two gathering warps, as in every kernel) and two consumer
// warpgroups that own the dims: warpgroup wg holds O[64 heads, dims 256 wg .. 256 wg + 255]
// (tiles 2 wg, 2 wg + 1) and takes every block. Per 64-candidate block, warpgroup wg:
//  1. converts its half of the block's codes, once, into its half of an fp16 tile
//     (core-matrix layout, core_offset<64>) and copies its tiles' scales into a table;
//  2. scores its half: S_wg[64 heads, 64 candidates] = q̂ . codes^T over its 256 dims,
//     one accumulator per tile (both operands from shared memory), summed with the exact
//     per-candidate tile scales;
//  3. exchanges S_wg with the other warpgroup through the stage it has just converted
//     (free once both converted), so that both hold the same S = S_0 + S_1 and run the
//     same base-2 softmax in registers (a head's 64 candidates sit in one quad: two
//     shuffles per reduction, no block barrier);
//  4. releases the stage, and accumulates O_t += U_t . V_t for its tiles, U_t = p s_t 2^-F_t
//     in fp16 from the score accumulator layout (A from registers), V_t the fp16 tile read
//     N-major (B from shared memory).
// Three barriers per block: the warpgroup's (the tile is free), both warpgroups' (the
// stage is converted), both warpgroups' (the exchange is written).
//
// Numerics as in the wgmma kernel: q̂ = q 2^-e1 per head, the score factor before or
// after the tile sum, candidate tile scales shifted by 2^-E_c, a lazy running maximum,
// O a running sum in units of 2^F per (tile, head), NaN and Inf rules the same.

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
  static constexpr int kTile = kQ + kHmHeads * L::kHeadDim * 2;   // codes in fp16 [64][512], core_offset<64>
  // Per warpgroup and block parity: its two tiles' scales [2][64] (float) and the
  // candidates' exponents E_c, or kInactive ([64] int).
  static constexpr int kTabBytes = 3 * kBlockRows * 4;
  static constexpr int kTab = kTile + kBlockRows * L::kHeadDim * 2;
  // Per consumer thread, [word][256 threads]: the running sums l (2), the (tile, head)
  // bounds (4) and exponents F (4), kept here rather than in registers beside O.
  static constexpr int kStateWords = 10;
  static constexpr int kState = kTab + 2 * 2 * kTabBytes;
  static constexpr int kFlags = kState + kStateWords * 256 * 4;
  static constexpr int kFactor = kFlags + kHmStages * kBlockRows * 4;
  static constexpr int kBad = kFactor + 2 * kHeadsPad * 4;
  static constexpr int kBars = (kBad + kHeadsPad * 4 + 16 + 15) / 16 * 16;
  static constexpr int kBytes = kBars + 2 * kHmStages * 8;
  // The score exchange: [warpgroup][8][128 threads] float4, in the converted stage.
  static constexpr int kXchgBytes = 2 * 8 * 128 * 16;
  static_assert(kXchgBytes <= kStage, "the score exchange must fit in a stage");
  static_assert(kBytes <= 227 * 1024, "shared memory");
};
constexpr int kInactive = -1000;  // the exponent table's mark of an inactive candidate

// wgmma shapes of the heads-major kernel: M = 64 heads.
struct HmWgmma {
  // D (+)= A . B, m64n64k16: A (64 heads x 16 dims) and B (64 candidates x 16 dims), both
  // K-major from shared memory; D zeroed first unless `accumulate`.
  __device__ __forceinline__ static void scores(float (&d)[32], uint64_t a, uint64_t b, int accumulate) {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %34, 0;\n"
        " wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, "
        "%32, %33, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "l"(a), "l"(b), "r"(accumulate));
  }
  // D += A . B, m64n128k16: A (64 heads x 16 candidates) from registers, B (16 candidates
  // x 128 dims) N-major from shared memory (imm-trans-b = 1).
  __device__ __forceinline__ static void values(float (&d)[64], const uint32_t (&a)[4], uint64_t b) {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %69, 0;\n"
        " wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, "
        "{%64,%65,%66,%67}, %68, p, 1, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1));
  }
};

template <bool kCpAsync>
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
  // empty: one arrival per consumer warp (each warp's exchange reads done)
  init_barriers<NS, kCpAsync>(sm.full, sm.empty, 2 * kConsumerWarps, sm.bad_all);

  if (warp >= 2 * kConsumerWarps) {
    // ---------------- producer ----------------
    ptx::setmaxnreg_dec<kProducerRegs>();
    const int half = warp - 2 * kConsumerWarps;
    if (half < kProducerWarps)
      gather_rows<NS, kCpAsync>(p, token, c_begin, c_stop, nblocks, half, lane, sm.rows, sm.flags,
                                sm.full, sm.empty);
    return;
  }

  // ---------------- consumers ----------------
  ptx::setmaxnreg_inc<kConsumerRegs>();
  // (a shuffle from lane 0: the compiler then knows it is warp-uniform)
  const int wg = __shfl_sync(~0u, warp / kConsumerWarps, 0);  // dims 256 wg .. 256 wg + 255
  const int w = warp % kConsumerWarps;  // heads 16 w .. 16 w + 15 of every MMA
  const int tid = threadIdx.x % 128;
  const int g = lane >> 2;  // heads 16 w + g (hi = 0) and + 8 (hi = 1)
  const int q4 = lane & 3;  // candidates / dims 8 j + 2 q4 + {0, 1} in the C layouts
  auto first_head = [] { return kHmHeads * int(blockIdx.y); };
  prepare_q<kHmHeads, 2 * kConsumerWarps, true, true>(p, token, warp, lane, sm.qhat, sm.qpre,
                                                      sm.qpost, sm.bad_head, first_head(),
                                                      min(kHmHeads, p.heads - first_head()));
  ptx::fence_proxy_async();  // q̂ is read by the score MMAs through the async proxy
  ptx::all_consumers_sync<2>();

  float pre[2], post[2];
#pragma unroll
  for (int hi = 0; hi < 2; ++hi) {
    pre[hi] = sm.qpre[16 * w + g + 8 * hi];
    post[hi] = sm.qpost[16 * w + g + 8 * hi];
  }
  float m_run[2] = {-INFINITY, -INFINITY};
  // This thread's state words: l[hi] at 0 + hi, bound[t2][hi] at 2 + 2 t2 + hi, F[t2][hi]
  // at 6 + 2 t2 + hi (each word w at st[256 w]).
  float* const st = reinterpret_cast<float*>(smem + S::kState) + threadIdx.x;
  int* const st_f = reinterpret_cast<int*>(st);
#pragma unroll
  for (int i = 0; i < 6; ++i) st[256 * i] = 0.0f;
#pragma unroll
  for (int i = 6; i < 10; ++i) st_f[256 * i] = -126;
  bool scale_bad = false;
  float o[2][64];  // own tile t2: heads (g, g + 8), dims 128 (2 wg + t2) + 8 j + 2 q4 + {0, 1}
#pragma unroll
  for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
    for (int e = 0; e < 64; ++e) o[t2][e] = 0.0f;
  // Descriptors (no swizzle): q̂ and the tile as K-major operands, LBO = 1024 bytes between
  // 8-dim cores, SBO = 128 between 8-row cores; the tile as the value MMA's N-major B,
  // 128 bytes between 8-candidate cores (K), 1024 between 8-dim cores (N).
  const uint64_t q_desc = ptx::smem_desc(sm.qhat, 1024, 128);
  const uint64_t k_desc = ptx::smem_desc(tile, 1024, 128);
  const uint64_t v_desc = p.hm_swap_value_desc ? ptx::smem_desc(tile, 1024, 128) : ptx::smem_desc(tile, 128, 1024);
  // This thread's 16-byte code chunks of every block: candidate cr, dims 256 wg + 16 (dq + 2 i).
  const int cr = (lane & 7) + 8 * ((tid >> 3) & 7);
  const int dq = tid >> 6;

  for (int b = 0; b < nblocks; ++b) {
    const int stage = b % NS;
    const int par = b & 1;
    float* tab_raw = reinterpret_cast<float*>(smem + S::kTab + (wg * 2 + par) * S::kTabBytes);
    int* tab_exp = reinterpret_cast<int*>(tab_raw + 2 * kBlockRows);
    ptx::consumer_sync(wg);  // (1) the previous block's value MMAs of this warpgroup are done
    ptx::mbar_wait(&sm.full[stage], (b / NS) & 1);
    uint8_t* rows = sm.rows + stage * S::kStage;

    // ---- the block's codes (own half) -> fp16 tile; own tiles' scales -> table ----
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int d = 256 * wg + 16 * (dq + 2 * i);
      const uint4 x = *reinterpret_cast<const uint4*>(rows + cr * kRowBytes + d);
      const uint4 lo = make_uint4(e4m3x2_lo_to_f16x2(x.x), e4m3x2_hi_to_f16x2(x.x),
                                  e4m3x2_lo_to_f16x2(x.y), e4m3x2_hi_to_f16x2(x.y));
      const uint4 hi = make_uint4(e4m3x2_lo_to_f16x2(x.z), e4m3x2_hi_to_f16x2(x.z),
                                  e4m3x2_lo_to_f16x2(x.w), e4m3x2_hi_to_f16x2(x.w));
      *reinterpret_cast<uint4*>(tile + core_offset<64>(cr, d)) = lo;
      *reinterpret_cast<uint4*>(tile + core_offset<64>(cr, d + 8)) = hi;
    }
    if (tid < kBlockRows) {
      const float4 s = *reinterpret_cast<const float4*>(rows + tid * kRowBytes + L::kScalesOffset);
      const float mx = fmaxf(fmaxf(fabsf(s.x), fabsf(s.y)), fmaxf(fabsf(s.z), fabsf(s.w)));
      scale_bad |= !isfinite(s.x) || !isfinite(s.y) || !isfinite(s.z) || !isfinite(s.w);  // zero rows: 0
      tab_raw[tid] = wg == 0 ? s.x : s.z;
      tab_raw[kBlockRows + tid] = wg == 0 ? s.y : s.w;
      tab_exp[tid] = sm.flags[stage * kBlockRows + tid] != 0 ? exponent_bound(mx) : kInactive;
    }
    ptx::fence_proxy_async();      // the tile is read by the MMAs through the async proxy
    ptx::all_consumers_sync<2>();  // (2) both halves converted: the stage may hold the exchange

    // ---- scores over own dims: one accumulator per own tile ----
    float acc[2][32];
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
      for (int e = 0; e < 32; ++e) asm volatile("" : "=f"(acc[t2][e]));  // overwritten by s = 0
    ptx::wgmma_fence();
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
      for (int s = 0; s < 8; ++s) {
        const uint64_t off = uint64_t((256 * wg + 128 * t2 + 16 * s) * 128 >> 4);  // core_offset<64>(0, d)
        HmWgmma::scores(acc[t2], q_desc + off, k_desc + off, s > 0);
      }
    ptx::wgmma_commit();
    ptx::wgmma_wait<0>();
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2) ptx::fence_regs(acc[t2]);

    // Own part of the score sum, sum_t acc_t s_t 2^-E_c (e = 4 j + 2 hi + k: candidate
    // 8 j + 2 q4 + k, head hi), written for the other warpgroup.
    float sc[32];
    uint32_t act = 0;  // bit 2 j + k: candidate 8 j + 2 q4 + k is active
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const int c = 8 * j + 2 * q4;
      const float2 r0 = *reinterpret_cast<const float2*>(tab_raw + c);
      const float2 r1 = *reinterpret_cast<const float2*>(tab_raw + kBlockRows + c);
      const int2 ex = *reinterpret_cast<const int2*>(tab_exp + c);
#pragma unroll
      for (int k = 0; k < 2; ++k) {
        const int e_c = k ? ex.y : ex.x;
        const bool a = e_c != kInactive;
        const int ee = a ? e_c : 0;
        act |= uint32_t(a) << (2 * j + k);
        const float down = pow2(-ee);
        const float sn0 = (k ? r0.y : r0.x) * down, sn1 = (k ? r1.y : r1.x) * down;
#pragma unroll
        for (int hi = 0; hi < 2; ++hi) {
          const int e = 4 * j + 2 * hi + k;
          sc[e] = fmaf(acc[1][e], sn1, acc[0][e] * sn0);
        }
      }
    }
    float4* xchg = reinterpret_cast<float4*>(rows);  // [wg][8][128]
#pragma unroll
    for (int k = 0; k < 8; ++k)
      xchg[(wg * 8 + k) * 128 + tid] = make_float4(sc[4 * k], sc[4 * k + 1], sc[4 * k + 2], sc[4 * k + 3]);
    ptx::all_consumers_sync<2>();  // (3) both parts written
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const float4 y = xchg[((wg ^ 1) * 8 + k) * 128 + tid];
      // S_0 + S_1 in both warpgroups (addition commutes: the same bits)
      sc[4 * k] += y.x;
      sc[4 * k + 1] += y.y;
      sc[4 * k + 2] += y.z;
      sc[4 * k + 3] += y.w;
    }
    ptx::fence_proxy_async();  // generic accesses of the stage before the producer's bulk copies
    __syncwarp();
    if (lane == 0) ptx::mbar_arrive(&sm.empty[stage]);

    // ---- softmax in registers: the same in both warpgroups ----
    float corr[2];
#pragma unroll
    for (int hi = 0; hi < 2; ++hi) {
      float mx = -INFINITY;
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        // 2^E_c again from the table (registers are short beside the 128 of O)
        const int2 ex = *reinterpret_cast<const int2*>(tab_exp + 8 * j + 2 * q4);
#pragma unroll
        for (int k = 0; k < 2; ++k) {
          const int e = 4 * j + 2 * hi + k;
          const int e_c = k ? ex.y : ex.x;
          const float up = pow2(e_c != kInactive ? e_c : 0);
          // A NaN score stays NaN: the maxima skip it, its probability and so the head's
          // sum become NaN, which marks the head bad at the end.
          float v = ((sc[e] * pre[hi]) * up) * post[hi];
          v = v >= FLT_MAX ? INFINITY : (v < -FLT_MAX ? -FLT_MAX : v);
          v = (act >> (2 * j + k)) & 1 ? v : -INFINITY;
          sc[e] = v;
          mx = fmaxf(mx, v);
        }
      }
      mx = fmaxf(mx, __shfl_xor_sync(~0u, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(~0u, mx, 2));
      const float m_old = m_run[hi];
      const float m = mx > m_old + kLazyMax ? mx : m_old;  // lazy_max
      corr[hi] = m_old == m ? 1.0f : ptx::exp2_approx(m_old - m);
      m_run[hi] = m;
      float sum = 0.0f;
#pragma unroll
      for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int k = 0; k < 2; ++k) {
          const int e = 4 * j + 2 * hi + k;
          const float v = sc[e];
          const float pr = (act >> (2 * j + k)) & 1 ? (v == m ? 1.0f : ptx::exp2_approx(v - m)) : 0.0f;
          sc[e] = pr;
          sum += pr;
        }
      sum += __shfl_xor_sync(~0u, sum, 1);
      sum += __shfl_xor_sync(~0u, sum, 2);
      st[256 * hi] = __fadd_rn(__fmul_rn(st[256 * hi], corr[hi]), sum);
    }
    // Per own tile and head: the bound of p |s_t|, the exponent F and O's rescale factor;
    // then U_t = p s_t 2^-F in fp16 (the value MMA's A fragments). The scales are re-read
    // from the table where used (registers are short beside the 128 of O).
    float big[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};  // [t2][hi]
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int t2 = 0; t2 < 2; ++t2) {
        const float2 r = *reinterpret_cast<const float2*>(tab_raw + t2 * kBlockRows + 8 * j + 2 * q4);
#pragma unroll
        for (int hi = 0; hi < 2; ++hi)
          big[t2][hi] = fmaxf(big[t2][hi], fmaxf(fabsf(sc[4 * j + 2 * hi] * r.x),
                                                 fabsf(sc[4 * j + 2 * hi + 1] * r.y)));
      }
    float down[2][2];
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
      for (int hi = 0; hi < 2; ++hi) {
        float bg = big[t2][hi];
        bg = fmaxf(bg, __shfl_xor_sync(~0u, bg, 1));
        bg = fmaxf(bg, __shfl_xor_sync(~0u, bg, 2));
        const float bnd = fmaxf(st[256 * (2 + 2 * t2 + hi)] * corr[hi], bg);
        const int f_new = exponent_bound(bnd);
        const int d = st_f[256 * (6 + 2 * t2 + hi)] - f_new;
        // |d| <= 252: two normal powers of two; 1 (no rescale) unless the maximum or the
        // exponent moved.
        const float factor = corr[hi] * pow2(d / 2) * pow2(d - d / 2);
        st[256 * (2 + 2 * t2 + hi)] = bnd;
        st_f[256 * (6 + 2 * t2 + hi)] = f_new;
        down[t2][hi] = pow2(-f_new);
        if (factor != 1.0f) {
#pragma unroll
          for (int j = 0; j < 16; ++j) {
            o[t2][4 * j + 2 * hi] *= factor;
            o[t2][4 * j + 2 * hi + 1] *= factor;
          }
        }
      }
    uint32_t u[2][8][2];  // [t2][j][hi]: candidates 8 j + 2 q4 + {0, 1}
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int t2 = 0; t2 < 2; ++t2) {
        const float2 r = *reinterpret_cast<const float2*>(tab_raw + t2 * kBlockRows + 8 * j + 2 * q4);
#pragma unroll
        for (int hi = 0; hi < 2; ++hi)
          u[t2][j][hi] = pack_f16x2((sc[4 * j + 2 * hi] * r.x) * down[t2][hi],
                                    (sc[4 * j + 2 * hi + 1] * r.y) * down[t2][hi]);
      }

    // ---- values: O_t[64 heads, 128 dims] += U_t . V_t per own tile ----
    ptx::wgmma_fence();
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        const uint32_t a[4] = {u[t2][2 * kk][0], u[t2][2 * kk][1], u[t2][2 * kk + 1][0],
                               u[t2][2 * kk + 1][1]};
        // candidates 16 kk.. (cores 2 kk, 2 kk + 1), dims 128 (2 wg + t2).. (core 16 (2 wg + t2))
        const uint64_t off = uint64_t((core_offset<64>(16 * kk, 128 * (2 * wg + t2))) >> 4);
        HmWgmma::values(o[t2], a, v_desc + off);
      }
    ptx::wgmma_commit();
    ptx::wgmma_wait<0>();
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2) ptx::fence_regs(o[t2]);
  }

  // ---- epilogue ----
  if (__any_sync(~0u, scale_bad) && lane == 0) atomicOr(sm.bad_all, 1);
  ptx::all_consumers_sync<2>();
  const bool any_bad_scale = *sm.bad_all != 0;
  const int h0 = first_head(), nh = min(kHmHeads, p.heads - h0);
  uint32_t cta;  // token and split from a fresh read (nothing kept across the loop)
  asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(cta));
  const int token_here = int(cta) / p.num_splits, split_here = int(cta) % p.num_splits;
#pragma unroll
  for (int hi = 0; hi < 2; ++hi) {
    const int h = 16 * w + g + 8 * hi;
    if (h >= nh) continue;
    const float l = st[256 * hi];
    const float rl = l > 0.0f ? __fdiv_rn(1.0f, l) : 0.0f;
    // A NaN sum: a NaN score was seen; otherwise non-finite referenced input poisons the
    // head (never the empty sentinel).
    const bool bad = isnan(l) || (l > 0.0f && (sm.bad_head[h] != 0 || any_bad_scale));
    const float lse2 = l > 0.0f ? m_run[hi] + log2f(l) : -INFINITY;
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2) {
      float v[16][2];
#pragma unroll
      for (int j = 0; j < 16; ++j) {
        v[j][0] = o[t2][4 * j + 2 * hi] * rl;
        v[j][1] = o[t2][4 * j + 2 * hi + 1] * rl;
      }
      store_head_at<16>(p, token_here, split_here, h0 + h, 128 * (2 * wg + t2), 8, q4, v,
                        pow2(st_f[256 * (6 + 2 * t2 + hi)]), lse2, bad, wg == 0 && t2 == 0 && q4 == 0);
    }
  }
}

}  // namespace jax_glm_nope::sm90
