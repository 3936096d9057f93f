// M9, M10: the three-warpgroup block loop with one-way hand-offs; M10 with the producer converting.
#pragma once

#include "harness.cuh"
#include "block_loop.cuh"

template <int kMode, bool kStores>
__global__ void __launch_bounds__(384, 1)
    m9_kernel(const __half* Q, const __half* K, const uint8_t* codes, int nblocks, float* out_acc,
              float* out_o, long long* cycles, int* err) {
  extern __shared__ __align__(128) uint8_t smem[];
  using S = M9Smem;
  uint8_t* const sQ = smem + S::kQ;
  uint8_t* const sT = smem + S::kTile;
  uint8_t* const sP = smem + S::kP;
  float* const tab = reinterpret_cast<float*>(smem + S::kTab);
  uint64_t* const full = reinterpret_cast<uint64_t*>(smem + S::kBars);  // [half][tile]
  uint64_t* const empty = full + 4;                                      // [half][tile]
  const int tid = threadIdx.x, wg = tid / 128, t = tid % 128;
  const int w = t / 32, lane = t % 32, g = lane / 4, q4 = lane % 4;
  const long long kLimit = 2000000000LL;
  m9_fill(sQ, sT, tab, Q, K, tid);
  if (tid == 0)
    for (int i = 0; i < 4; ++i) {
      ptx::mbar_init(&full[i], 128);
      ptx::mbar_init(&empty[i], 1);
    }
  ptx::fence_proxy_async();
  __syncthreads();

  if (wg == 2) {  // ---------------- producer
    ptx::setmaxnreg_dec<96>();
    for (int i = 0; i < 4; ++i) ptx::mbar_arrive(&full[i]);  // both tiles start full
    // this thread's 16-byte code chunks, as the heads-major kernel's converter: candidate
    // cr, dims 16 (dq + 2 i); chunks i < 8 are the L half (dims < 256)
    const int cr = (t & 7) + 8 * ((t >> 3) & 7);
    const int dq = t >> 6;
    const uint8_t* const mine = codes + size_t(blockIdx.x) * 64 * 512 + cr * 512;
    for (int j = 2; j < nblocks; ++j) {
      const int b = j % 2;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        uint4 x[8];
        if (kStores) {
#pragma unroll
          for (int i = 0; i < 8; ++i) x[i] = ldg16(mine + 16 * (dq + 2 * (i + 8 * h)));
        }
        if (!mbar_wait_bounded(&empty[2 * h + b], ((j - 2) / 2) & 1, kLimit, err)) return;
        if (kStores) {
          uint8_t* const tile = sT + b * kM9Tile;
#pragma unroll
          for (int i = 0; i < 8; ++i) {
            const int d = 16 * (dq + 2 * (i + 8 * h));
            uint4 lo, hi;
            sm90::e4m3x16_to_f16(x[i], lo, hi);
            *reinterpret_cast<uint4*>(tile + sm90::core_offset<64>(cr, d)) = lo;
            *reinterpret_cast<uint4*>(tile + sm90::core_offset<64>(cr, d + 8)) = hi;
          }
          ptx::fence_proxy_async();
        }
        ptx::mbar_arrive(&full[2 * h + b]);
      }
    }
    return;
  }
  float* const o_out = out_o + size_t(blockIdx.x) * 64 * 512;
  const uint64_t v0 = ptx::smem_desc(sT + sm90::core_offset<64>(0, 256 * wg), 128, 1024);
  auto v_off = [](int kk, int t2) { return uint64_t((sm90::core_offset<64>(16 * kk, 128 * t2)) >> 4); };
  auto v_desc = [&](int b) { return v0 + uint64_t((b * kM9Tile) >> 4); };

  constexpr bool kHorner = kMode == 1 || kMode == 2;
  if (kMode == 4) {  // the producer alone: the consumers take each half as soon as it is full
    const long long t0 = clock64();
    for (int j = 0; j < nblocks; ++j) {
      const int b = j % 2, h = wg;  // WG0 the L halves, WG1 the R halves
      if (!mbar_wait_bounded(&full[2 * h + b], (j / 2) & 1, kLimit, err)) return;
      if (t == 0) ptx::mbar_arrive(&empty[2 * h + b]);
    }
    if (wg == 0 && t == 0) cycles[blockIdx.x] = clock64() - t0;
    return;
  }
  if (wg == 0) {  // ---------------- WG0: scores, softmax, O dims 0-255
    ptx::setmaxnreg_inc<232>();
    float acc[32], acc2[32], o[2][64];
    uint32_t u[2][4][4];  // U of the previous block; zero before the first (adds nothing)
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
      for (int kk = 0; kk < 4; ++kk)
#pragma unroll
        for (int i = 0; i < 4; ++i) u[t2][kk][i] = 0u;
    sm90::zero_acc(o);
    long long t0 = clock64();
    const float sc = tab[3 * 64];  // a runtime 1 (the table's g of candidate 0)
    for (int j = 0; j < nblocks; ++j) {
      const int b = j % 2;
      const float* const tb = tab + b * 4 * 64;
      uint8_t* const tile = sT + b * kM9Tile;
      if (!mbar_wait_bounded(&full[b], (j / 2) & 1, kLimit, err)) return;  // L half of j
      const uint64_t vp = v_desc(b ^ 1);  // the previous block's tile
      ptx::wgmma_fence();
#pragma unroll
      for (int gi = 0; gi < 2; ++gi) {  // groups 0 and 1, each followed by a PV_L tile of j - 1
#pragma unroll
        for (int s = 8 * gi; s < 8 * gi + 8; ++s)
          Ss<64>::mma(acc, kstep_desc<64>(sQ, s), kstep_desc<64>(tile, s), s > 0);
        ptx::wgmma_commit();
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) sm90::HmWgmma::values(o[gi], u[gi][kk], vp + v_off(kk, gi));
        ptx::wgmma_commit();
        if (kHorner) {
          ptx::wgmma_wait<1>();
          ptx::fence_regs(acc);
          m9_horner_step(acc, tb + 64 * gi, q4);
          ptx::wgmma_fence();
        }
      }
      if (!mbar_wait_bounded(&full[2 + b], (j / 2) & 1, kLimit, err)) return;  // R half of j
#pragma unroll
      for (int s = 16; s < 24; ++s) {
        if (kMode == 3)  // groups 2-3 into a second accumulator, combined after one wait
          Ss<64>::mma(acc2, kstep_desc<64>(sQ, s), kstep_desc<64>(tile, s), s > 16);
        else
          Ss<64>::mma(acc, kstep_desc<64>(sQ, s), kstep_desc<64>(tile, s), 1);
      }
      ptx::wgmma_commit();
      if (kHorner) {
        ptx::wgmma_wait<1>();  // the previous block's value MMAs: its L half is free
        if (j > 0 && t == 0) ptx::mbar_arrive(&empty[b ^ 1]);
        ptx::wgmma_wait<0>();
        ptx::fence_regs(acc);
        m9_horner_step(acc, tb + 128, q4);
        ptx::wgmma_fence();
      }
#pragma unroll
      for (int s = 24; s < 32; ++s) Ss<64>::mma(kMode == 3 ? acc2 : acc, kstep_desc<64>(sQ, s), kstep_desc<64>(tile, s), 1);
      ptx::wgmma_commit();
      ptx::wgmma_wait<0>();
      ptx::fence_regs(acc);
      if (kMode == 3) {  // acc = acc x r + acc2 (r = 1: exact)
        ptx::fence_regs(acc2);
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          const float2 r = *reinterpret_cast<const float2*>(tb + 8 * i + 2 * q4);
          acc[4 * i] = fmaf(acc[4 * i], r.x, acc2[4 * i]);
          acc[4 * i + 1] = fmaf(acc[4 * i + 1], r.y, acc2[4 * i + 1]);
          acc[4 * i + 2] = fmaf(acc[4 * i + 2], r.x, acc2[4 * i + 2]);
          acc[4 * i + 3] = fmaf(acc[4 * i + 3], r.y, acc2[4 * i + 3]);
        }
      }
      ptx::fence_regs(o[0]);
      ptx::fence_regs(o[1]);
      if (!kHorner && j > 0 && t == 0) ptx::mbar_arrive(&empty[b ^ 1]);
      // QK(j) done: WG1 may take P'(j - 1) (its value MMAs then run under this softmax)
      if (j > 0) {
        if (b == 1) nb_arrive<1>(); else nb_arrive<2>();
      }
      // a softmax-sized chain: x = acc * scale, the row maxima (quad shuffles), 2^(x - m),
      // the sums; P' = fp16(p * 0 + 1) (ones: O stays exact)
      float p[32];
      float mx[2] = {-INFINITY, -INFINITY}, sum[2] = {0.0f, 0.0f};
      if (kMode == 2) {  // no softmax chain: P' from the scores directly (ablation)
#pragma unroll
        for (int e = 0; e < 32; ++e) p[e] = acc[e];
      } else {
#pragma unroll
        for (int e = 0; e < 32; ++e) mx[(e / 2) % 2] = fmaxf(mx[(e / 2) % 2], acc[e] * sc);
#pragma unroll
        for (int hi = 0; hi < 2; ++hi) {
          mx[hi] = fmaxf(mx[hi], __shfl_xor_sync(~0u, mx[hi], 1));
          mx[hi] = fmaxf(mx[hi], __shfl_xor_sync(~0u, mx[hi], 2));
        }
#pragma unroll
        for (int e = 0; e < 32; ++e) {
          p[e] = ptx::exp2_approx(fminf(acc[e] * sc - mx[(e / 2) % 2], 0.0f));
          sum[(e / 2) % 2] += p[e];
        }
      }
      // P'(j) into its buffer once WG1 has read the one two blocks back
      if (b == 0) nb_sync<3>(); else nb_sync<4>();
      __half* const pb = reinterpret_cast<__half*>(sP + b * kM9PBytes);
      uint32_t pp[16];
