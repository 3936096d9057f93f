// The pipelined heads-major kernel ("seesaw"): 33-128 heads, one CTA per group of 64
// heads (grid y), every MMA with M = 64 heads, the MMAs of one consumer warpgroup
// overlapping the softmax of the other (research/notebook.md, "Next: overlap", run 19).
// A lab variant (research/README.md), launched by lab_launch.cuh when
// `LabParams::hm_pipelined` is set: run 19 verified it (the selftest's pass 3) and measured
// it slower than the product's heads-major kernel (b=128 H=64 196 vs 141 us), because at
// 232 registers ptxas serialized its score MMAs (advisory C7512). Since run 21 the
// consumers have 240 and the gather and converter warps 24 (no spill, no advisory; the
// score MMAs of a sub-block issue back to back in the SASS); still slower (172 us, run 24).
// Built on the product's headers (-I ffi): heads_major_kernel.cuh and what it includes.
//
// Roles (384 threads):
//  - warps 8-9 gather each 64-row block into a one-stage fp8 ring (gather_rows);
//  - warps 10-11 (the converter) turn each half block, a sub-block of 32 candidates, into
//    an fp16 tile (three 32 KB buffers, core_offset<32>) plus a table of its candidates'
//    scales, exponents and per-tile maxima, and free the ring stage;
//  - consumer warpgroup W owns the sub-blocks j = W, W + 2, ...: it scores them over all
//    512 dims (m64n32k16 from shared memory, one accumulator per tile, exact scales), runs
//    their softmax and forms U_t = p s_t 2^-F_t for all four tiles; it hands the other
//    warpgroup its tiles' U and the running state through shared memory (a named barrier
//    per sub-block, arrive by the owner, sync by the other);
//  - both warpgroups accumulate O[64 heads, own 256 dims] over every sub-block
//    (m64n128k16, U from registers, the tile read N-major).
// Per own sub-block j, warpgroup W: issue the score MMAs of j; take sub-block j - 1's
// state and U from the other warpgroup and issue its value MMAs; wait for the scores,
// run j's softmax (continuing j - 1's state), publish j; finish j - 1's value MMAs, then
// j's. The running state (maximum, sum, per (tile, head) bound and exponent) passes from
// sub-block to sub-block between the warpgroups, so both hold the same O units.
//
// Numerics as in the heads-major kernel (heads_major_kernel.cuh): q̂ = q 2^-e1 per head,
// the score factor before or after the tile sum, candidate tile scales shifted by 2^-E_c,
// a lazy running maximum, O a running sum in units of 2^F per (tile, head), the bound
// behind F from max(p) max|s_t| per sub-block.

#pragma once

#include "ours/sm90/heads_major_kernel.cuh"

namespace jax_glm_nope::sm90 {

// A step of the heads-major kernel as it was when these variants were written (before
// run 39's lean kernel became the product's), kept here for the lab's variants only.

// q̂ and its factors for the CTA's heads from global memory, by both consumer warpgroups,
// then visible to the score MMAs (which read q̂ through the async proxy).
__device__ __forceinline__ void hm_prepare_q(const SparseMlaParams& p, int token, int warp, int lane,
                                             uint8_t* qhat, float* qpre, float* qpost, int* bad_head) {
  prepare_q<kHmHeads, 2 * kConsumerWarps, true, true>(p, token, warp, lane, qhat, qpre, qpost, bad_head,
                                                      hm_first_head(), min(kHmHeads, p.heads - hm_first_head()));
  ptx::fence_proxy_async();
  ptx::all_consumers_sync<2>();
}

}  // namespace jax_glm_nope::sm90

