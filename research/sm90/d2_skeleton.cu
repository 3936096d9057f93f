// The four-warpgroup CTA of the design study ("D2"), compiled at its register split to see
// whether ptxas holds it: 512 threads, setmaxnreg 112 / 176 / 176 / 48 = 65,536 registers.
//   WG0, the scorer (112): Horner scores of block j in 4 groups of 8 m64n64k16 SS into one
//     accumulator (the product's hp_group and ratio steps), a softmax stand-in of the lean
//     softmax's register shape (t, P' packed), P' and O's factor to shared memory, one arrive.
//     It holds no O.
//   WG1 / WG2, the O warpgroups (176 each): O for 256 dims each (WG1 tiles 0-1 = half B,
//     WG2 tiles 2-3 = half A): wait P'(j), rescale, U_t = P' g_t, 8 m64n128k16 RS, wait,
//     free their half's slot; then convert their half of a later block from the raw ring
//     into the fp16 ring (WG2 also builds the table, as the product's WG1 does).
//   WG3, the gather (48): the product's bulk-copy gather (hp_gather), 4 warps.
// Only the register and MMA shape is meant here: the softmax is a stand-in and the ring's
// hand-offs are not checked for deadlock. Build (no GPU needed):
//   nvcc -std=c++17 -O3 --expt-relaxed-constexpr -arch=sm_90a -cubin -Xptxas -v -I ffi \
//     research/sm90/d2_skeleton.cu -o d2.cubin [-DD2_SPLIT_WAIT=0]
// ptxas (nvcc 13.0) holds 112 / 176 / 176 / 48 with no spill and no C75xx only when an O
// warpgroup issues its value MMAs one tile at a time (D2_SPLIT_WAIT=1: U of one tile, 16
// registers, beside O's 128); all 8 MMAs in one group (U 32) need 185-200 registers: at
// 176 ptxas spills 48 bytes and serializes the MMAs (C7512), at 184 16 bytes (C7512), at
// 200 it is clean (research/lean_softmax.md).
#ifndef D2_SPLIT_WAIT
#define D2_SPLIT_WAIT 1
#endif

#include "ours/sm90/sparse_mla_kernel.cuh"