#pragma unroll
      for (int i = 0; i < 16; ++i) {
        pp[i] = sm90::pack_f16x2(fmaf(p[2 * i], 0.0f, 1.0f + 0.0f * sum[i % 2]), fmaf(p[2 * i + 1], 0.0f, 1.0f));
        const int e = 2 * i, row = 16 * w + g + 8 * ((e / 2) % 2), col = 8 * (e / 4) + 2 * q4;
        *reinterpret_cast<uint32_t*>(pb + row * kM9PRow + col) = pp[i];
      }
      // U_0, U_1 of this block for the next one's interleaved value MMAs: A fragment kk
      // = candidates 16 kk .. 16 kk + 15 = accumulator pairs 8 kk .. 8 kk + 7
      const float* const tg = tb + 192;
      const uint32_t g01 = sm90::pack_f16x2(tg[0], tg[1]);
#pragma unroll
      for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
        for (int kk = 0; kk < 4; ++kk)
#pragma unroll
          for (int i = 0; i < 4; ++i) u[t2][kk][i] = hmul2_u32(pp[4 * kk + i], g01);
      if (j == nblocks - 1 && blockIdx.x == 0) {
#pragma unroll
        for (int e = 0; e < 32; ++e) {
          int row, col;
          frag_rc(t, e, row, col);
          out_acc[row * 64 + col] = acc[e];
        }
      }
    }
    if ((nblocks - 1) % 2 == 0) nb_arrive<1>(); else nb_arrive<2>();  // the last P'
    // the last block's value MMAs
    ptx::wgmma_fence();
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) sm90::HmWgmma::values(o[t2], u[t2][kk], v_desc((nblocks - 1) % 2) + v_off(kk, t2));
    ptx::wgmma_commit();
    ptx::wgmma_wait<0>();
    ptx::fence_regs(o[0]);
    ptx::fence_regs(o[1]);
    if (t == 0) cycles[blockIdx.x] = clock64() - t0;
    m9_store_o(o, o_out, t);  // dims 0-255
    return;
  }
  // ---------------- WG1: O dims 256-511
  ptx::setmaxnreg_inc<176>();
  float o[2][64];
  sm90::zero_acc(o);
  nb_arrive<3>();
  nb_arrive<4>();
  for (int j = 0; j < nblocks; ++j) {
    const int b = j % 2;
    const float* const tg = tab + b * 4 * 64 + 192;
    if (b == 0) nb_sync<1>(); else nb_sync<2>();
    const __half* const pb = reinterpret_cast<const __half*>(sP + b * kM9PBytes);
    uint32_t pa[4][4];
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int row = 16 * w + g + 8 * (i % 2), col = 16 * kk + 8 * (i / 2) + 2 * q4;
        pa[kk][i] = *reinterpret_cast<const uint32_t*>(pb + row * kM9PRow + col);
      }
    if (b == 0) nb_arrive<3>(); else nb_arrive<4>();
    const uint32_t g23 = sm90::pack_f16x2(tg[2], tg[3]);
    uint32_t a[2][4][4];
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
      for (int kk = 0; kk < 4; ++kk)
