// The block-shared kernel: 1-32 heads; the four warps of a consumer group share each
// block's softmax through shared memory.
// Part of our sm_90a sparse-MLA kernels (sparse_mla_kernel.cuh is the entry).
#pragma once

#include "ours/sm90/pipeline.cuh"

namespace jax_glm_nope::sm90 {

// ---------------------------------------------------------------------------
// The attention kernel.

template <int NT, int NS>
__global__ void __launch_bounds__(threads_of(NT), ctas_per_sm(NT * 8))
    sparse_mla_block_shared_kernel(const SparseMlaParams p) {
  using S = Smem<NT, NS>;
  constexpr int HP = S::kHeadsPad;
  constexpr int NWG = S::kGroups;
  extern __shared__ __align__(128) uint8_t smem[];
  const SmemView<S> sm(smem, NS);
  const CtaStart start = start_cta<NS, NWG>(p, sm);  // PDL, the ring, the producer warps' gather
  if (!start.consumer) return;
  // Consumers: NWG groups of 4 warps; group grp takes blocks grp, grp + NWG, ...
  const auto [token, split, c_begin, c_stop, nblocks] = start.range;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
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

}  // namespace jax_glm_nope::sm90
