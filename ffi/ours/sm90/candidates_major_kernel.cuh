// The candidates-major kernel: 9-32 heads, splits of 4 blocks or more (kKernels in
// sparse_mla_kernel.cuh); both MMAs as warpgroup MMAs (wgmma) with M = 64 candidates and
// the converted codes as the register A operand. It takes a grid y of head groups of 32
// (first_head), so it can also run above 32 heads, one CTA per group reading the same rows
// (docs/cuda_sm90.md, "candidates-major").
// Part of our sm_90a sparse-MLA kernels (sparse_mla_kernel.cuh is the entry).
//
// Same CTA, roles and numerics as the block-shared kernel (one or two consumer
// warpgroups on alternate blocks, two producer warps); what changes is the consumer:
//  - scores S^T[64 candidates, N = 8 NT heads] of a block as one warpgroup MMA per 16
//    dims: A = the codes of warp w's 16 rows in fp16 (ldmatrix + cvt, as before), B = q̂
//    from shared memory (core-matrix layout, no per-warp q loads); one accumulator per
//    128-dim tile, scaled exactly into the score sum;
//  - the block softmax through shared memory as before, with the per-(tile, head)
//    quantities (running sum, weighted-scale bound, exponent, rescale and U factors)
//    computed once per (tile, head) by one thread ("items") instead of by every thread
//    that holds the head;
//  - U_t^T = p s_t 2^-F (fp16; O is a running sum, divided by l at the end) written to
//    shared memory by stmatrix.trans, one 64 x N matrix per tile;
//  - values O^T[64-dim M-tile, N] += V^T . U_t^T as one warpgroup MMA per M-tile and 16
//    candidates: A = the codes transposed (ldmatrix.trans + byte permute + cvt), B = U_t^T.
// Four group barriers per block (maxima; sums and bounds; items; U^T).

#pragma once

#include "ours/sm90/pipeline.cuh"

namespace jax_glm_nope::sm90 {

template <int NT, int NS>
struct CmSmem {
  static constexpr int kHeadsPad = NT * 8;
  static constexpr int NP = kHeadsPad;
  static constexpr int kGroups = consumer_groups(NT);
  static constexpr int kRows = 0;
  static constexpr int kQ = kRows + NS * kBlockRows * kRowBytes;  // q̂, core layout
  static constexpr int kG0 = kQ + NP * L::kHeadDim * 2;
  // Per consumer group (offsets from the group's base, stride kGroup).
  static constexpr int kUTile = kBlockRows * NP * 2;  // U_t^T, 64 x N fp16
  static constexpr int kU = 0;
  static constexpr int kRedMax = kU + 4 * kUTile;  // [head][warp] float
  static constexpr int kRedSum = kRedMax + NP * 4 * 4;
  // [tile][head pair][warp, row] bf16x2, kBigStride words per head pair (32 + 4: the
  // items' 16-byte reads of consecutive pairs start 4 banks apart, not in one bank)
  static constexpr int kBigStride = 36;
  static constexpr int kRedBig = kRedSum + NP * 4 * 4;
  static constexpr int kFac = kRedBig + 4 * (NP / 2) * kBigStride * 4;  // [tile][head] (U factor, rescale)
  static constexpr int kM = kFac + 4 * NP * 8;                 // [parity][head]
  static constexpr int kL = kM + 2 * NP * 4;                   // [parity][head]
  static constexpr int kBound = kL + 2 * NP * 4;               // [parity][tile][head]
  static constexpr int kF = kBound + 2 * 4 * NP * 4;           // [parity][tile][head]
  static constexpr int kRescale = kF + 2 * 4 * NP * 4;         // [parity]
  static constexpr int kGroup = kRescale + 16;
  static constexpr int kFlags = kG0 + kGroups * kGroup;
  static constexpr int kFactor = kFlags + NS * kBlockRows * 4;
  static constexpr int kBad = kFactor + 2 * kHeadsPad * 4;
  static constexpr int kBars = (kBad + kHeadsPad * 4 + 16 + 15) / 16 * 16;
  static constexpr int kBytes = kBars + 2 * NS * 8;
  static constexpr int kXchgFloats = 36 * NT;  // the group merge, as in Smem
  static_assert(kGroups == 1 || kXchgFloats * kConsumerWarps * 32 * 4 <= NS * kBlockRows * kRowBytes,
                "the merge buffer must fit in the row ring");
  static_assert(kBytes <= (ctas_per_sm(kHeadsPad) == 2 ? 113 : 227) * 1024, "shared memory");
};

template <int NT>
constexpr int candidates_major_stages() {
  return NT == 2 ? 2 : 4;
}

// A group's per-block shared state.
template <typename S>
struct GroupView {
  uint8_t* ut;
  float* red_max;
  float* red_sum;
  uint32_t* red_big;
  float* fac;
  float* m;
  float* l;
  float* bound;
  int* f;
  int* rescale;
  __device__ explicit GroupView(uint8_t* base)
      : ut(base + S::kU),
        red_max(reinterpret_cast<float*>(base + S::kRedMax)),
        red_sum(reinterpret_cast<float*>(base + S::kRedSum)),
        red_big(reinterpret_cast<uint32_t*>(base + S::kRedBig)),
        fac(reinterpret_cast<float*>(base + S::kFac)),
        m(reinterpret_cast<float*>(base + S::kM)),
        l(reinterpret_cast<float*>(base + S::kL)),
        bound(reinterpret_cast<float*>(base + S::kBound)),
        f(reinterpret_cast<int*>(base + S::kF)),
        rescale(reinterpret_cast<int*>(base + S::kRescale)) {}
};

__device__ __forceinline__ uint32_t bf16x2_max(uint32_t a, uint32_t b) {
  const __nv_bfloat162 r = __hmax2(*reinterpret_cast<const __nv_bfloat162*>(&a),
                                   *reinterpret_cast<const __nv_bfloat162*>(&b));
  return *reinterpret_cast<const uint32_t*>(&r);
}
__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
  const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&h);
}