#pragma unroll
        for (int i = 0; i < 4; ++i) a[t2][kk][i] = hmul2_u32(pa[kk][i], g23);
    ptx::wgmma_fence();
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) sm90::HmWgmma::values(o[t2], a[t2][kk], v_desc(b) + v_off(kk, t2));
    ptx::wgmma_commit();
    ptx::wgmma_wait<0>();
    ptx::fence_regs(o[0]);
    ptx::fence_regs(o[1]);
    if (t == 0) ptx::mbar_arrive(&empty[2 + b]);
  }
  m9_store_o(o, o_out + 256, t);  // dims 256-511
}

template <int kMode, bool kStores>
static double m9_case(const __half* dQ, const __half* dK, const uint8_t* dcodes, const std::vector<float>& fQ,
                      const std::vector<float>& fK, int* derr) {
  const int blocks = g_sms, nblocks = 512;
  float *dacc, *dO;
  long long* cyc;
  CK(cudaMalloc(&dacc, 64 * 64 * 4));
  CK(cudaMalloc(&dO, size_t(blocks) * 64 * 512 * 4));
  CK(cudaMalloc(&cyc, blocks * 8));
  CK(cudaMemset(derr, 0, 4));
  auto k = m9_kernel<kMode, kStores>;
  const int smem = M9Smem::kBytes;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const double us = time_us([&] { k<<<blocks, 384, smem>>>(dQ, dK, dcodes, nblocks, dacc, dO, cyc, derr); }, 5, 1);
  int herr = 0;
  CK(cudaMemcpy(&herr, derr, 4, cudaMemcpyDeviceToHost));
  const int bad = kMode == 4 ? 0 : m9_wrong(dacc, dO, blocks, nblocks, fQ, fK);
  const double per_block = m9_cycles_per_block(cyc, blocks, nblocks);
  const char* name = kStores ? "m10" : "m9";
  if (herr) FAILF("%s mode %d: a barrier wait timed out", name, kMode);
  if (bad) FAILF("%s mode %d: %d wrong results", name, kMode, bad);
  const char* const modes[5] = {"one wait", "Horner, 3 waits + 3 x 32 FMUL", "Horner, no softmax chain (ablation)",
                                "two accumulators, one wait + 32 FFMA", "no consumer work (the producer alone)"};
  std::printf("RESULT %s %s%s: %.0f cycles per block (WG0 chain, median CTA), %.2f us per block-wave, "
              "tensor %.0f%% of peak (2048 cycles per block)%s\n",
              name, modes[kMode], kStores ? ", producer cvt + STS 2 x 32 KB/block" : "",
              per_block, us / nblocks, 100.0 * 2048.0 / per_block, (bad || herr) ? " INVALID" : "");
  CK(cudaFree(dacc));
  CK(cudaFree(dO));
  CK(cudaFree(cyc));
  return per_block;
}