namespace jax_glm_nope::sm90 {

constexpr int kSbRows = 32;      // candidates per sub-block (half a gathered block)
constexpr int kSbTiles = 3;      // fp16 tile buffers
constexpr int kSbStateWords = 14;  // per head: m, l, bound[4], F[4], factor[4]
// Registers: at 232 per consumer thread ptxas serializes the score MMAs (C7512, run 19);
// at 240 it does not. setmaxnreg moves registers only within the CTA's 384 x 168 (the
// launch bounds), so the gather and converter warps get 24 (run 20's 32 did not fit and
// hung); both are written to fit 24 without spilling (the converter one 16-code step per
// iteration, its thread's place re-read per sub-block).
constexpr int kSbProducerRegs = 24, kSbConsumerRegs = 240;
static_assert(2 * 128 * kSbConsumerRegs + 128 * kSbProducerRegs <= kHmThreads * 168, "setmaxnreg pool");

struct SbSmem {
  static constexpr int kHeadsPad = kHmHeads;
  static constexpr int kStage = kBlockRows * kRowBytes;
  static constexpr int kRows = 0;                                  // the one-stage row ring
  static constexpr int kQ = kRows + kStage;                        // q̂ [64][512], core_offset<64>
  static constexpr int kTileBytes = kSbRows * L::kHeadDim * 2;     // [32][512] fp16, core_offset<32>
  static constexpr int kTiles = kQ + kHmHeads * L::kHeadDim * 2;
  // Per tile buffer: its candidates' scales [32] float4, exponents E_c or kInactive [32]
  // int, the max |s_t| over them [4].
  static constexpr int kTabBytes = kSbRows * 16 + kSbRows * 4 + 16;
  static constexpr int kTab = kTiles + kSbTiles * kTileBytes;
  // Per owner warpgroup: the other's tiles' U fragments [16 words][128 threads] and the
  // state after its last sub-block [14 words][64 heads].
  static constexpr int kU = kTab + kSbTiles * kTabBytes;
  static constexpr int kPub = kU + 2 * 16 * 128 * 4;
  static constexpr int kFlags = kPub + 2 * kSbStateWords * kHmHeads * 4;
  static constexpr int kFactor = kFlags + kBlockRows * 4;
  static constexpr int kBad = kFactor + 2 * kHeadsPad * 4;
  // ring halves' full [2] and empty [2] (SmemView), then tile full [3] and tile empty [3]
  static constexpr int kBars = (kBad + kHeadsPad * 4 + 16 + 15) / 16 * 16;
  static constexpr int kBytes = kBars + (4 + 2 * kSbTiles) * 8;
  static_assert(kBytes <= 227 * 1024, "shared memory");
};

namespace ptx {
// Named barriers 4 and 5 (256 threads): the owner warpgroup arrives, the other syncs.
template <int ID>
__device__ __forceinline__ void named_arrive() {
  asm volatile("bar.arrive %0, 256;" ::"n"(ID) : "memory");
}
template <int ID>
__device__ __forceinline__ void named_sync() {
  asm volatile("bar.sync %0, 256;" ::"n"(ID) : "memory");
}
}  // namespace ptx

__global__ void __launch_bounds__(kHmThreads, 1) sparse_mla_seesaw_kernel(const SparseMlaParams p) {
  using S = SbSmem;
  extern __shared__ __align__(128) uint8_t smem[];
  const SmemView<S> sm(smem, 2);  // full[2], empty[2]: the ring's halves
  uint8_t* const tiles = smem + S::kTiles;
  uint64_t* const tile_full = sm.full + 4;   // [3], 64 converter arrivals
  uint64_t* const tile_empty = tile_full + kSbTiles;  // [3], 8 consumer-warp arrivals
  ptx::grid_dependency_wait();  // before any global access, reads and writes
  ptx::launch_dependents();     // the combine may be scheduled once every CTA is here
  const auto [token, split, c_begin, c_stop, nblocks] = SplitRange(p);
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  // The ring is one 64-row stage in two halves, each its own stage of 32 rows: gather warp
  // h fills half h (full[h]: its one arrival, or its 32 lanes' with cp.async) and the
  // converter frees it (empty[h]: both converter warps) as soon as that half is converted,
  // so the next block's half h is in flight while the other half converts (run 23: with one
  // barrier pair for the whole stage, the gather's latency and both halves' conversion ran
  // in sequence and the consumers waited on the tiles).
  if (threadIdx.x == 0) {
    for (int h = 0; h < 2; ++h) {
      ptx::mbar_init(&sm.full[h], 1);
      ptx::mbar_init(&sm.empty[h], 2);
    }
    for (int i = 0; i < kSbTiles; ++i) {
      ptx::mbar_init(&tile_full[i], 64);
      ptx::mbar_init(&tile_empty[i], 2 * kConsumerWarps);
    }
    *sm.bad_all = 0;
  }
  __syncthreads();
  const int nsub = 2 * nblocks;

  if (warp >= 2 * kConsumerWarps) {
    ptx::setmaxnreg_dec<kSbProducerRegs>();
    const int pw = warp - 2 * kConsumerWarps;
    if (pw < kProducerWarps) {
      // ---------------- gather: warp pw, half pw of every block ----------------
      gather_rows<1>(p, token, c_begin, c_stop, nblocks, pw, lane, sm.rows, sm.flags,
                     sm.full + pw, sm.empty + pw);
      return;
    }
    // ---------------- converter: warps 10-11 ----------------
    for (int j = 0; j < nsub; ++j) {
      const int h = j & 1, buf = j % kSbTiles;
      ptx::mbar_wait(&sm.full[h], (j >> 1) & 1);
      // The thread's place, read afresh per sub-block (24 registers: nothing kept across)
      uint32_t tx;
      asm volatile("mov.u32 %0, %%tid.x;" : "=r"(tx));
      const int ct = int(tx) - (2 * kConsumerWarps + kProducerWarps) * 32;  // 0..63
      const int cr = (ct & 7) + 8 * ((ct >> 3) & 3);  // candidate in the sub-block
      const int dq = ct >> 5;  // = the converter warp
      ptx::mbar_wait(&tile_empty[buf], ((j / kSbTiles) & 1) ^ 1);
      const uint8_t* rows = sm.rows + h * kSbRows * kRowBytes;
      uint8_t* tile = tiles + buf * S::kTileBytes;
      // dims d = 16 (dq + 2 i): codes 32 i bytes on, the tile's cores 2048 i bytes on
      // (core_offset<32>(cr, d) = core_offset<32>(cr, 16 dq) + 2048 i; d + 8: + 512).
      // One step per iteration, the next step's codes loaded before this one converts (the
      // converter has 24 registers, 240 for the consumers).
      const uint8_t* src = rows + cr * kRowBytes + 16 * dq;
      uint8_t* dst = tile + core_offset<32>(cr, 16 * dq);
      static_assert(core_offset<32>(0, 32) == 2048 && core_offset<32>(0, 8) == 512, "tile steps");
      // (the last step's look-ahead reads 16 bytes of shared memory past the codes, within
      // the ring or q̂, and drops them)
      static_assert(SbSmem::kRows + SbSmem::kStage + 16 <= SbSmem::kQ + kHmHeads * L::kHeadDim * 2, "look-ahead");
      uint4 codes = *reinterpret_cast<const uint4*>(src);
#pragma unroll 1
      for (int i = 0; i < 16; ++i, dst += 2048) {
        src += 32;
        const uint4 next = *reinterpret_cast<const uint4*>(src);
        uint4 lo, hi;
        e4m3x16_to_f16(codes, lo, hi);
        *reinterpret_cast<uint4*>(dst) = lo;
        *reinterpret_cast<uint4*>(dst + 512) = hi;
        codes = next;
      }
      // The table, lane = candidate: warp 10 its scales, exponent and tiles 0-1's maxima,
      // warp 11 tiles 2-3's maxima (one at a time, the scale re-read: 24 registers). Its
      // addresses are derived afresh from an opaque copy of j (kept across the loop above,
      // they would spill).
      int jt;
      asm volatile("mov.b32 %0, %1;" : "=r"(jt) : "r"(j));
      const int ht = jt & 1;
      uint8_t* tab = smem + S::kTab + (jt % kSbTiles) * S::kTabBytes;
      const float* sc = reinterpret_cast<const float*>(sm.rows + (ht * kSbRows + lane) * kRowBytes + L::kScalesOffset);
      if (dq == 0) {
        const float4 s = *reinterpret_cast<const float4*>(sc);
        // (zero rows have finite scales; the flag is set where seen, nothing kept across blocks)
        if (!isfinite(s.x) || !isfinite(s.y) || !isfinite(s.z) || !isfinite(s.w)) atomicOr(sm.bad_all, 1);
        reinterpret_cast<float4*>(tab)[lane] = s;
        reinterpret_cast<int*>(tab + kSbRows * 16)[lane] =
            sm.flags[ht * kSbRows + lane] != 0
                ? exponent_bound(fmaxf(fmaxf(fabsf(s.x), fabsf(s.y)), fmaxf(fabsf(s.z), fabsf(s.w))))
                : kInactive;
      }
#pragma unroll 1
      for (int t = 2 * dq; t < 2 * dq + 2; ++t) {
        float mx = fabsf(sc[t]);
#pragma unroll
        for (int o_ = 1; o_ < 32; o_ *= 2) mx = fmaxf(mx, __shfl_xor_sync(~0u, mx, o_));
        if (lane == 0) reinterpret_cast<float*>(tab + kSbRows * 20)[t] = mx;
      }
      ptx::fence_proxy_async();  // the tile is read by the MMAs through the async proxy
      ptx::mbar_arrive(&tile_full[jt % kSbTiles]);
      __syncwarp();
      if (lane == 0) ptx::mbar_arrive(&sm.empty[ht]);  // half h converted: its rows are free
    }
    return;
  }

  // ---------------- consumers ----------------
  ptx::setmaxnreg_inc<kSbConsumerRegs>();
  const int W = __shfl_sync(~0u, warp / kConsumerWarps, 0);  // owns sub-blocks W, W + 2, ...
  const int w = warp % kConsumerWarps;  // heads 16 w .. 16 w + 15 of every MMA
  const int tid = threadIdx.x % 128;
  const int g = lane >> 2;  // heads 16 w + g (hi = 0) and + 8 (hi = 1)
  const int q4 = lane & 3;  // candidates / dims 8 j + 2 q4 + {0, 1} in the C layouts
  hm_prepare_q(p, token, warp, lane, sm.qhat, sm.qpre, sm.qpost, sm.bad_head);

  float o[2][64];  // own tile t2: heads (g, g + 8), dims 128 (2 W + t2) + 8 j + 2 q4 + {0, 1}
  zero_acc(o);
  // q̂ K-major (LBO 1024 between 8-dim cores, SBO 128 between 8-head cores); a tile K-major
  // for the scores (LBO 512, SBO 128) and N-major for the values (LBO 128 between
  // 8-candidate cores, SBO 512 between 8-dim cores).
  const uint64_t q_desc = ptx::smem_desc(sm.qhat, 1024, 128);
  const uint64_t k_desc = ptx::smem_desc(tiles, 512, 128);
  const uint64_t v_desc = ptx::smem_desc(tiles, 128, 512);
  float* const pub_own = reinterpret_cast<float*>(smem + S::kPub) + W * kSbStateWords * kHmHeads;
  const float* const pub_oth = reinterpret_cast<const float*>(smem + S::kPub) + (W ^ 1) * kSbStateWords * kHmHeads;
  uint32_t* const u_own = reinterpret_cast<uint32_t*>(smem + S::kU) + W * 16 * 128 + tid;
  const uint32_t* const u_oth = reinterpret_cast<const uint32_t*>(smem + S::kU) + (W ^ 1) * 16 * 128 + tid;
  auto arrive_own = [&] { if (W == 0) ptx::named_arrive<4>(); else ptx::named_arrive<5>(); };
  auto sync_other = [&] { if (W == 0) ptx::named_sync<5>(); else ptx::named_sync<4>(); };
  auto release_tile = [&](int jj) {
    __syncwarp();
    if (lane == 0) ptx::mbar_arrive(&tile_empty[jj % kSbTiles]);
  };
  // Value MMAs of sub-block jj into own tiles, A fragments a[t2][kk] (candidates 16 kk..).
  auto issue_values = [&](int jj, const uint32_t (&a)[2][2][4]) {
    const uint64_t vb = v_desc + uint64_t(((jj % kSbTiles) * S::kTileBytes) >> 4);
    ptx::wgmma_fence();
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
      for (int kk = 0; kk < 2; ++kk)
        HmWgmma::values(o[t2], a[t2][kk], vb + uint64_t(core_offset<32>(16 * kk, 128 * (2 * W + t2)) >> 4));
    ptx::wgmma_commit();
  };
  auto rescale = [&](int t2, int hi, float factor) {
    if (factor != 1.0f) {
#pragma unroll
      for (int j = 0; j < 16; ++j) {
        o[t2][4 * j + 2 * hi] *= factor;
        o[t2][4 * j + 2 * hi + 1] *= factor;
      }
    }
  };
  // pub layout per head: 0 m, 1 l, 2 + t bound, 6 + t F (int), 10 + t factor
  auto pub_word = [](const float* base, int word, int h) { return base[word * kHmHeads + h]; };

  for (int j = W; j <= nsub; j += 2) {
    const bool own = j < nsub;
    uint32_t u[2][2][4];  // own tiles' U of sub-block j, as value-MMA A fragments
    float fac_own[2][2] = {{1.0f, 1.0f}, {1.0f, 1.0f}};
    if (own) {
      // ---- A. the score MMAs of sub-block j (while the other warpgroup runs j - 1) ----
      ptx::mbar_wait(&tile_full[j % kSbTiles], (j / kSbTiles) & 1);
      float acc[4][16];
#pragma unroll
      for (int t = 0; t < 4; ++t)
#pragma unroll
        for (int e = 0; e < 16; ++e) asm volatile("" : "=f"(acc[t][e]));  // overwritten by s = 0
      const uint64_t kb = k_desc + uint64_t(((j % kSbTiles) * S::kTileBytes) >> 4);
      ptx::wgmma_fence();
#pragma unroll
      for (int t = 0; t < 4; ++t)
#pragma unroll
        for (int s = 0; s < 8; ++s) {
          const int d0 = 128 * t + 16 * s;  // core_offset<64>(0, d0), core_offset<32>(0, d0)
          HmWgmma::scores(acc[t], q_desc + uint64_t((d0 * 128) >> 4), kb + uint64_t((d0 * 64) >> 4), s > 0);
        }
      ptx::wgmma_commit();
      ptx::wgmma_wait<0>();
#pragma unroll
      for (int t = 0; t < 4; ++t) ptx::fence_regs(acc[t]);
      const uint8_t* tab = smem + S::kTab + (j % kSbTiles) * S::kTabBytes;
      const float4* tab_s = reinterpret_cast<const float4*>(tab);
      const int* tab_exp = reinterpret_cast<const int*>(tab + kSbRows * 16);
      const float* tab_smax = reinterpret_cast<const float*>(tab + kSbRows * 20);
      // ---- B. scaled scores and block maxima (no running state needed yet): e = 4 jj +
      // 2 hi + k, candidate 8 jj + 2 q4 + k of the sub-block, head hi ----
      float sc[16];
      float mx[2] = {-INFINITY, -INFINITY};
#pragma unroll
      for (int jj = 0; jj < 4; ++jj)
#pragma unroll
        for (int k = 0; k < 2; ++k) {
          const int c = 8 * jj + 2 * q4 + k;
          float sn[4], up;
          const bool a = hm_shifted_scales(tab_s[c], tab_exp[c], sn, up);
#pragma unroll
          for (int hi = 0; hi < 2; ++hi) {
            const int e = 4 * jj + 2 * hi + k;
            const int h = 16 * w + g + 8 * hi;  // (the factors re-read: registers are short)
            sc[e] = hm_score(hm_tile_sum(acc, e, sn), sm.qpre[h], up, sm.qpost[h], a);
            mx[hi] = fmaxf(mx[hi], sc[e]);
          }
        }
#pragma unroll
      for (int hi = 0; hi < 2; ++hi) {
        mx[hi] = fmaxf(mx[hi], __shfl_xor_sync(~0u, mx[hi], 1));
        mx[hi] = fmaxf(mx[hi], __shfl_xor_sync(~0u, mx[hi], 2));
      }
      // ---- C. the state after sub-block j - 1 (the other warpgroup's) ----
      if (j >= 1) sync_other();
      // ---- D. probabilities, sums, (tile, head) bounds and U; publish sub-block j ----
      const bool writer = q4 == 0;
      float corr[2], pm[2];
#pragma unroll
      for (int hi = 0; hi < 2; ++hi) {
        const int h = 16 * w + g + 8 * hi;
        const float m_old = j == 0 ? -INFINITY : pub_word(pub_oth, 0, h);
        const float l_old = j == 0 ? 0.0f : pub_word(pub_oth, 1, h);
        const float m = mx[hi] > m_old + kLazyMax ? mx[hi] : m_old;  // lazy_max
        corr[hi] = m_old == m ? 1.0f : ptx::exp2_approx(m_old - m);
        pm[hi] = mx[hi] == m ? 1.0f : ptx::exp2_approx(mx[hi] - m);  // max p of the sub-block
        const float sum = hm_probabilities(sc, hi, m);  // (inactive scores are -inf)
        if (writer) {
          pub_own[0 * kHmHeads + h] = m;
          pub_own[1 * kHmHeads + h] = __fadd_rn(__fmul_rn(l_old, corr[hi]), sum);
        }
      }
      // The other warpgroup's tiles first (their U goes to shared memory), then own tiles
      // (U kept in registers): r = 0 other, 1 own; tile t = 2 W' + t2.
#pragma unroll
      for (int r = 0; r < 2; ++r)
#pragma unroll
        for (int t2 = 0; t2 < 2; ++t2) {
          const int half = r == 0 ? (W ^ 1) : W;
          const int t = 2 * half + t2;
          const float smax = tab_smax[t];
#pragma unroll
          for (int hi = 0; hi < 2; ++hi) {
            const int h = 16 * w + g + 8 * hi;
            const float b_old = j == 0 ? 0.0f : pub_word(pub_oth, 2 + t, h);
            const int f_old = j == 0 ? -126 : __float_as_int(pub_word(pub_oth, 6 + t, h));
            const float bnd = fmaxf(b_old * corr[hi], pm[hi] * smax);
            const int f_new = exponent_bound(bnd);
            const int d = f_old - f_new;
            // |d| <= 252: two normal powers of two; 1 unless the maximum or the exponent moved
            const float factor = corr[hi] * pow2(d / 2) * pow2(d - d / 2);
            const float dn = pow2(-f_new);
            if (r == 1) fac_own[t2][hi] = factor;
            if (writer) {
              pub_own[(2 + t) * kHmHeads + h] = bnd;
              pub_own[(6 + t) * kHmHeads + h] = __int_as_float(f_new);
              pub_own[(10 + t) * kHmHeads + h] = factor;
            }
#pragma unroll
            for (int jj = 0; jj < 4; ++jj) {
              const float2 s0 = reinterpret_cast<const float2*>(tab_s + 8 * jj + 2 * q4)[half];
              const float2 s1 = reinterpret_cast<const float2*>(tab_s + 8 * jj + 2 * q4 + 1)[half];
              const uint32_t x = pack_f16x2((sc[4 * jj + 2 * hi] * (t2 ? s0.y : s0.x)) * dn,
                                            (sc[4 * jj + 2 * hi + 1] * (t2 ? s1.y : s1.x)) * dn);
              // fragment (kk = jj / 2, reg 2 (jj % 2) + hi) of tile t
              const int kk = jj / 2, rg = 2 * (jj % 2) + hi;
              if (r == 1)
                u[t2][kk][rg] = x;
              else
                u_own[((t2 * 2 + kk) * 4 + rg) * 128] = x;
            }
          }
        }
      // (the other warpgroup's reads of its previous state are done: it arrived after them)
      arrive_own();  // sub-block j's state and the other's U are published
    } else if (j >= 1) {
      sync_other();  // warpgroup 0 after its last own sub-block: the last one's state
    }
    // ---- E. the value MMAs of sub-block j - 1 (the other's), then of j (own) ----
    if (j >= 1) {
#pragma unroll
      for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
        for (int hi = 0; hi < 2; ++hi)
          rescale(t2, hi, pub_word(pub_oth, 10 + 2 * W + t2, 16 * w + g + 8 * hi));
      uint32_t a[2][2][4];
#pragma unroll
      for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
        for (int kk = 0; kk < 2; ++kk)
#pragma unroll
          for (int r = 0; r < 4; ++r) a[t2][kk][r] = u_oth[((t2 * 2 + kk) * 4 + r) * 128];
      ptx::mbar_wait(&tile_full[(j - 1) % kSbTiles], ((j - 1) / kSbTiles) & 1);  // (already done)
      issue_values(j - 1, a);
    }
    if (own) {
      // O's factor for sub-block j: where any of this warp's is not 1, the values of j - 1
      // must land first (they accumulate into the same registers); otherwise the MMAs chain.
      const bool moved = fac_own[0][0] != 1.0f || fac_own[0][1] != 1.0f || fac_own[1][0] != 1.0f ||
                         fac_own[1][1] != 1.0f;
      if (__any_sync(~0u, moved)) {
        ptx::wgmma_wait<0>();
#pragma unroll
        for (int t2 = 0; t2 < 2; ++t2) ptx::fence_regs(o[t2]);
#pragma unroll
        for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
          for (int hi = 0; hi < 2; ++hi) rescale(t2, hi, fac_own[t2][hi]);
      }
      issue_values(j, u);
    }
    ptx::wgmma_wait<0>();
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2) ptx::fence_regs(o[t2]);
    if (j >= 1) release_tile(j - 1);
    if (own) release_tile(j);
  }