// The running maximum with lazy updates (kLazyMax): the block's maximum over the four
// warps' r. Called with the same arguments by every thread that needs a head's maximum.
__device__ __forceinline__ float lazy_max(float m, float4 r) {
  const float b = fmaxf(fmaxf(r.x, r.y), fmaxf(r.z, r.w));
  return b > m + kLazyMax ? b : m;
}

template <int NT, int NS>
__global__ void __launch_bounds__(threads_of(NT), ctas_per_sm(NT * 8))
    sparse_mla_candidates_major_kernel(const SparseMlaParams p) {
  static_assert(NT >= 2 && NT <= 4, "9-32 heads per CTA");
  using S = CmSmem<NT, NS>;
  constexpr int NWG = S::kGroups;
  extern __shared__ __align__(128) uint8_t smem[];
  const SmemView<S> sm(smem, NS);
  const CtaStart start = start_cta<NS, NWG>(p, sm);  // PDL, the ring, the producer warps' gather
  if (!start.consumer) return;
  // Consumers: warpgroup MMAs over each block's 64 candidates, NWG groups on alternate blocks.
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const auto [token, split, c_begin, c_stop, nblocks] = start.range;
  constexpr int NP = S::NP;
  // blocks grp, grp + NWG, ... (a shuffle from lane 0: the compiler then knows it is
  // warp-uniform and keeps the group's descriptors in uniform registers)
  const int grp = NWG == 1 ? 0 : __shfl_sync(~0u, warp / kConsumerWarps, 0);
  const int w = warp % kConsumerWarps;                    // rows 16 w.. of the warpgroup MMAs
  const int tid = threadIdx.x % 128;                      // thread in the group
  const GroupView<S> gv(smem + S::kG0 + grp * S::kGroup);
  const int g = lane >> 2;  // fragment row group
  const int q4 = lane & 3;  // heads 8 j + 2 q4 + i in the C layouts
  // This CTA's heads: h0 .. h0 + nh - 1 (above 32 heads, one CTA per group of 32; both
  // recomputed where used, so that nothing stays live across the block loop).
  auto first_head = [] { return kGroupHeads * int(blockIdx.y); };
  prepare_q<NP, NWG * kConsumerWarps, true>(p, token, warp, lane, sm.qhat, sm.qpre, sm.qpost,
                                            sm.bad_head, first_head(),
                                            min(kGroupHeads, p.heads - first_head()));
  if (tid < NP) {  // the group's state before its first block (parity 1 is read first)
    gv.m[NP + tid] = -INFINITY;
    gv.l[NP + tid] = 0.0f;
#pragma unroll
    for (int t = 0; t < 4; ++t) {
      gv.bound[(4 + t) * NP + tid] = 0.0f;
      gv.f[(4 + t) * NP + tid] = -126;
    }
  }
  if (tid < 2) gv.rescale[tid] = 0;
  ptx::fence_proxy_async();  // q̂ is read by the score MMAs through the async proxy
  ptx::all_consumers_sync<NWG>();

  float m_c[NT][2];
  bool scale_bad = false;
  float o[8][4 * NT];  // M-tile mt: dims 64 mt + 16 w + (2 g, 2 g + 1); heads 8 j + 2 q4 + i
#pragma unroll
  for (int j = 0; j < NT; ++j) m_c[j][0] = m_c[j][1] = -INFINITY;
#pragma unroll
  for (int mt = 0; mt < 8; ++mt)
#pragma unroll
    for (int e = 0; e < 4 * NT; ++e) o[mt][e] = 0.0f;
  const int c_a = 16 * w + g, c_b = c_a + 8;  // this thread's score rows
  // Descriptors: LBO = NP x 16 bytes between the two 8-k cores of a 16-k step.
  const uint64_t q_desc = ptx::smem_desc(sm.qhat, NP * 16, 128);
  const uint64_t u_desc = ptx::smem_desc(gv.ut, NP * 16, 128);

  int it = 0;
  for (int b = grp; b < nblocks; b += NWG, ++it) {
    const int par = it & 1;
    const int stage = b % NS;
    ptx::mbar_wait(&sm.full[stage], (b / NS) & 1);
    const uint8_t* rows = sm.rows + stage * kBlockRows * kRowBytes;
    const int* fl = sm.flags + stage * kBlockRows;

    // ---- scores: S^T[64 candidates, N] ----
    float s_a[4], s_b[4];
    {
      const float4 xa = *reinterpret_cast<const float4*>(rows + c_a * kRowBytes + L::kScalesOffset);
      const float4 xb = *reinterpret_cast<const float4*>(rows + c_b * kRowBytes + L::kScalesOffset);
      s_a[0] = xa.x, s_a[1] = xa.y, s_a[2] = xa.z, s_a[3] = xa.w;
      s_b[0] = xb.x, s_b[1] = xb.y, s_b[2] = xb.z, s_b[3] = xb.w;
    }
    // Per candidate, the tile scales shifted by 2^-E_c (as in the block-shared kernel).
    float sdown_a, sdown_b, up_a, up_b;
    {
      const float ma = fmaxf(fmaxf(fabsf(s_a[0]), fabsf(s_a[1])), fmaxf(fabsf(s_a[2]), fabsf(s_a[3])));
      const float mb = fmaxf(fmaxf(fabsf(s_b[0]), fabsf(s_b[1])), fmaxf(fabsf(s_b[2]), fabsf(s_b[3])));
      const int ea = exponent_bound(ma), eb = exponent_bound(mb);
      sdown_a = pow2(-ea);
      sdown_b = pow2(-eb);
      up_a = pow2(ea);
      up_b = pow2(eb);
    }
    float sc[4 * NT];
#pragma unroll
    for (int e = 0; e < 4 * NT; ++e) sc[e] = 0.0f;
    const uint8_t* arow = rows + (16 * w + (lane & 15)) * kRowBytes + (lane >> 4) * 16;
#pragma unroll
    for (int t = 0; t < L::kNumTiles; ++t) {
      uint32_t a[8][4];
#pragma unroll
      for (int kp = 0; kp < 4; ++kp) {
        uint32_t r[4];
        ptx::ldsm_x4(r, arow + t * L::kTile + kp * 32);
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          // dims 4 q4 + {0, 1} -> k 2 q4 + {0, 1}, dims 4 q4 + {2, 3} -> k 2 q4 + 8 + {0, 1};
          // q̂ is stored in the same k order (q_core_offset).
          a[2 * kp + half][0] = e4m3x2_lo_to_f16x2(r[2 * half]);
          a[2 * kp + half][1] = e4m3x2_lo_to_f16x2(r[2 * half + 1]);
          a[2 * kp + half][2] = e4m3x2_hi_to_f16x2(r[2 * half]);
          a[2 * kp + half][3] = e4m3x2_hi_to_f16x2(r[2 * half + 1]);
        }
      }
      // The tile's accumulator: the first MMA overwrites it (scale-d = 0), so it starts
      // undefined (an empty asm "defines" it: no moves, nothing live across tiles).
      float acc[4 * NT];
#pragma unroll
      for (int e = 0; e < 4 * NT; ++e) asm volatile("" : "=f"(acc[e]));
      ptx::wgmma_fence();
#pragma unroll
      for (int s = 0; s < 8; ++s)
        ptx::Wgmma<NT>::rs(acc, a[s], q_desc + uint64_t(((8 * t + s) * NP * 32) >> 4), s > 0);
      ptx::wgmma_commit();
      ptx::wgmma_wait<0>();
      ptx::fence_regs(acc);
      // The tile's scales, re-read from shared memory: s_a / s_b hold the same values (the
      // tile loop is unrolled) and could serve, but this is the form the GPU suite covers.
      const float st_a = *reinterpret_cast<const float*>(rows + c_a * kRowBytes + L::kScalesOffset + 4 * t);
      const float st_b = *reinterpret_cast<const float*>(rows + c_b * kRowBytes + L::kScalesOffset + 4 * t);
      const float sn_a = st_a * sdown_a, sn_b = st_b * sdown_b;
      scale_bad |= !isfinite(st_a) || !isfinite(st_b);  // zero rows have scale 0
#pragma unroll
      for (int e = 0; e < 4 * NT; ++e) sc[e] = fmaf(acc[e], (e & 2) ? sn_b : sn_a, sc[e]);
    }
    const bool act_a = fl[c_a] != 0, act_b = fl[c_b] != 0;
#pragma unroll
    for (int j = 0; j < NT; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        // A NaN score (NaN code or q) stays NaN: the maxima skip it (fmaxf), its
        // probability and so the head's running sum become NaN, which marks the head bad
        // at the end (no per-score flags).
        const float pre = sm.qpre[8 * j + 2 * q4 + (e & 1)];
        const float post = sm.qpost[8 * j + 2 * q4 + (e & 1)];
        float v = ((sc[4 * j + e] * pre) * (e < 2 ? up_a : up_b)) * post;
        v = v >= FLT_MAX ? INFINITY : (v < -FLT_MAX ? -FLT_MAX : v);
        sc[4 * j + e] = (e < 2 ? act_a : act_b) ? v : -INFINITY;
      }
    // Block maximum per head over this warp's 16 candidates.
#pragma unroll
    for (int j = 0; j < NT; ++j)
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        float mx = fmaxf(sc[4 * j + i], sc[4 * j + i + 2]);
#pragma unroll
        for (int o_ = 4; o_ < 32; o_ *= 2) mx = fmaxf(mx, __shfl_xor_sync(~0u, mx, o_));
        if (g == 0) gv.red_max[(8 * j + 2 * q4 + i) * 4 + w] = mx;
      }
    ptx::consumer_sync(grp);  // (1) maxima

    // ---- probabilities, sums and the per-(tile, head) weighted-scale bounds ----
