// The warp-private kernel: up to 8 heads; each warp keeps its own softmax and value
// accumulator.
// Part of our sm_90a sparse-MLA kernels (sparse_mla_kernel.cuh is the entry).
#pragma once

#include "ours/sm90/pipeline.cuh"

namespace jax_glm_nope::sm90 {

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

template <int NS>
__global__ void __launch_bounds__(3 * 128, 1) sparse_mla_warp_private_kernel(const SparseMlaParams p) {
  static_assert(NS % 2 == 0, "a group's blocks use the stages of its parity");
  using S = Smem<1, NS>;
  constexpr int HP = 8;
  extern __shared__ __align__(128) uint8_t smem[];
  const SmemView<S> sm(smem, NS);
  ptx::grid_dependency_wait();  // before any global access, reads and writes
  ptx::launch_dependents();
  init_barriers<NS>(sm.full, sm.empty, kConsumerWarps, sm.bad_all);
  // The split's candidates are computed after setmaxnreg in each role (nothing live
  // across it: a value kept over setmaxnreg is spilled).
  if (threadIdx.x >= kPrivateWarps * 32) {
    ptx::setmaxnreg_dec<kProducerRegs>();  // the whole producer warpgroup
    // Warps 8, 9 gather group 0's blocks (rows 0-31, 32-63), warps 10, 11 group 1's.
    const int k = threadIdx.x / 32 - kPrivateWarps, lane = threadIdx.x % 32;
    const SplitRange r(p);
    gather_rows<NS>(p, r.token, r.c_begin, r.c_stop, r.nblocks, k % 2, lane, sm.rows,
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

}  // namespace jax_glm_nope::sm90