  // ---- epilogue: the state after the last sub-block (warpgroup 1's when any) ----
  __syncwarp();  // (warpgroup 1: its own writes of the last state, by other lanes)
  // (the last sub-block, 2 nblocks - 1, is warpgroup 1's)
  const float* const fin = reinterpret_cast<const float*>(smem + S::kPub) + kSbStateWords * kHmHeads;
  const HmPlace at = hm_place(p, sm.bad_all);
#pragma unroll
  for (int hi = 0; hi < 2; ++hi) {
    const int h = 16 * w + g + 8 * hi;
    if (h >= at.nh) continue;
    const float l = nsub > 0 ? fin[1 * kHmHeads + h] : 0.0f;
    const float m = nsub > 0 ? fin[0 * kHmHeads + h] : -INFINITY;
    const float rl = l > 0.0f ? __fdiv_rn(1.0f, l) : 0.0f;
    // A NaN sum: a NaN score was seen; otherwise non-finite referenced input poisons the
    // head (never the empty sentinel).
    const bool bad = isnan(l) || (l > 0.0f && (sm.bad_head[h] != 0 || at.any_bad_scale));
    const float lse2 = l > 0.0f ? m + log2f(l) : -INFINITY;
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2) {
      const int f = nsub > 0 ? __float_as_int(fin[(6 + 2 * W + t2) * kHmHeads + h]) : -126;
      float v[16][2];
#pragma unroll
      for (int jj = 0; jj < 16; ++jj) {
        v[jj][0] = o[t2][4 * jj + 2 * hi] * rl;
        v[jj][1] = o[t2][4 * jj + 2 * hi + 1] * rl;
      }
      store_head_at<16>(p, at.token, at.split, at.h0 + h, 128 * (2 * W + t2), 8, q4, v, pow2(f),
                        lse2, bad, W == 0 && t2 == 0 && q4 == 0);
    }
  }
}

}  // namespace jax_glm_nope::sm90