#pragma unroll
    for (int j = 0; j < NT; ++j)
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const int h = 8 * j + 2 * q4 + i;
        const float4 r = *reinterpret_cast<const float4*>(gv.red_max + h * 4);
        const float m = lazy_max(m_c[j][i], r);
        m_c[j][i] = m;
        const float v0 = sc[4 * j + i], v1 = sc[4 * j + i + 2];
        const float p0 = act_a ? (v0 == m ? 1.0f : ptx::exp2_approx(v0 - m)) : 0.0f;
        const float p1 = act_b ? (v1 == m ? 1.0f : ptx::exp2_approx(v1 - m)) : 0.0f;
        sc[4 * j + i] = p0;
        sc[4 * j + i + 2] = p1;
        float s = p0 + p1;
#pragma unroll
        for (int o_ = 4; o_ < 32; o_ *= 2) s += __shfl_xor_sync(~0u, s, o_);
        if (g == 0) gv.red_sum[h * 4 + w] = s;
      }
    // max over this thread's two rows of p |s_t| per (tile, head), as a bf16 pair per
    // two heads (rounded to nearest: |U| may reach 1 + 2^-8, far inside fp16); the items
    // reduce the 32 rows' values.
#pragma unroll
    for (int t = 0; t < 4; ++t)
#pragma unroll
      for (int j = 0; j < NT; ++j) {
        const float b0 = fmaxf(fabsf(sc[4 * j] * s_a[t]), fabsf(sc[4 * j + 2] * s_b[t]));
        const float b1 = fmaxf(fabsf(sc[4 * j + 1] * s_a[t]), fabsf(sc[4 * j + 3] * s_b[t]));
        gv.red_big[((t * NP / 2) + 4 * j + q4) * S::kBigStride + 8 * w + g] = pack_bf16x2(b0, b1);
      }
    ptx::consumer_sync(grp);  // (2) sums and bounds

    // ---- items: one thread per (tile, head) ----
    if (tid < 4 * NP) {
      const int t = tid / NP, h = tid % NP;
      const float m_old = gv.m[(par ^ 1) * NP + h];
      const float m = lazy_max(m_old, *reinterpret_cast<const float4*>(gv.red_max + h * 4));
      const float corr = m_old == m ? 1.0f : ptx::exp2_approx(m_old - m);
      const float4 rs = *reinterpret_cast<const float4*>(gv.red_sum + h * 4);
      float sum = 0.0f;
      sum = __fadd_rn(sum, rs.x);
      sum = __fadd_rn(sum, rs.y);
      sum = __fadd_rn(sum, rs.z);
      sum = __fadd_rn(sum, rs.w);
      const float l_new = __fadd_rn(__fmul_rn(gv.l[(par ^ 1) * NP + h], corr), sum);
      const uint4* rb = reinterpret_cast<const uint4*>(gv.red_big + ((t * NP / 2) + h / 2) * S::kBigStride);
      uint32_t mx[8];  // a tree over the 32 rows' values
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        const uint4 x = rb[k];
        mx[k] = bf16x2_max(bf16x2_max(x.x, x.y), bf16x2_max(x.z, x.w));
      }
