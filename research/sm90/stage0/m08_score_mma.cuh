// M8: score MMAs m64n64k16 / n32 SS by one or both consumer warpgroups.
#pragma once

#include "harness.cuh"
#include "ss_wgmma.cuh"

// ---------------------------------------------------------------------------- M8
// The score MMA of the next design: per block, each consumer warpgroup runs 16 k-steps of
// m64nNk16 SS over 256 dims, q̂ (64 heads x 256, shared by the warpgroups) as A and its
// own candidates x 256 tile as B, k-steps 0-7 into accumulator 0 and 8-15 into 1 (one
// per 128-dim scale tile), then waits. N = 64 (the design) or 32 (today's shape).
constexpr int kM8Dims = 256, kM8Steps = kM8Dims / 16;
template <int N, int NWG>
__global__ void __launch_bounds__(NWG * 128, 1)
    m8_score(const __half* A, const __half* B, int iters, float* D, long long* cycles) {
  extern __shared__ __align__(128) uint8_t smem[];
  uint8_t* sA = smem;                      // 64 x 256 fp16, 32 KB
  uint8_t* sB = smem + 64 * kM8Dims * 2;  // NWG x (N x 256 fp16)
  const int tid = threadIdx.x, wg = tid / 128;
  to_cores<64>(sA, A, kM8Dims, tid, NWG * 128);
  for (int w = 0; w < NWG; ++w)
    to_cores<N>(sB + w * N * kM8Dims * 2, B + size_t(w) * N * kM8Dims, kM8Dims, tid, NWG * 128);
  ptx::fence_proxy_async();
  __syncthreads();
  const uint8_t* myB = sB + wg * N * kM8Dims * 2;
  float acc[2][N / 2];
  const long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
    ptx::wgmma_fence();
#pragma unroll
    for (int s = 0; s < kM8Steps; ++s)
      Ss<N>::mma(acc[s / 8], kstep_desc<64>(sA, s), kstep_desc<N>(myB, s), s % 8);
    ptx::wgmma_commit();
    ptx::wgmma_wait<0>();
    ptx::fence_regs(acc[0]);
    ptx::fence_regs(acc[1]);
  }
  __syncthreads();
  if (tid == 0) cycles[blockIdx.x] = clock64() - t0;
  float* out = D + (size_t(blockIdx.x) * NWG + wg) * 2 * 64 * N;
#pragma unroll
  for (int a = 0; a < 2; ++a)
#pragma unroll
    for (int e = 0; e < N / 2; ++e) {
      int row, col;
      frag_rc(tid % 128, e, row, col);
      out[(a * 64 + row) * N + col] = acc[a][e];
    }
}

template <int N, int NWG>
static void m8_case(const __half* dA, const __half* dB, const std::vector<float>& fA,
                    const std::vector<float>& fB) {
  const int blocks = g_sms, iters = 4000;
  const size_t smem = size_t(64 + NWG * N) * kM8Dims * 2;
  const size_t dn = size_t(blocks) * NWG * 2 * 64 * N;
  float* dD;
  long long* cyc;
  CK(cudaMalloc(&dD, dn * 4));
  CK(cudaMalloc(&cyc, blocks * 8));
  auto k = m8_score<N, NWG>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  const double us = time_us([&] { k<<<blocks, NWG * 128, smem>>>(dA, dB, iters, dD, cyc); }, 5, 1);
  std::vector<float> h(dn);
  CK(cudaMemcpy(h.data(), dD, dn * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (size_t i = 0; i < dn; ++i) {  // D[a][m][n] = sum over dims 128 a .. 128 a + 127
    const int n = i % N, m = (i / N) % 64, a = (i / (64 * N)) % 2, w = (i / (2 * 64 * N)) % NWG;
    double r = 0;
    for (int kk = 128 * a; kk < 128 * a + 128; ++kk)
      r += fA[m * kM8Dims + kk] * fB[(size_t(w) * N + n) * kM8Dims + kk];
    bad += h[i] != float(r);
  }
  std::vector<long long> hc(blocks);
  CK(cudaMemcpy(hc.data(), cyc, blocks * 8, cudaMemcpyDeviceToHost));
  const double cycles = median(std::vector<double>(hc.begin(), hc.end()));
  const double flop_cta = 2.0 * 64 * N * kM8Dims * double(iters) * NWG;
  if (bad) FAILF("m8 m64n%dk16 SS WG=%d: %d of %zu scores wrong", N, NWG, bad, dn);
  std::printf(
      "RESULT m8 score m64n%dk16 SS (A 64 x 256 shared, B own %d x 256) WG/CTA=%d: %.0f cycles "
      "per block (of %d k-steps per WG), %.1f us, %.0f TFLOP/s chip, %.0f FLOP/clk/SM = %.1f%% "
      "of dense fp16 (4096)%s\n",
      N, N, NWG, cycles / iters, kM8Steps, us, flop_cta * blocks / (us * 1e-6) / 1e12,
      flop_cta / cycles, 100.0 * flop_cta / cycles / 4096.0, bad ? " INVALID" : "");
  CK(cudaFree(dD));
  CK(cudaFree(cyc));
}

static void run_m8() {
  std::printf("== M8: score MMAs m64nNk16 SS over 256 dims per block, 1 or 2 warpgroups issuing\n");
  std::vector<float> fA, fB;
  const std::vector<__half> hA = small_ints(64 * kM8Dims, 11, fA);
  const std::vector<__half> hB = small_ints(2 * 64 * kM8Dims, 500000, fB);  // 2 WGs x up to 64
  __half *dA, *dB;
  CK(cudaMalloc(&dA, hA.size() * 2));
  CK(cudaMalloc(&dB, hB.size() * 2));
  CK(cudaMemcpy(dA, hA.data(), hA.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dB, hB.data(), hB.size() * 2, cudaMemcpyHostToDevice));
  // WG w's B starts at w x N rows: fB[(w N + n) 256 + k] for either N.
  m8_case<32, 1>(dA, dB, fA, fB);
  m8_case<32, 2>(dA, dB, fA, fB);
  m8_case<64, 1>(dA, dB, fA, fB);
  m8_case<64, 2>(dA, dB, fA, fB);
  CK(cudaFree(dA));
  CK(cudaFree(dB));
}
