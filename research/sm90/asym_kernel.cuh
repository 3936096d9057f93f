// The asymmetric heads-major kernel ("asym"): 33-128 heads, one CTA per group of 64 heads
// (grid y), every MMA with M = 64 heads, roles split the way FlashMLA's SM90 sparse decode
// splits them (one warpgroup scores, the other only accumulates O, the third converts;
// research/notebook.md, "Run 30"). A lab variant (research/README.md), launched by
// lab_launch.cuh when `LabParams::hm_asym` is set: written after runs 19-28 and NOT YET RUN
// ON A GPU. The selftest runs it with `--asym` (with `--pipelined-check` or
// `--with-pipelined`: its check and rows in place of the pipelined kernel's).
//
// Why: in the heads-major kernel both consumer warpgroups run every phase at once
// (convert, scores, softmax, U, values), so nothing overlaps; in the pipelined kernel the
// softmax state passes between them per 32 candidates. Here each role does one thing:
//  - the producer warpgroup (warps 8-11, 80 registers) loads each block's 64 rows from
//    global memory straight into registers (two threads per row, the loads in flight while
//    it waits for a free buffer), converts the codes once into one of two fp16 tiles
//    (core_offset<64>) and writes the candidates' scales, shifted scales s_t 2^-E_c and
//    exponents, and per warp the max |s_t|, into the buffer's table; no fp8 ring in shared
//    memory, so two tiles fit beside q̂;
//  - warpgroup 0 (192 registers) scores all 64 candidates over all 512 dims (m64n64k16,
//    both operands from shared memory, one tile of dims at a time, each tile's sum scaled
//    exactly and folded into the score), runs the softmax of the whole block in registers
//    (no exchange), forms U_t = p s_t 2^-F_t for all four tiles, keeps tile 0's as register
//    A operands for its own O (dims 0-127) and writes tiles 1-3's into shared memory as
//    K-major A operands, with O's rescale factors for them;
//  - warpgroup 1 (232 registers) only accumulates O for dims 128-511 (m64n128k16, U and the
//    tile both from shared memory), while warpgroup 0 scores the next block.
// Status (run 30, offline): compiles without spills or ptxas advisories; in the SASS each
// tile's eight score MMAs and each warpgroup's value MMAs issue back to back (six
// WARPGROUP.ARRIVE). Not yet checked or timed on a GPU (research/notebook.md, run 30).
// Named barriers: 4 (U and factors of block b written; warpgroup 0 arrives, 1 syncs) and 5
// (warpgroup 1 has read them; 1 arrives, 0 syncs before writing block b + 1's).
//
// Numerics as in the heads-major kernel: q̂ = q 2^-e1 per head, the score factor before or
// after the candidate's 2^E_c, a lazy running maximum, O a running sum in units of 2^F
// per (tile, head), F bounding max(p) max|s_t| per block (the running bound is 2^F itself
// here); NaN and Inf rules the same (a non-finite scale of an active row poisons every head
// through bad_all).

#pragma once

#include "seesaw_kernel.cuh"