#pragma unroll
      for (int n = 4; n > 0; n /= 2)
#pragma unroll
        for (int k = 0; k < n; ++k) mx[k] = bf16x2_max(mx[k], mx[k + n]);
      const float big = __uint_as_float((h & 1) ? (mx[0] & 0xffff0000u) : (mx[0] << 16));
      const float bound = fmaxf(gv.bound[((par ^ 1) * 4 + t) * NP + h] * corr, big);
      const int f_new = exponent_bound(bound);
      const int d = gv.f[((par ^ 1) * 4 + t) * NP + h] - f_new;
      // |d| <= 252: two normal powers of two; corr <= 1 and the product is <= 2. 1 (no
      // rescale) unless the maximum or the exponent moved.
      const float factor = corr * pow2(d / 2) * pow2(d - d / 2);
      *reinterpret_cast<float2*>(gv.fac + (t * NP + h) * 2) = make_float2(pow2(-f_new), factor);
      gv.bound[(par * 4 + t) * NP + h] = bound;
      gv.f[(par * 4 + t) * NP + h] = f_new;
      if (t == 0) {
        gv.m[par * NP + h] = m;
        gv.l[par * NP + h] = l_new;
      }
      if (factor != 1.0f) gv.rescale[par] = 1;
    }
    ptx::consumer_sync(grp);  // (3) items

    // ---- rescale O (when a maximum or an exponent moved), write U_t^T = (p s_t) 2^-F ----
    if (gv.rescale[par] != 0) {  // group-uniform: a branch, skipped in most blocks
#pragma unroll
      for (int t = 0; t < 4; ++t)
#pragma unroll
        for (int j = 0; j < NT; ++j) {
          const float4 f4 = *reinterpret_cast<const float4*>(gv.fac + (t * NP + 8 * j + 2 * q4) * 2);
#pragma unroll
          for (int m2 = 0; m2 < 2; ++m2) {
            o[2 * t + m2][4 * j + 0] *= f4.y;
            o[2 * t + m2][4 * j + 2] *= f4.y;
            o[2 * t + m2][4 * j + 1] *= f4.w;
            o[2 * t + m2][4 * j + 3] *= f4.w;
          }
        }
    }
    if (tid == 0) gv.rescale[par ^ 1] = 0;  // for the next block's items