namespace jax_glm_nope::lab {

namespace sm90 = jax_glm_nope::sm90;
constexpr int kD2Threads = 4 * 128;
constexpr int kScorerRegs = 112, kOutRegs = 176, kGatherRegs = 48;
static_assert((kScorerRegs + 2 * kOutRegs + kGatherRegs) * 128 == 65536, "the register file");

template <int ID, int N>
__device__ __forceinline__ void named_sync() {
  asm volatile("bar.sync %0, %1;" ::"n"(ID), "n"(N) : "memory");
}

__global__ void __launch_bounds__(kD2Threads, 1) d2_skeleton_kernel(const sm90::SparseMlaParams p) {
  using S = sm90::HpSmem;
  using namespace sm90;
  extern __shared__ __align__(128) uint8_t smem[];
  uint8_t* const qhat = smem + S::kQ;
  uint8_t* const slots = smem + S::kSlots;
  uint8_t* const raw = smem + S::kRaw;
  int* const flags = reinterpret_cast<int*>(smem + S::kFlags);
  uint64_t* const full_raw = reinterpret_cast<uint64_t*>(smem + S::kBars);
  uint64_t* const empty_raw = full_raw + kHpRing;
  uint64_t* const full_h = empty_raw + kHpRing;
  uint64_t* const empty_h = full_h + kHpRing;
  uint64_t* const full_p = empty_h + kHpRing;
  uint64_t* const empty_p = full_p + 1;
  uint32_t* const pbuf = reinterpret_cast<uint32_t*>(smem + S::kP);
  const SplitRange range(p);
  const int nblocks = range.nblocks;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kHpRing; ++s) {
      ptx::mbar_init(&full_raw[s], kHpGatherWarps);
      ptx::mbar_init(&empty_raw[s], kConsumerWarps);
      ptx::mbar_init(&full_h[s], kConsumerWarps);
      ptx::mbar_init(&empty_h[s], kConsumerWarps);
    }
    ptx::mbar_init(full_p, kConsumerWarps);
    ptx::mbar_init(empty_p, 2 * kConsumerWarps);
  }
  __syncthreads();
  const int wg = __shfl_sync(~0u, warp / 4, 0);
  if (wg == 3) {  // ---------------- gather
    ptx::setmaxnreg_dec<kGatherRegs>();
    hp_gather(p, range.token, range.c_begin, range.c_stop, nblocks, warp - 12, lane, raw, flags, full_raw,
              empty_raw);
    return;
  }
  const int tid = threadIdx.x % 128, w = (threadIdx.x / 32) % 4, g = lane >> 2, q4 = lane & 3;
  const uint64_t q_desc = ptx::smem_desc(qhat, 1024, 128);
  auto k_desc = [&](int n) { return ptx::smem_desc(slots + hp_stage(n) * kHpSlot, 1024, 128); };
  auto v_desc = [&](int n) { return ptx::smem_desc(slots + hp_stage(n) * kHpSlot, 128, 1024); };
  auto table = [&](int b) { return smem + S::kTab + (b & 1) * S::kTabBytes; };

  if (wg == 0) {  // ---------------- scorer: no O
    ptx::setmaxnreg_dec<kScorerRegs>();
    float acc[32];
#pragma unroll
    for (int e = 0; e < 32; ++e) asm volatile("" : "=f"(acc[e]));
    float m_run[2] = {-INFINITY, -INFINITY};
    for (int b = 0; b < nblocks; ++b) {
      const float* const tf = reinterpret_cast<const float*>(table(b));
      auto horner = [&](const float* ratio) {
        float2 r[8];
#pragma unroll
        for (int j = 0; j < 8; ++j) r[j] = reinterpret_cast<const float2*>(ratio)[4 * j + q4];
        ptx::wgmma_wait<0>();
        ptx::fence_regs(acc);
#pragma unroll
        for (int j = 0; j < 8; ++j)
#pragma unroll
          for (int hi = 0; hi < 2; ++hi) {
            acc[4 * j + 2 * hi] *= r[j].x;
            acc[4 * j + 2 * hi + 1] *= r[j].y;
          }
      };
      const int nA = 2 * b, nB = 2 * b + 1;
      ptx::mbar_wait(&full_h[hp_stage(nA)], hp_parity(nA));
      ptx::wgmma_fence();
      hp_group(acc, q_desc, k_desc(nA), 256, 0, true);
      ptx::wgmma_commit();
      horner(tf + S::kTabRa * 64);
      ptx::wgmma_fence();
      hp_group(acc, q_desc, k_desc(nA), 384, 128, false);
      ptx::wgmma_commit();
      horner(tf + S::kTabRb * 64);
      ptx::mbar_wait(&full_h[hp_stage(nB)], hp_parity(nB));
      ptx::wgmma_fence();
      hp_group(acc, q_desc, k_desc(nB), 0, 0, false);
      ptx::wgmma_commit();
      horner(tf + S::kTabRc * 64);
      ptx::wgmma_fence();
      hp_group(acc, q_desc, k_desc(nB), 128, 128, false);
      ptx::wgmma_commit();
      ptx::wgmma_wait<0>();
      ptx::fence_regs(acc);
      // softmax stand-in, the lean softmax's register shape: t per element, one max round,
      // P' = ex2(t - m) packed, the factor per head
      float z[2] = {-INFINITY, -INFINITY};
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const float2 s2 = hp_lds2(tf + S::kTabLast * 64 + 8 * j + 2 * q4);
        const float2 e2 = hp_lds2(tf + S::kTabE * 64 + 8 * j + 2 * q4);
#pragma unroll
        for (int k = 0; k < 2; ++k)
#pragma unroll
          for (int hi = 0; hi < 2; ++hi) {
            const int e = 4 * j + 2 * hi + k;
            acc[e] = fmaf(acc[e], k ? s2.y : s2.x, k ? e2.y : e2.x);
            z[hi] = fmaxf(z[hi], acc[e]);
          }
      }
      float fac[2];
#pragma unroll
      for (int hi = 0; hi < 2; ++hi) {
        z[hi] = fmaxf(z[hi], __shfl_xor_sync(~0u, z[hi], 1));
        z[hi] = fmaxf(z[hi], __shfl_xor_sync(~0u, z[hi], 2));
        const float m = fmaxf(m_run[hi], z[hi]);
        fac[hi] = ptx::exp2_approx(m_run[hi] - m);
        m_run[hi] = m;
      }
      uint32_t pp[16];
#pragma unroll
      for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int hi = 0; hi < 2; ++hi)
          pp[2 * j + hi] = pack_f16x2(ptx::exp2_approx(acc[4 * j + 2 * hi] - m_run[hi]),
                                      ptx::exp2_approx(acc[4 * j + 2 * hi + 1] - m_run[hi]));