namespace jax_glm_nope::sm90 {

// 128 x (192 + 232 + 80) = 64,512 = the CTA's 384 x 168 (setmaxnreg moves registers only
// within it; the launch gives 168 each, so both consumer warpgroups increase).
constexpr int kAsScoreRegs = 192, kAsValueRegs = 232, kAsProducerRegs = 80;
static_assert(128 * (kAsScoreRegs + kAsValueRegs + kAsProducerRegs) <= kHmThreads * 168, "setmaxnreg pool");

struct AsSmem {
  static constexpr int kHeadsPad = kHmHeads;
  static constexpr int kTileBytes = kBlockRows * L::kHeadDim * 2;  // [64 candidates][512] fp16
  static constexpr int kQ = 0;                                     // q̂ [64][512], core_offset<64>
  static constexpr int kTiles = kQ + kHmHeads * L::kHeadDim * 2;   // two tiles, core_offset<64>
  // U of tiles 1-3, [tile - 1][kk]: 64 heads x 16 candidates fp16, K-major (core_offset<64>)
  static constexpr int kU = kTiles + 2 * kTileBytes;
  static constexpr int kUBytes = 3 * 4 * 2048;
  // Per tile buffer: shifted scales s_t 2^-E_c [4][64] float, scales s_t [4][64] float,
  // exponents E_c (or kInactive) [64] int, max |s_t| per producer warp [4][4] float.
  static constexpr int kTabSn = 0, kTabS = 4 * 64 * 4, kTabExp = kTabS + 4 * 64 * 4, kTabMax = kTabExp + 64 * 4;
  static constexpr int kTabBytes = kTabMax + 16 * 4;
  static constexpr int kTab = kU + kUBytes;
  static constexpr int kFac = kTab + 2 * kTabBytes;     // O's factors of tiles 1-3 [3][64]
  static constexpr int kFin = kFac + 3 * kHmHeads * 4;  // the final l, m, F_0 .. F_3 [6][64]
  static constexpr int kFactor = kFin + 6 * kHmHeads * 4;  // q̂'s factors, pre and post [2][64]
  static constexpr int kBad = kFactor + 2 * kHeadsPad * 4;  // bad_head [64], then bad_all
  static constexpr int kBars = (kBad + kHeadsPad * 4 + 16 + 15) / 16 * 16;
  static constexpr int kBytes = kBars + 4 * 8;  // tile full [2], tile empty [2]
  static_assert(kU % 128 == 0 && kTab % 16 == 0, "operand alignment");
  static_assert(kBytes <= 227 * 1024, "shared memory");
};

struct AsWgmma {
  // D (+)= A . B, m64n64k16: A (64 heads x 16 dims, q̂) and B (64 candidates x 16 dims, the
  // tile), both K-major from shared memory; D zeroed first unless `accumulate`.
  __device__ __forceinline__ static void scores(float (&d)[32], uint64_t a, uint64_t b, int accumulate) {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %34, 0;\n"
        " wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,"
        "%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "l"(a), "l"(b), "r"(accumulate));
  }
  // D += A . B, m64n128k16: A (64 heads x 16 candidates, U) K-major and B (16 candidates x
  // 128 dims of the tile) N-major, both from shared memory.
  __device__ __forceinline__ static void values_ss(float (&d)[64], uint64_t a, uint64_t b) {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %66, 0;\n"
        " wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
        JGN_ACC64_PTX
        "%64, %65, p, 1, 1, 0, 1;\n}\n"
        : JGN_ACC64_OPERANDS(d)
        : "l"(a), "l"(b), "r"(1));
  }
};

// O's rows of head row hi (own tile t2) times `factor`, skipped when it is 1.
__device__ __forceinline__ void as_rescale(float (&o)[64], int hi, float factor) {
  if (factor != 1.0f) {
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      o[4 * j + 2 * hi] *= factor;
      o[4 * j + 2 * hi + 1] *= factor;
    }
  }
}