#pragma unroll
    for (int t0 = 0; t0 < 4; t0 += 2)
#pragma unroll
      for (int j = 0; j < NT; ++j) {
        uint32_t u[2][2];  // [tile t0 + k][rows a, b]
#pragma unroll
        for (int k = 0; k < 2; ++k) {
          const int t = t0 + k;
          // (U factor, rescale) of heads 8 j + 2 q4 and + 1
          const float4 f4 = *reinterpret_cast<const float4*>(gv.fac + (t * NP + 8 * j + 2 * q4) * 2);
          u[k][0] = pack_f16x2((sc[4 * j + 0] * s_a[t]) * f4.x, (sc[4 * j + 1] * s_a[t]) * f4.z);
          u[k][1] = pack_f16x2((sc[4 * j + 2] * s_b[t]) * f4.x, (sc[4 * j + 3] * s_b[t]) * f4.z);
        }
        // Matrices (t0, a), (t0, b), (t0 + 1, a), (t0 + 1, b): rows = heads 8 j + r, 16 bytes
        // = candidates 16 w + 8 (a or b) + 0..7: K-major cores of U_t^T.
        const int mi = lane / 8, r = lane % 8;
        uint8_t* dst = gv.ut + (t0 + mi / 2) * S::kUTile + core_offset<NP>(8 * j + r, 16 * w + 8 * (mi % 2));
        ptx::stsm_x4_trans(dst, u[0][0], u[0][1], u[1][0], u[1][1]);
      }
    ptx::fence_proxy_async();
    ptx::consumer_sync(grp);  // (4) U^T

    // ---- values: O^T[64-dim M-tile, N] += V^T . U_t^T ----
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      uint32_t a[8][4];
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        uint32_t r[4];
        // r[0], r[1]: candidates 16 kk + 2 q4 (+1) and + 8, dims 64 (2u) + 16 w + 2 g (+1);
        // r[2], r[3]: the same for M-tile 2 u + 1.
        ptx::ldsm_x4_trans(r, rows + (16 * kk + (lane & 15)) * kRowBytes + 64 * (2 * u + (lane >> 4)) + 16 * w);