#pragma unroll
      for (int e = 0; e < 32; ++e) asm volatile("" : "=f"(acc[e]));
      ptx::mbar_wait(empty_p, (uint32_t(b) & 1u) ^ 1u);
#pragma unroll
      for (int i = 0; i < 16; ++i) pbuf[i * 128 + tid] = pp[i];
      pbuf[16 * 128 + tid] = __float_as_uint(fac[0]);
      pbuf[17 * 128 + tid] = __float_as_uint(fac[1]);
      __syncwarp();
      if (lane == 0) ptx::mbar_arrive(full_p);
    }
    return;
  }

  // ---------------- O warpgroups: WG1 dims 0-255 (half B), WG2 dims 256-511 (half A)
  ptx::setmaxnreg_inc<kOutRegs>();
  const int side = wg == 1 ? 1 : 0;  // half n = 2 j + side of block j
  float o[2][64];
  zero_acc(o);
  const int cr = (lane & 7) + 8 * ((tid >> 3) & 7);
  const int dq = tid >> 6;
  auto convert = [&](int n) {
    const int b = n / 2;
    const int s = hp_stage(n);
    ptx::mbar_wait(&empty_h[s], hp_parity(n) ^ 1u);
    ptx::mbar_wait(&full_raw[s], hp_parity(n));
    const uint8_t* rs = raw + s * kHpRawStage;
    if (side == 0 && tid < kBlockRows) {  // WG2 (half A): the block's table, as the product's WG1
      const float4 s4 = *reinterpret_cast<const float4*>(rs + tid * kHpRawRow + 256);
      float* const tf = reinterpret_cast<float*>(table(b));
      const float amax = fmaxf(fmaxf(fabsf(s4.x), fabsf(s4.y)), fmaxf(fabsf(s4.z), fabsf(s4.w)));
      const int e_c = exponent_bound(amax);
      const float down = pow2(-e_c);
      tf[S::kTabRa * 64 + tid] = __fdividef(s4.z, s4.w);
      tf[S::kTabRb * 64 + tid] = __fdividef(s4.w, s4.x);
      tf[S::kTabRc * 64 + tid] = __fdividef(s4.x, s4.y);
      tf[S::kTabE * 64 + tid] = flags[s * kBlockRows + tid] ? float(e_c) : -INFINITY;
      tf[S::kTabLast * 64 + tid] = s4.y;
      __half* const tg = reinterpret_cast<__half*>(table(b) + S::kTabG16);
      tg[0 * 64 + tid] = __float2half_rn(s4.x * down);
      tg[1 * 64 + tid] = __float2half_rn(s4.y * down);
      tg[2 * 64 + tid] = __float2half_rn(s4.z * down);
      tg[3 * 64 + tid] = __float2half_rn(s4.w * down);
    }
    if (side == 0) named_sync<2, 128>();
    uint8_t* const slot = slots + s * kHpSlot;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int d = 16 * (dq + 2 * i);
      const uint4 x = *reinterpret_cast<const uint4*>(rs + cr * kHpRawRow + d);
      uint4 lo, hi;
      e4m3x16_to_f16(x, lo, hi);
      *reinterpret_cast<uint4*>(slot + core_offset<64>(cr, d)) = lo;
      *reinterpret_cast<uint4*>(slot + core_offset<64>(cr, d + 8)) = hi;
    }
    ptx::fence_proxy_async();
    __syncwarp();
    if (lane == 0) {
      ptx::mbar_arrive(&full_h[s]);
      ptx::mbar_arrive(&empty_raw[s]);
    }
  };
  // the ring's first blocks
  if (nblocks > 0) convert(side);
  if (nblocks > 1) convert(2 + side);
  for (int b = 0; b < nblocks; ++b) {
    const uint32_t* const g16 = reinterpret_cast<const uint32_t*>(table(b) + S::kTabG16);
    ptx::mbar_wait(full_p, uint32_t(b) & 1u);
    const float fac[2] = {__uint_as_float(pbuf[16 * 128 + tid]), __uint_as_float(pbuf[17 * 128 + tid])};
    hp_rescale(o, fac);
#if D2_SPLIT_WAIT
    // One tile's MMAs at a time, each waited for: U of one tile (16 registers) live at once,
    // P' and g read from shared memory where they are used.
    const uint64_t vd = v_desc(2 * b + side);
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2) {
      uint32_t a[4][4];
      const int t = 2 * (1 - side) + t2;
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        const uint32_t g0 = g16[t * 32 + 8 * kk + q4], g1 = g16[t * 32 + 8 * kk + 4 + q4];
        a[kk][0] = hmul2(pbuf[(4 * kk + 0) * 128 + tid], g0);
        a[kk][1] = hmul2(pbuf[(4 * kk + 1) * 128 + tid], g0);
        a[kk][2] = hmul2(pbuf[(4 * kk + 2) * 128 + tid], g1);
        a[kk][3] = hmul2(pbuf[(4 * kk + 3) * 128 + tid], g1);
      }
      if (t2 == 1) {
        __syncwarp();
        if (lane == 0) ptx::mbar_arrive(empty_p);  // every P' read is done
      }
      ptx::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < 4; ++kk)
        HmWgmma::values(o[t2], a[kk], vd + uint64_t((core_offset<64>(16 * kk, 128 * t2)) >> 4));
      ptx::wgmma_commit();
      ptx::wgmma_wait<0>();
      ptx::fence_regs(o[t2]);