static void run_m9(bool stores) {
  std::printf("== %s: the Horner block loop (WG0 scores + O left, WG1 O right, WG2 %s)\n", stores ? "M10" : "M9",
              stores ? "converts and stores the next tile" : "hands tiles back");
  std::vector<float> fQ, fK;
  const std::vector<__half> hQ = small_ints(64 * 512, 31, fQ);
  const std::vector<__half> hK = small_ints(64 * 512, 700000, fK);
  // the same values as e4m3 codes (-1, 0, 1), one copy per CTA (a shared 32 KB would sit in
  // a few L2 slices that every SM hammers)
  std::vector<uint8_t> hcodes(size_t(g_sms) * 64 * 512);
  for (size_t i = 0; i < hcodes.size(); ++i) {
    const float v = fK[i % (64 * 512)];
    hcodes[i] = v == 0.0f ? 0x00 : (v > 0 ? 0x38 : 0xB8);
  }
  __half *dQ, *dK;
  uint8_t* dcodes;
  int* derr;
  CK(cudaMalloc(&dQ, hQ.size() * 2));
  CK(cudaMalloc(&dK, hK.size() * 2));
  CK(cudaMalloc(&dcodes, hcodes.size()));
  CK(cudaMalloc(&derr, 4));
  CK(cudaMemcpy(dQ, hQ.data(), hQ.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dK, hK.data(), hK.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dcodes, hcodes.data(), hcodes.size(), cudaMemcpyHostToDevice));
  if (stores) {
    const double h = m9_case<1, true>(dQ, dK, dcodes, fQ, fK, derr);
    const double one = m9_case<0, true>(dQ, dK, dcodes, fQ, fK, derr);
    m9_case<3, true>(dQ, dK, dcodes, fQ, fK, derr);
    m9_case<4, true>(dQ, dK, dcodes, fQ, fK, derr);
    std::printf("RESULT m10 verdict: %.0f cycles per block (pass <= 2700, kill > 3300); Horner / one wait %.3f\n", h, h / one);
  } else {
    const double h = m9_case<1, false>(dQ, dK, dcodes, fQ, fK, derr);
    const double one = m9_case<0, false>(dQ, dK, dcodes, fQ, fK, derr);
    m9_case<2, false>(dQ, dK, dcodes, fQ, fK, derr);
    m9_case<3, false>(dQ, dK, dcodes, fQ, fK, derr);
    std::printf("RESULT m9 verdict: %.0f cycles per block (pass <= 2350, kill > 2600); Horner / one wait %.3f (pass <= 1.10)\n",
                h, h / one);
  }
  CK(cudaFree(dQ));
  CK(cudaFree(dK));
  CK(cudaFree(dcodes));
  CK(cudaFree(derr));
}