#pragma unroll
        for (int m2 = 0; m2 < 2; ++m2) {
          const uint32_t x = __byte_perm(r[2 * m2], 0, 0x3120);
          const uint32_t y = __byte_perm(r[2 * m2 + 1], 0, 0x3120);
          a[2 * u + m2][0] = e4m3x2_lo_to_f16x2(x);  // row g: dim 2 g, candidates c, c + 1
          a[2 * u + m2][1] = e4m3x2_hi_to_f16x2(x);  // row g + 8: dim 2 g + 1
          a[2 * u + m2][2] = e4m3x2_lo_to_f16x2(y);  // candidates c + 8, c + 9
          a[2 * u + m2][3] = e4m3x2_hi_to_f16x2(y);
        }
      }
      ptx::wgmma_fence();
#pragma unroll
      for (int mt = 0; mt < 8; ++mt)
        ptx::Wgmma<NT>::rs(o[mt], a[mt], u_desc + uint64_t(((mt / 2) * S::kUTile + kk * NP * 32) >> 4), 1);
      ptx::wgmma_commit();
      ptx::wgmma_wait<0>();
    }
#pragma unroll
    for (int mt = 0; mt < 8; ++mt) ptx::fence_regs(o[mt]);
    __syncwarp();
    if (lane == 0) ptx::mbar_arrive(&sm.empty[stage]);
  }

  // ---- epilogue ----
  if (__any_sync(~0u, scale_bad) && lane == 0) atomicOr(sm.bad_all, 1);
  ptx::all_consumers_sync<NWG>();  // every block consumed: the row ring is free
  // The group's final state: parity (blocks done + 1) & 1 (1, the initial state, for none).
  const int fin = (it & 1) ^ 1;
  if constexpr (NWG == 2) {
    if (nblocks <= 1 && grp == 1) return;  // group 1 saw nothing: no merge
  }
  const bool merge = NWG == 2 && nblocks > 1;  // CTA-uniform
  float* xchg = reinterpret_cast<float*>(sm.rows) + w * (S::kXchgFloats * 32) + lane;
  if (merge) {
    // Group 1 hands its state to the same (warp, lane) of group 0 through the row ring.
    if (grp == 1) {
#pragma unroll
      for (int j = 0; j < NT; ++j)
#pragma unroll
        for (int i = 0; i < 2; ++i) {
          xchg[(32 * NT + 4 * j + 2 * i) * 32] = m_c[j][i];
          xchg[(32 * NT + 4 * j + 2 * i + 1) * 32] = gv.l[fin * NP + 8 * j + 2 * q4 + i];
        }
#pragma unroll
      for (int mt = 0; mt < 8; ++mt)
#pragma unroll
        for (int e = 0; e < 4 * NT; ++e) xchg[(mt * 4 * NT + e) * 32] = o[mt][e];
    }
    ptx::all_consumers_sync<NWG>();
    if (grp == 1) return;
  }
  // Group 0 merges the two running means like the split combine (weights l_g 2^(m_g - M),
  // 1 where m_g == M), per tile in units of 2^max(f_0, f_1), head by head, and stores.
  const GroupView<S> g1(smem + S::kG0 + (NWG == 2 ? S::kGroup : 0));
  const int fin1 = ((nblocks / 2) & 1) ^ 1;  // group 1 did nblocks / 2 blocks
  const bool any_bad_scale = *sm.bad_all != 0;
  const int h0 = first_head(), nh = min(kGroupHeads, p.heads - h0);
  // token and split again, from a fresh read of the CTA index (volatile: not merged with
  // the first read, so nothing is kept, or spilled, across the block loop)
  uint32_t cta;
  asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(cta));
  const int token_here = int(cta) / p.num_splits, split_here = int(cta) % p.num_splits;