#pragma unroll
      for (int kk = 0; kk < 4; ++kk)
#pragma unroll
        for (int i = 0; i < 4; ++i) asm volatile("" ::"r"(a[kk][i]));
    }
#else
    // U formed k-step by k-step with P' and g read where they are used (P' twice, once per
    // tile): with O's 128 registers live, U of all 8 MMAs (32) plus P' (16) and the scales
    // (16) held at once exceed 176 (ptxas serializes the MMAs, C7512). U is complete before
    // the first MMA: a register written between two MMAs of a group makes ptxas fence each
    // one (C7519).
    uint32_t a[2][4][4];
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        const int t = 2 * (1 - side) + t2;
        const uint32_t g0 = g16[t * 32 + 8 * kk + q4], g1 = g16[t * 32 + 8 * kk + 4 + q4];
        a[t2][kk][0] = hmul2(pbuf[(4 * kk + 0) * 128 + tid], g0);
        a[t2][kk][1] = hmul2(pbuf[(4 * kk + 1) * 128 + tid], g0);
        a[t2][kk][2] = hmul2(pbuf[(4 * kk + 2) * 128 + tid], g1);
        a[t2][kk][3] = hmul2(pbuf[(4 * kk + 3) * 128 + tid], g1);
      }
    hp_values(o, a, v_desc(2 * b + side));
    __syncwarp();
    if (lane == 0) ptx::mbar_arrive(empty_p);  // every P' read is done (U is formed)
    ptx::wgmma_wait<0>();
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2) ptx::fence_regs(o[t2]);
    hp_keep(a);
#endif
    __syncwarp();
    if (lane == 0) ptx::mbar_arrive(&empty_h[hp_stage(2 * b + side)]);
    if (b + 2 < nblocks) convert(2 * (b + 2) + side);  // this warpgroup's half of block b + 2
  }
  // O to the partial rows (stand-in for the closing store): dims 256 (1 - side) ..
  float* const out = p.part_out + (int64_t(range.token) * p.num_splits + range.split) * p.heads * 512;
#pragma unroll
  for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
    for (int j = 0; j < 16; ++j)
#pragma unroll
      for (int hi = 0; hi < 2; ++hi) {
        const int h = 16 * w + g + 8 * hi;
        const int d = 256 * (1 - side) + 128 * t2 + 8 * j + 2 * q4;
        *reinterpret_cast<float2*>(out + h * 512 + d) =
            make_float2(o[t2][4 * j + 2 * hi], o[t2][4 * j + 2 * hi + 1]);
      }
}

}  // namespace jax_glm_nope::lab
