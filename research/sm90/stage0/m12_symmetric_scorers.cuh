// M12: M9's fallback, two symmetric scoring warpgroups on alternate blocks.
#pragma once

#include "harness.cuh"
#include "block_loop.cuh"

// ---------------------------------------------------------------------------- M12
// The design note's fallback for M9 (section 2.8, risk 2): two symmetric scoring warpgroups
// on alternate blocks, each holding O for half the dims. Warpgroup a owns blocks a, a + 2,
// ...; for its block j it scores QK(j) into one accumulator (Horner waits, or one wait),
// takes the other's P'(j - 1) and running maximum m(j - 1) (one-way named barrier, into
// registers before publishing its own: the buffer is rewritten two blocks later), runs the
// softmax of j from m(j - 1) (the max chain), publishes P'(j) and m(j), then accumulates
// both blocks into its half of O (16 m64n128k16 RS). While one warpgroup runs its softmax
// the other's MMAs keep the tensor pipe busy. The producer warpgroup only hands tiles back
// (as M9). Same data and checks as M9: r = g = 1, the last block's scores and O exact.
constexpr int kM12MBytes = 2 * 64 * 4;  // m(j) per P' buffer, [2][64] float

template <bool kHorner>
__global__ void __launch_bounds__(384, 1)
    m12_kernel(const __half* Q, const __half* K, int nblocks, float* out_acc, float* out_o, long long* cycles,
               int* err) {
  extern __shared__ __align__(128) uint8_t smem[];
  using S = M9Smem;
  uint8_t* const sQ = smem + S::kQ;
  uint8_t* const sT = smem + S::kTile;
  uint8_t* const sP = smem + S::kP;
  float* const tab = reinterpret_cast<float*>(smem + S::kTab);
  uint64_t* const full = reinterpret_cast<uint64_t*>(smem + S::kBars);  // [tile]
  uint64_t* const empty = full + 2;                                      // [tile]
  float* const mbuf = reinterpret_cast<float*>(smem + S::kBytes);       // [buffer][64 heads]
  const int tid = threadIdx.x, wg = tid / 128, t = tid % 128;
  const int w = t / 32, lane = t % 32, g = lane / 4, q4 = lane % 4;
  const long long kLimit = 2000000000LL;
  m9_fill(sQ, sT, tab, Q, K, tid);
  if (tid == 0)
    for (int i = 0; i < 2; ++i) {
      ptx::mbar_init(&full[i], 1);
      ptx::mbar_init(&empty[i], 2);  // the owner's value MMAs and the other's
    }
  ptx::fence_proxy_async();
  __syncthreads();

  if (wg == 2) {  // ---------------- producer: hands each freed tile back
    ptx::setmaxnreg_dec<56>();
    if (t == 0) {
      ptx::mbar_arrive(&full[0]);
      ptx::mbar_arrive(&full[1]);
      for (int j = 2; j < nblocks; ++j) {
        if (!mbar_wait_bounded(&empty[j % 2], ((j - 2) / 2) & 1, kLimit, err)) return;
        ptx::mbar_arrive(&full[j % 2]);
      }
    }
    return;
  }
  ptx::setmaxnreg_inc<224>();
  // owns blocks a, a + 2, ...: its tile and P' buffer are a's (a shuffle from lane 0: the
  // compiler then knows it is warp-uniform, and the loop over a's blocks is not divergent)
  const int a = __shfl_sync(~0u, wg, 0);
  const uint64_t v0 = ptx::smem_desc(sT + sm90::core_offset<64>(0, 256 * a), 128, 1024);
  auto v_off = [](int kk, int t2) { return uint64_t((sm90::core_offset<64>(16 * kk, 128 * t2)) >> 4); };
  auto v_desc = [&](int b) { return v0 + uint64_t((b * kM9Tile) >> 4); };
  const float sc = tab[3 * 64];  // a runtime 1
  const uint32_t gpair = sm90::pack_f16x2(tab[192 + 2 * a], tab[193 + 2 * a]);  // own tiles' g
  float acc[32], o[2][64];
  sm90::zero_acc(o);
  // The other's block (its buffer is the other warpgroup's, a ^ 1): once it is published
  // (`present`: a one-way named barrier), its P' into registers and its running maximum;
  // otherwise P' = 0 and m = -inf, by selects: the registers the value MMAs read are never
  // defined on a divergent path (ptxas would serialize the MMAs, C7520).
  auto take_other = [&](bool present, uint32_t (&pa)[4][4], float (&m_in)[2]) {
    if (present) {
      if (a == 1) nb_sync<1>(); else nb_sync<2>();
    }
    const __half* const pb = reinterpret_cast<const __half*>(sP + (a ^ 1) * kM9PBytes);
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int row = 16 * w + g + 8 * (i % 2), col = 16 * kk + 8 * (i / 2) + 2 * q4;
        const uint32_t x = *reinterpret_cast<const uint32_t*>(pb + row * kM9PRow + col);
        pa[kk][i] = present ? x : 0u;
      }
#pragma unroll
    for (int hi = 0; hi < 2; ++hi) {
      const float m = mbuf[(a ^ 1) * 64 + 16 * w + g + 8 * hi];
      m_in[hi] = present ? m : -INFINITY;
    }
  };
  auto values_of = [&](const uint32_t (&p)[4][4], int tile) {  // 8 m64n128k16 RS
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        uint32_t u[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) u[i] = hmul2_u32(p[kk][i], gpair);
        sm90::HmWgmma::values(o[t2], u, v_desc(tile) + v_off(kk, t2));
      }
  };
  float m_run[2] = {-INFINITY, -INFINITY};
  const long long t0 = clock64();
  for (int j = a; j < nblocks; j += 2) {
    uint8_t* const tile = sT + a * kM9Tile;
    if (!mbar_wait_bounded(&full[a], (j / 2) & 1, kLimit, err)) return;
    // 1. QK(j): four groups into one accumulator
    ptx::wgmma_fence();
#pragma unroll
    for (int gi = 0; gi < 4; ++gi) {
#pragma unroll
      for (int s = 8 * gi; s < 8 * gi + 8; ++s)
        Ss<64>::mma(acc, kstep_desc<64>(sQ, s), kstep_desc<64>(tile, s), s > 0);
      ptx::wgmma_commit();
      if (kHorner && gi < 3) {
        ptx::wgmma_wait<0>();
        ptx::fence_regs(acc);
        m9_horner_step(acc, tab + a * 4 * 64 + 64 * gi, q4);
        ptx::wgmma_fence();
      }
    }
    ptx::wgmma_wait<0>();
    ptx::fence_regs(acc);
    // 2. the other's block j - 1: P' and m(j - 1) (none before block 1: P' = 0 adds nothing,
    // and the value MMAs below stay unconditional, which keeps ptxas from serializing them)
    uint32_t pa[4][4];
    float m_in[2];
    take_other(j >= 1, pa, m_in);
    // 3. softmax(j) from m(j - 1): the max chain runs through both warpgroups
    float mx[2] = {m_in[0], m_in[1]}, p[32], sum[2] = {0.0f, 0.0f};
#pragma unroll
    for (int e = 0; e < 32; ++e) mx[(e / 2) % 2] = fmaxf(mx[(e / 2) % 2], acc[e] * sc);
#pragma unroll
    for (int hi = 0; hi < 2; ++hi) {
      mx[hi] = fmaxf(mx[hi], __shfl_xor_sync(~0u, mx[hi], 1));
      mx[hi] = fmaxf(mx[hi], __shfl_xor_sync(~0u, mx[hi], 2));
      m_run[hi] = mx[hi];
    }
#pragma unroll
    for (int e = 0; e < 32; ++e) {
      p[e] = ptx::exp2_approx(fminf(acc[e] * sc - mx[(e / 2) % 2], 0.0f));
      sum[(e / 2) % 2] += p[e];
    }
    __half* const pb = reinterpret_cast<__half*>(sP + a * kM9PBytes);
    uint32_t pp[4][4];  // P'(j) as A fragments: kk = candidates 16 kk.., i as in the RS layout
#pragma unroll
    for (int i = 0; i < 16; ++i) {
      const uint32_t x = sm90::pack_f16x2(fmaf(p[2 * i], 0.0f, 1.0f + 0.0f * sum[i % 2]), fmaf(p[2 * i + 1], 0.0f, 1.0f));
      pp[i / 4][i % 4] = x;
      const int e = 2 * i, row = 16 * w + g + 8 * ((e / 2) % 2), col = 8 * (e / 4) + 2 * q4;
      *reinterpret_cast<uint32_t*>(pb + row * kM9PRow + col) = x;
    }
    if (q4 == 0)
#pragma unroll
      for (int hi = 0; hi < 2; ++hi) mbuf[a * 64 + 16 * w + g + 8 * hi] = m_run[hi];
    if (a == 0) nb_arrive<1>(); else nb_arrive<2>();  // P'(j), m(j) ready
    if (j == nblocks - 1 && blockIdx.x == 0)
#pragma unroll
      for (int e = 0; e < 32; ++e) {
        int row, col;
        frag_rc(t, e, row, col);
        out_acc[row * 64 + col] = acc[e];
      }
    // 4. both blocks into this warpgroup's half of O, then both tiles released (its part)
    ptx::wgmma_fence();
    values_of(pa, a ^ 1);
    values_of(pp, a);
    ptx::wgmma_commit();
    ptx::wgmma_wait<0>();
    ptx::fence_regs(o[0]);
    ptx::fence_regs(o[1]);
    if (t == 0) {
      if (j >= 1) ptx::mbar_arrive(&empty[a ^ 1]);
      ptx::mbar_arrive(&empty[a]);
    }
  }
  {  // the other's last block, where it is the other's (else P' = 0: nothing)
    uint32_t pa[4][4];
    float m_in[2];
    take_other((nblocks - 1) % 2 != a, pa, m_in);
    ptx::wgmma_fence();
    values_of(pa, a ^ 1);
    ptx::wgmma_commit();
    ptx::wgmma_wait<0>();
    ptx::fence_regs(o[0]);
    ptx::fence_regs(o[1]);
  }
  if (a == 0 && t == 0) cycles[blockIdx.x] = clock64() - t0;
  m9_store_o(o, out_o + size_t(blockIdx.x) * 64 * 512 + 256 * a, t);
}