#pragma unroll
  for (int j = 0; j < NT; ++j)
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int h = 8 * j + 2 * q4 + i;
      if (h >= nh) continue;
      // O is a running sum (in units of 2^f per tile): out = O 2^f / l; merged, the two
      // groups' sums weighted by 2^(m_g - M) and l = l_0 2^(m_0 - M) + l_1 2^(m_1 - M).
      float m = m_c[j][i], l = gv.l[fin * NP + h], c0 = 1.0f, c1 = 0.0f;
      if (merge) {
        const float m0 = m, l0 = l;
        const float m1 = xchg[(32 * NT + 4 * j + 2 * i) * 32];
        const float l1 = xchg[(32 * NT + 4 * j + 2 * i + 1) * 32];
        m = fmaxf(m0, m1);
        c0 = m0 == m ? 1.0f : ptx::exp2_approx(m0 - m);
        c1 = m1 == m ? 1.0f : ptx::exp2_approx(m1 - m);
        l = l0 * c0 + l1 * c1;
      }
      const float rl = l > 0.0f ? __fdiv_rn(1.0f, l) : 0.0f;
      const float r0 = c0 * rl, r1 = c1 * rl;
      // A NaN sum: a NaN score was seen; otherwise non-finite referenced input poisons the
      // head (never the empty sentinel).
      const bool bad = isnan(l) || (l > 0.0f && (sm.bad_head[h] != 0 || any_bad_scale));
      const float lse2 = l > 0.0f ? m + log2f(l) : -INFINITY;
#pragma unroll
      for (int t = 0; t < 4; ++t) {
        int f = gv.f[(fin * 4 + t) * NP + h];
        float v[2][2];
#pragma unroll
        for (int m2 = 0; m2 < 2; ++m2) {
          v[m2][0] = o[2 * t + m2][4 * j + i] * r0;
          v[m2][1] = o[2 * t + m2][4 * j + i + 2] * r0;
        }
        if (merge) {
          const int f0 = f, f1 = g1.f[(fin1 * 4 + t) * NP + h];
          f = max(f0, f1);
          const int d0 = f0 - f, d1 = f1 - f;  // in [-252, 0]: two normal powers of two
          const float w0 = pow2(d0 / 2) * pow2(d0 - d0 / 2);
          const float w1 = r1 * pow2(d1 / 2) * pow2(d1 - d1 / 2);
#pragma unroll
          for (int m2 = 0; m2 < 2; ++m2) {
            const int mt = 2 * t + m2;
            v[m2][0] = v[m2][0] * w0 + xchg[(mt * 4 * NT + 4 * j + i) * 32] * w1;
            v[m2][1] = v[m2][1] * w0 + xchg[(mt * 4 * NT + 4 * j + i + 2) * 32] * w1;
          }
        }
        store_head_at<2>(p, token_here, split_here, h0 + h, 128 * t + 16 * w, 64, g, v, pow2(f), lse2, bad,
                         t == 0 && w == 0 && g == 0);
      }
    }
}

}  // namespace jax_glm_nope::sm90