// The consumers of warpgroup `wg`, each expanded in its own branch after its setmaxnreg,
// so that ptxas allocates each warpgroup's code within its own registers (code reached
// after one shared setmaxnreg branch gets the smaller limit: 1 KB of spills).
// Warpgroup 0: scores, softmax, U, and O of tile 0 (dims 0-127); warpgroup 1: O of tiles
// 1-3 (dims 128-511). (With two tiles each, warpgroup 0 needs 128 accumulators beside the
// scores' 64 and ptxas serializes every MMA of the kernel, C7512.)
template <int wg>
__device__ __forceinline__ void asym_consumers(const SparseMlaParams& p, uint8_t* smem, int token,
                                               int nblocks, int warp, int lane) {
  using S = AsSmem;
  constexpr int NT = wg == 0 ? 1 : 3;  // own tiles: 0, or 1-3
  constexpr int T0 = wg == 0 ? 0 : 1;  // the first
  uint8_t* const qhat = smem + S::kQ;
  uint8_t* const tiles = smem + S::kTiles;
  const float* const qpre = reinterpret_cast<const float*>(smem + S::kFactor);
  const float* const qpost = qpre + S::kHeadsPad;
  int* const bad_head = reinterpret_cast<int*>(smem + S::kBad);
  const int* const bad_all = bad_head + S::kHeadsPad;
  uint64_t* const tile_full = reinterpret_cast<uint64_t*>(smem + S::kBars);
  uint64_t* const tile_empty = tile_full + 2;
  const int w = warp % kConsumerWarps;  // heads 16 w .. 16 w + 15 of every MMA
  const int g = lane >> 2;              // heads 16 w + g (hi = 0) and + 8 (hi = 1)
  const int q4 = lane & 3;              // candidates / dims 8 j + 2 q4 + {0, 1} in the C layouts
  hm_prepare_q(p, token, warp, lane, qhat, const_cast<float*>(qpre), const_cast<float*>(qpost), bad_head);

  // Descriptors (no swizzle), as in the heads-major kernel: q̂ and the tile K-major (LBO 1024
  // between 8-dim cores, SBO 128 between 8-row cores), the tile N-major for the value MMAs
  // (LBO 128 between 8-candidate cores, SBO 1024 between 8-dim cores), U K-major like q̂.
  const uint64_t q_desc = ptx::smem_desc(qhat, 1024, 128);
  const uint64_t k_desc = ptx::smem_desc(tiles, 1024, 128);
  const uint64_t v_desc = ptx::smem_desc(tiles, 128, 1024);
  const uint64_t u_desc = ptx::smem_desc(smem + S::kU, 1024, 128);
  float* const fac_tab = reinterpret_cast<float*>(smem + S::kFac);  // [tile - 1][64 heads]
  float* const fin = reinterpret_cast<float*>(smem + S::kFin);      // [l, m, F_1, F_2, F_3][64 heads]
  float o[NT][64];  // own tile T0 + t2: heads (g, g + 8), dims 128 (T0 + t2) + 8 j + 2 q4 + {0, 1}
  zero_acc(o);

  if constexpr (wg == 0) {
    // ================ warpgroup 0: scores, softmax, U; O of tile 0 ================
    float m_run[2] = {-INFINITY, -INFINITY};
    float l_run[2] = {0.0f, 0.0f};
    // The (tile, head row) exponents F, F + 128 as byte t of f_pack[hi] (F in [-126, 127]).
    // The bound behind F is 2^F itself, not kept apart (the heads-major kernel keeps the
    // exact bound): a looser bound, as valid (U <= 1), and 14 registers fewer, without
    // which warpgroup 0 spills or ptxas serializes the MMAs (C7512) at 184.
    uint32_t f_pack[2] = {0x02020202u, 0x02020202u};
    auto f_of = [&](int t, int hi) { return int((f_pack[hi] >> (8 * t)) & 0xffu) - 128; };
    for (int b = 0; b < nblocks; ++b) {
      const int tb = b & 1;
      const uint8_t* const tab = smem + S::kTab + tb * S::kTabBytes;
      const float* const tab_sn = reinterpret_cast<const float*>(tab + S::kTabSn);
      const float* const tab_s = reinterpret_cast<const float*>(tab + S::kTabS);
      const int* const tab_exp = reinterpret_cast<const int*>(tab + S::kTabExp);
      const float* const tab_max = reinterpret_cast<const float*>(tab + S::kTabMax);
      ptx::mbar_wait(&tile_full[tb], (b >> 1) & 1);

      // ---- scores: element e = 4 j + 2 hi + k is candidate 8 j + 2 q4 + k, head row hi;
      // one tile of dims at a time, its sum scaled by s_t 2^-E_c and folded in (tile order,
      // one fma chain, as hm_tile_sum) ----
      float sc[32];
#pragma unroll
      for (int t = 0; t < 4; ++t) {
        float acc[32];
#pragma unroll
        for (int e = 0; e < 32; ++e) asm volatile("" : "=f"(acc[e]));  // overwritten by s = 0
        ptx::wgmma_fence();
#pragma unroll
        for (int s = 0; s < 8; ++s) {
          const int d0 = 128 * t + 16 * s;  // core_offset<64>(0, d0) = 128 d0
          AsWgmma::scores(acc, q_desc + uint64_t((d0 * 128) >> 4),
                          k_desc + uint64_t((tb * S::kTileBytes + d0 * 128) >> 4), s > 0);
        }
        ptx::wgmma_commit();
        ptx::wgmma_wait<0>();
        ptx::fence_regs(acc);
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          const float2 sn = *reinterpret_cast<const float2*>(tab_sn + t * 64 + 8 * j + 2 * q4);
#pragma unroll
          for (int hi = 0; hi < 2; ++hi)
#pragma unroll
            for (int k = 0; k < 2; ++k) {
              const int e = 4 * j + 2 * hi + k;
              const float x = k ? sn.y : sn.x;
              sc[e] = t == 0 ? acc[e] * x : fmaf(acc[e], x, sc[e]);
            }
        }
      }
      // ---- scaled scores and the block maxima (all 64 candidates sit in the quad) ----
      float mx[2] = {-INFINITY, -INFINITY};
#pragma unroll
      for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int k = 0; k < 2; ++k) {
          float down, up;
          const bool a = hm_candidate(tab_exp[8 * j + 2 * q4 + k], down, up);
#pragma unroll
          for (int hi = 0; hi < 2; ++hi) {
            const int e = 4 * j + 2 * hi + k;
            const int h = 16 * w + g + 8 * hi;  // (the factors re-read: registers are short)
            sc[e] = hm_score(sc[e], qpre[h], up, qpost[h], a);
            mx[hi] = fmaxf(mx[hi], sc[e]);
          }
        }
      float corr[2], pm[2];
#pragma unroll
      for (int hi = 0; hi < 2; ++hi) {
        mx[hi] = fmaxf(mx[hi], __shfl_xor_sync(~0u, mx[hi], 1));
        mx[hi] = fmaxf(mx[hi], __shfl_xor_sync(~0u, mx[hi], 2));
        const float m_old = m_run[hi];
        const float m = mx[hi] > m_old + kLazyMax ? mx[hi] : m_old;  // lazy_max
        corr[hi] = m_old == m ? 1.0f : ptx::exp2_approx(m_old - m);
        pm[hi] = mx[hi] == m ? 1.0f : ptx::exp2_approx(mx[hi] - m);  // max p of the block
        m_run[hi] = m;
        l_run[hi] = __fadd_rn(__fmul_rn(l_run[hi], corr[hi]), hm_probabilities(sc, hi, m));
      }
      // ---- per tile t: the (tile, head) bound, its exponent F and O's rescale factor, then
      // U_t = p s_t 2^-F_t: tile 0's as register A fragments, tiles 1-3's (and their factors)
      // into shared memory once warpgroup 1 has read the previous block's ----
      if (b >= 1) ptx::named_sync<5>();
      uint32_t a[4][4];  // tile 0: [kk][2 (j % 2) + hi], candidates 16 kk .. 16 kk + 15
#pragma unroll
      for (int t = 0; t < 4; ++t) {
        const float smax = fmaxf(fmaxf(tab_max[t], tab_max[4 + t]), fmaxf(tab_max[8 + t], tab_max[12 + t]));
        float dn[2];
#pragma unroll
        for (int hi = 0; hi < 2; ++hi) {
          const int f_old = f_of(t, hi);
          const float bnd = fmaxf(pow2(f_old) * corr[hi], pm[hi] * smax);
          const int f_new = exponent_bound(bnd);
          const int d = f_old - f_new;
          // |d| <= 252: two normal powers of two; 1 unless the maximum or the exponent moved
          const float factor = corr[hi] * pow2(d / 2) * pow2(d - d / 2);
          dn[hi] = pow2(-f_new);
          f_pack[hi] = (f_pack[hi] & ~(0xffu << (8 * t))) | (uint32_t(f_new + 128) << (8 * t));
          if (t == 0)
            as_rescale(o[0], hi, factor);
          else if (q4 == 0)
            fac_tab[(t - 1) * 64 + 16 * w + g + 8 * hi] = factor;
        }
        const float* const ts = tab_s + t * 64;
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          const float2 s2 = *reinterpret_cast<const float2*>(ts + 8 * j + 2 * q4);
#pragma unroll
          for (int hi = 0; hi < 2; ++hi) {
            const uint32_t x = pack_f16x2((sc[4 * j + 2 * hi] * s2.x) * dn[hi], (sc[4 * j + 2 * hi + 1] * s2.y) * dn[hi]);
            if (t == 0)
              a[j / 2][2 * (j % 2) + hi] = x;
            else
              *reinterpret_cast<uint32_t*>(smem + S::kU + ((t - 1) * 4 + j / 2) * 2048 +
                                           core_offset<64>(16 * w + g + 8 * hi, 8 * (j % 2) + 2 * q4)) = x;
          }
        }
      }
      ptx::fence_proxy_async();  // U is read by warpgroup 1's MMAs through the async proxy
      ptx::named_arrive<4>();    // block b's U and factors are written
      // ---- O_0[64 heads, 128 dims] += U_0 . V_0, all 64 candidates ----
      ptx::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < 4; ++kk)
        HmWgmma::values(o[0], a[kk], v_desc + uint64_t((tb * S::kTileBytes + core_offset<64>(16 * kk, 0)) >> 4));
      ptx::wgmma_commit();
      ptx::wgmma_wait<0>();
      ptx::fence_regs(o[0]);
      __syncwarp();
      if (lane == 0) ptx::mbar_arrive(&tile_empty[tb]);
    }
    if (q4 == 0) {  // the state warpgroup 1's epilogue needs
#pragma unroll
      for (int hi = 0; hi < 2; ++hi) {
        const int h = 16 * w + g + 8 * hi;
        fin[0 * 64 + h] = l_run[hi];
        fin[1 * 64 + h] = m_run[hi];
#pragma unroll
        for (int t = 0; t < 4; ++t) fin[(2 + t) * 64 + h] = __int_as_float(f_of(t, hi));
      }
    }
  } else {
    // ================ warpgroup 1: O of tiles 1-3 ================
    for (int b = 0; b < nblocks; ++b) {
      const int tb = b & 1;
      ptx::named_sync<4>();  // block b's U and factors
      ptx::mbar_wait(&tile_full[tb], (b >> 1) & 1);  // (complete: warpgroup 0 waited on it)
#pragma unroll
      for (int t2 = 0; t2 < NT; ++t2)
#pragma unroll
        for (int hi = 0; hi < 2; ++hi) as_rescale(o[t2], hi, fac_tab[t2 * 64 + 16 * w + g + 8 * hi]);
      ptx::wgmma_fence();
#pragma unroll
      for (int t2 = 0; t2 < NT; ++t2)
#pragma unroll
        for (int kk = 0; kk < 4; ++kk)
          AsWgmma::values_ss(o[t2], u_desc + uint64_t(((t2 * 4 + kk) * 2048) >> 4),
                             v_desc + uint64_t((tb * S::kTileBytes + core_offset<64>(16 * kk, 128 * (T0 + t2))) >> 4));
      ptx::wgmma_commit();
      ptx::wgmma_wait<0>();
#pragma unroll
      for (int t2 = 0; t2 < NT; ++t2) ptx::fence_regs(o[t2]);
      if (b + 1 < nblocks) ptx::named_arrive<5>();  // U and factors read (the last: no one waits)
      __syncwarp();
      if (lane == 0) ptx::mbar_arrive(&tile_empty[tb]);
    }
  }

  // ---- epilogue ----
  ptx::all_consumers_sync<2>();
  const HmPlace at = hm_place(p, bad_all);