template <bool kHorner>
static double m12_case(const __half* dQ, const __half* dK, const std::vector<float>& fQ, const std::vector<float>& fK,
                       int* derr) {
  const int blocks = g_sms, nblocks = 512;
  float *dacc, *dO;
  long long* cyc;
  CK(cudaMalloc(&dacc, 64 * 64 * 4));
  CK(cudaMalloc(&dO, size_t(blocks) * 64 * 512 * 4));
  CK(cudaMalloc(&cyc, blocks * 8));
  CK(cudaMemset(derr, 0, 4));
  auto k = m12_kernel<kHorner>;
  const int smem = M9Smem::kBytes + kM12MBytes;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const double us = time_us([&] { k<<<blocks, 384, smem>>>(dQ, dK, nblocks, dacc, dO, cyc, derr); }, 5, 1);
  int herr = 0;
  CK(cudaMemcpy(&herr, derr, 4, cudaMemcpyDeviceToHost));
  const int bad = m9_wrong(dacc, dO, blocks, nblocks, fQ, fK);
  const double per_block = m9_cycles_per_block(cyc, blocks, nblocks);
  if (herr) FAILF("m12 horner=%d: a barrier wait timed out", int(kHorner));
  if (bad) FAILF("m12 horner=%d: %d wrong results", int(kHorner), bad);
  std::printf("RESULT m12 two scoring warpgroups on alternate blocks, %s: %.0f cycles per block (median CTA), "
              "%.2f us per block-wave, tensor %.0f%% of peak (2048 cycles per block)%s\n",
              kHorner ? "Horner, 3 waits + 3 x 32 FMUL" : "one wait", per_block, us / nblocks,
              100.0 * 2048.0 / per_block, (bad || herr) ? " INVALID" : "");
  CK(cudaFree(dacc));
  CK(cudaFree(dO));
  CK(cudaFree(cyc));
  return per_block;
}

static void run_m12() {
  std::printf("== M12: two symmetric scoring warpgroups on alternate blocks (the M9 fallback)\n");
  std::vector<float> fQ, fK;
  const std::vector<__half> hQ = small_ints(64 * 512, 31, fQ);
  const std::vector<__half> hK = small_ints(64 * 512, 700000, fK);
  __half *dQ, *dK;
  int* derr;
  CK(cudaMalloc(&dQ, hQ.size() * 2));
  CK(cudaMalloc(&dK, hK.size() * 2));
  CK(cudaMalloc(&derr, 4));
  CK(cudaMemcpy(dQ, hQ.data(), hQ.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dK, hK.data(), hK.size() * 2, cudaMemcpyHostToDevice));
  const double h = m12_case<true>(dQ, dK, fQ, fK, derr);
  const double one = m12_case<false>(dQ, dK, fQ, fK, derr);
  std::printf("RESULT m12 verdict: %.0f cycles per block (the design's pass for M9: <= 2350); Horner / one wait %.3f\n",
              h, h / one);
  CK(cudaFree(dQ));
  CK(cudaFree(dK));
  CK(cudaFree(derr));
}