#pragma unroll
  for (int hi = 0; hi < 2; ++hi) {
    const int h = 16 * w + g + 8 * hi;
    if (h >= at.nh) continue;
    const float l = fin[h];
    const float m = fin[64 + h];
    const float rl = l > 0.0f ? __fdiv_rn(1.0f, l) : 0.0f;
    // A NaN sum: a NaN score was seen; otherwise non-finite referenced input poisons the
    // head (never the empty sentinel).
    const bool bad = isnan(l) || (l > 0.0f && (bad_head[h] != 0 || at.any_bad_scale));
    const float lse2 = l > 0.0f ? m + log2f(l) : -INFINITY;
#pragma unroll
    for (int t2 = 0; t2 < NT; ++t2) {
      const int f = __float_as_int(fin[(2 + T0 + t2) * 64 + h]);
      float v[16][2];
#pragma unroll
      for (int j = 0; j < 16; ++j) {
        v[j][0] = o[t2][4 * j + 2 * hi] * rl;
        v[j][1] = o[t2][4 * j + 2 * hi + 1] * rl;
      }
      store_head_at<16>(p, at.token, at.split, at.h0 + h, 128 * (T0 + t2), 8, q4, v, pow2(f), lse2, bad,
                        wg == 0 && q4 == 0);
    }
  }
}

__global__ void __launch_bounds__(kHmThreads, 1) sparse_mla_asym_kernel(const SparseMlaParams p) {
  using S = AsSmem;
  extern __shared__ __align__(128) uint8_t smem[];
  uint8_t* const tiles = smem + S::kTiles;
  int* const bad_all = reinterpret_cast<int*>(smem + S::kBad) + S::kHeadsPad;
  uint64_t* const tile_full = reinterpret_cast<uint64_t*>(smem + S::kBars);  // [2]: 128 producer threads
  uint64_t* const tile_empty = tile_full + 2;                                 // [2]: 8 consumer warps
  ptx::grid_dependency_wait();  // before any global access, reads and writes
  ptx::launch_dependents();     // the combine may be scheduled once every CTA is here
  const SplitRange range(p);
  const int token = range.token, c_begin = range.c_begin, c_stop = range.c_stop, nblocks = range.nblocks;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    for (int i = 0; i < 2; ++i) {
      ptx::mbar_init(&tile_full[i], 128);  // every producer thread, after its own fence
      ptx::mbar_init(&tile_empty[i], 2 * kConsumerWarps);
    }
    *bad_all = 0;
  }
  __syncthreads();

  if (warp >= 2 * kConsumerWarps) {
    // ---------------- producer: rows -> fp16 tile and table ----------------
    ptx::setmaxnreg_dec<kAsProducerRegs>();
    const int pt = threadIdx.x - 2 * kConsumerWarps * 32;  // 0..127
    const int r = pt >> 1, hf = pt & 1;  // row r of every block, dims 256 hf .. 256 hf + 255
    const int pw = pt >> 5;             // rows 16 pw .. 16 pw + 15
    const int32_t* idx_row = p.indices + int64_t(token) * p.topk;
    auto load_index = [&](int b) {  // (the row re-read from %tid.x: 80 registers, nothing kept)
      uint32_t tx;
      asm volatile("mov.u32 %0, %%tid.x;" : "=r"(tx));
      const int j = c_begin + b * kBlockRows + ((int(tx) - 2 * kConsumerWarps * 32) >> 1);
      return j < c_stop ? __ldg(idx_row + j) : -1;
    };
    int next = nblocks > 0 ? load_index(0) : -1;
    for (int b = 0; b < nblocks; ++b) {
      const int tb = b & 1;
      const int idx = next;
      if (b + 1 < nblocks) next = load_index(b + 1);  // one block of index latency ahead
      const bool active = idx >= 0 && int64_t(idx) < p.num_slots;
      // The row's half (and the scales), in flight while this thread waits for the buffer.
      uint4 v[16];
      float4 s = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (active) {
        const uint8_t* row = p.pool + int64_t(idx) * p.row_bytes;
#pragma unroll
        for (int i = 0; i < 16; ++i) v[i] = __ldg(reinterpret_cast<const uint4*>(row + 256 * hf) + i);
        if (hf == 0) s = __ldg(reinterpret_cast<const float4*>(row + L::kScalesOffset));
      } else {
        // Inactive rows become zero rows: 0 * NaN in the value MMA cannot happen, and the
        // slot an inactive index names is never read.
#pragma unroll
        for (int i = 0; i < 16; ++i) v[i] = make_uint4(0, 0, 0, 0);
      }
      ptx::mbar_wait(&tile_empty[tb], ((b >> 1) & 1) ^ 1);
      uint8_t* const tile = tiles + tb * S::kTileBytes;
#pragma unroll
      for (int i = 0; i < 16; ++i) {
        const int d = 256 * hf + 16 * i;
        uint4 lo, hi;
        e4m3x16_to_f16(v[i], lo, hi);
        *reinterpret_cast<uint4*>(tile + core_offset<64>(r, d)) = lo;
        *reinterpret_cast<uint4*>(tile + core_offset<64>(r, d + 8)) = hi;
      }
      uint8_t* const tab = smem + S::kTab + tb * S::kTabBytes;
      if (hf == 0) {
        // (a non-finite scale of an active row: every head is poisoned, as in every kernel)
        if (active && (!isfinite(s.x) || !isfinite(s.y) || !isfinite(s.z) || !isfinite(s.w))) atomicOr(bad_all, 1);
        const int e = active ? exponent_bound(fmaxf(fmaxf(fabsf(s.x), fabsf(s.y)), fmaxf(fabsf(s.z), fabsf(s.w))))
                             : kInactive;
        const float dn = pow2(active ? -e : 0);
        reinterpret_cast<int*>(tab + S::kTabExp)[r] = e;
        float* const sn = reinterpret_cast<float*>(tab + S::kTabSn);
        float* const st = reinterpret_cast<float*>(tab + S::kTabS);
        st[0 * 64 + r] = s.x, sn[0 * 64 + r] = s.x * dn;
        st[1 * 64 + r] = s.y, sn[1 * 64 + r] = s.y * dn;
        st[2 * 64 + r] = s.z, sn[2 * 64 + r] = s.z * dn;
        st[3 * 64 + r] = s.w, sn[3 * 64 + r] = s.w * dn;
      }
      // max |s_t| over this warp's 16 rows (the odd lanes hold 0; NaN is skipped, flagged)
      const float sv[4] = {fabsf(s.x), fabsf(s.y), fabsf(s.z), fabsf(s.w)};
#pragma unroll
      for (int t = 0; t < 4; ++t) {
        float mx = sv[t];
#pragma unroll
        for (int o_ = 1; o_ < 32; o_ *= 2) mx = fmaxf(mx, __shfl_xor_sync(~0u, mx, o_));
        if (lane == 0) reinterpret_cast<float*>(tab + S::kTabMax)[pw * 4 + t] = mx;
      }
      ptx::fence_proxy_async();  // the tile is read by the MMAs through the async proxy
      ptx::mbar_arrive(&tile_full[tb]);
    }
    return;
  }

  // ---------------- consumers ----------------
  if (__shfl_sync(~0u, warp / kConsumerWarps, 0) == 0) {
    ptx::setmaxnreg_inc<kAsScoreRegs>();
    asym_consumers<0>(p, smem, token, nblocks, warp, lane);
  } else {
    if constexpr (kAsValueRegs > 168)  // (the launch gives every thread 168)
      ptx::setmaxnreg_inc<kAsValueRegs>();
    else
      ptx::setmaxnreg_dec<kAsValueRegs>();
    asym_consumers<1>(p, smem, token, nblocks, warp, lane);
  }
}

}  // namespace jax_glm_nope::sm90
