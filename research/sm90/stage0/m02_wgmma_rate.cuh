// M2: wgmma m64nNk16 rates (N = 8 / 16 / 32, RS or SS, 1 or 2 warpgroups) against mma.sync.
#pragma once

#include "harness.cuh"

// ============================================================================ M2
// Operands in shared memory, K-major, no swizzle: 8x8 fp16 core matrices of 128 contiguous
// bytes; core (row block rb, k block kb) at ((rb * 2) + kb) * 128 bytes. The K-direction
// core stride is 128 B and the row-direction one 256 B; which descriptor field (LBO / SBO)
// takes which is passed at run time and the host keeps the assignment that verifies.
__device__ __forceinline__ int core_off(int row, int k) {
  return ((row >> 3) * 2 + (k >> 3)) * 64 + (row & 7) * 8 + (k & 7);
}

template <int N>
struct Wg;
template <>
struct Wg<8> {
  __device__ __forceinline__ static void rs(float (&d)[4], const uint32_t (&a)[4], uint64_t b) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, {%4,%5,%6,%7}, %8, 1, 1, "
        "1, 0;"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
  }
  __device__ __forceinline__ static void ss(float (&d)[4], uint64_t a, uint64_t b) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, %4, %5, 1, 1, 1, 0, 0;"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "l"(a), "l"(b));
  }
};
template <>
struct Wg<16> {
  __device__ __forceinline__ static void rs(float (&d)[8], const uint32_t (&a)[4], uint64_t b) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7}, "
        "{%8,%9,%10,%11}, %12, 1, 1, 1, 0;"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
  }
  __device__ __forceinline__ static void ss(float (&d)[8], uint64_t a, uint64_t b) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, "
        "1, 1, 1, 0, 0;"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7])
        : "l"(a), "l"(b));
  }
};
template <>
struct Wg<32> {
  __device__ __forceinline__ static void rs(float (&d)[16], const uint32_t (&a)[4], uint64_t b) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,"
        "%11,%12,%13,%14,%15}, {%16,%17,%18,%19}, %20, 1, 1, 1, 0;"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]),
          "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b));
  }
  __device__ __forceinline__ static void ss(float (&d)[16], uint64_t a, uint64_t b) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,"
        "%11,%12,%13,%14,%15}, %16, %17, 1, 1, 1, 0, 0;"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]),
          "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
        : "l"(a), "l"(b));
  }
};

constexpr int kWgChain = 32;  // wgmmas per commit group (one 512-dim QK^T row of k16 steps)
// A[64][16], B[N][16] row-major fp16 in global; D = iters * kWgChain * A . B^T per warpgroup.
template <int N, bool RS, int NWG>
__global__ void __launch_bounds__(NWG * 128, 1)
    m2_wgmma(const __half* A, const __half* B, int iters, uint32_t lbo, uint32_t sbo, float* D,
             long long* cycles) {
  __shared__ __align__(128) __half sA[64 * 16];
  __shared__ __align__(128) __half sB[N * 16];
  const int tid = threadIdx.x;
  for (int i = tid; i < 64 * 16; i += blockDim.x) sA[core_off(i / 16, i % 16)] = A[i];
  for (int i = tid; i < N * 16; i += blockDim.x) sB[core_off(i / 16, i % 16)] = B[i];
  ptx::fence_proxy_async();
  __syncthreads();
  const int wg = tid / 128, w = (tid / 32) % 4, lane = tid % 32, g = lane / 4, t = lane % 4;
  const int r0 = 16 * w + g, r1 = r0 + 8;
  uint32_t a[4];
  {
    auto pk = [&](int r, int k) {
      const __half2 h = __halves2half2(A[r * 16 + k], A[r * 16 + k + 1]);
      return *reinterpret_cast<const uint32_t*>(&h);
    };
    a[0] = pk(r0, 2 * t);
    a[1] = pk(r1, 2 * t);
    a[2] = pk(r0, 2 * t + 8);
    a[3] = pk(r1, 2 * t + 8);
  }
  const uint64_t da = ptx::smem_desc(sA, lbo, sbo), db = ptx::smem_desc(sB, lbo, sbo);
  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
  __syncthreads();
  const long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
    ptx::wgmma_fence();
#pragma unroll
    for (int u = 0; u < kWgChain; ++u) {
      if constexpr (RS) Wg<N>::rs(d, a, db);
      else Wg<N>::ss(d, da, db);
    }
    ptx::wgmma_commit();
    ptx::wgmma_wait<0>();
  }
  __syncthreads();
  if (tid == 0) cycles[blockIdx.x] = clock64() - t0;
  float* out = D + (size_t(blockIdx.x) * NWG + wg) * 64 * N;
#pragma unroll
  for (int j = 0; j < N / 8; ++j) {
    out[r0 * N + 8 * j + 2 * t] = d[4 * j + 0];
    out[r0 * N + 8 * j + 2 * t + 1] = d[4 * j + 1];
    out[r1 * N + 8 * j + 2 * t] = d[4 * j + 2];
    out[r1 * N + 8 * j + 2 * t + 1] = d[4 * j + 3];
  }
}

// mma.sync m16n8k16 baseline: each warp runs 4 independent accumulator chains.
__global__ void __launch_bounds__(256, 1)
    m2_mma_sync(const uint32_t* frag, int iters, float* D, long long* cycles) {
  uint32_t a[4] = {frag[0], frag[1], frag[2], frag[3]}, b0 = frag[4], b1 = frag[5];
  float d[4][4] = {};
  __syncthreads();
  const long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int u = 0; u < 8; ++u) {
#pragma unroll
      for (int c = 0; c < 4; ++c)
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
            "{%8,%9}, {%0,%1,%2,%3};"
            : "+f"(d[c][0]), "+f"(d[c][1]), "+f"(d[c][2]), "+f"(d[c][3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) cycles[blockIdx.x] = clock64() - t0;
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
  for (int c = 0; c < 4; ++c)
#pragma unroll
    for (int i = 0; i < 4; ++i) D[(size_t(gid) * 4 + c) * 4 + i] = d[c][i];
}

template <int N, bool RS, int NWG>
static void m2_case(const std::vector<__half>& hA, const std::vector<__half>& hB,
                    const std::vector<double>& ref /*64 x 32*/, __half* dA, __half* dB) {
  const int blocks = g_sms;
  float* dD;
  long long* cyc;
  const size_t dn = size_t(blocks) * NWG * 64 * N;
  CK(cudaMalloc(&dD, dn * 4));
  CK(cudaMalloc(&cyc, blocks * 8));
  auto k = m2_wgmma<N, RS, NWG>;
  auto verify = [&](int iters) {
    std::vector<float> h(dn);
    CK(cudaMemcpy(h.data(), dD, dn * 4, cudaMemcpyDeviceToHost));
    const double mult = double(iters) * kWgChain;
    for (size_t i = 0; i < dn; ++i) {
      const int m = (i / N) % 64, n = i % N;
      if (h[i] != float(mult * ref[m * 32 + n])) return false;
    }
    return true;
  };
  // Find the descriptor field assignment that gives the right product (short run).
  uint32_t lbo = 128, sbo = 256;
  bool ok = false;
  for (int attempt = 0; attempt < 2 && !ok; ++attempt) {
    if (attempt == 1) std::swap(lbo, sbo);
    CK(cudaMemset(dD, 0, dn * 4));
    k<<<blocks, NWG * 128>>>(dA, dB, 2, lbo, sbo, dD, cyc);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    ok = verify(2);
  }
  const int iters = 2000;
  const double us = time_us([&] { k<<<blocks, NWG * 128>>>(dA, dB, iters, lbo, sbo, dD, cyc); }, 5, 1);
  const bool ok2 = ok && verify(iters);
  std::vector<long long> hc(blocks);
  CK(cudaMemcpy(hc.data(), cyc, blocks * 8, cudaMemcpyDeviceToHost));
  const double cycles = median(std::vector<double>(hc.begin(), hc.end()));
  const double flop_cta = 2.0 * 64 * N * 16 * kWgChain * double(iters) * NWG;
  if (!ok2) FAILF("m2 wgmma N=%d %s WG=%d: wrong product (both LBO/SBO assignments)", N, RS ? "RS" : "SS", NWG);
  std::printf(
      "RESULT m2 wgmma m64n%dk16 %s WG/CTA=%d: %.2f TFLOP/s per SM (%.0f TFLOP/s chip), %.0f "
      "FLOP/clk/SM, %.1f clk per wgmma per WG [desc LBO=%u SBO=%u]%s\n",
      N, RS ? "RS" : "SS", NWG, flop_cta / (us * 1e-6) / 1e12, flop_cta * blocks / (us * 1e-6) / 1e12,
      flop_cta / cycles, cycles / (double(iters) * kWgChain), lbo, sbo, ok2 ? "" : " INVALID");
  CK(cudaFree(dD));
  CK(cudaFree(cyc));
}

static void run_m2() {
  std::printf("== M2: wgmma m64nNk16 f32.f16.f16 (one CTA per SM), chains of %d per commit\n", kWgChain);
  std::vector<__half> hA(64 * 16), hB(32 * 16);
  std::vector<float> fA(64 * 16), fB(32 * 16);
  for (int i = 0; i < 64 * 16; ++i) fA[i] = float(int(hash32(i) % 3) - 1);  // -1, 0, 1
  for (int i = 0; i < 32 * 16; ++i) fB[i] = float(int(hash32(i + 100000) % 3) - 1);
  for (int i = 0; i < 64 * 16; ++i) hA[i] = __float2half(fA[i]);
  for (int i = 0; i < 32 * 16; ++i) hB[i] = __float2half(fB[i]);
  std::vector<double> ref(64 * 32);  // ref[m][n] = sum_k A[m][k] B[n][k]; B rows n < N used
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < 32; ++n) {
      double s = 0;
      for (int k = 0; k < 16; ++k) s += fA[m * 16 + k] * fB[n * 16 + k];
      ref[m * 32 + n] = s;
    }
  __half *dA, *dB;
  CK(cudaMalloc(&dA, hA.size() * 2));
  CK(cudaMalloc(&dB, hB.size() * 2));
  CK(cudaMemcpy(dA, hA.data(), hA.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dB, hB.data(), hB.size() * 2, cudaMemcpyHostToDevice));
  m2_case<8, true, 1>(hA, hB, ref, dA, dB);
  m2_case<8, false, 1>(hA, hB, ref, dA, dB);
  m2_case<16, true, 1>(hA, hB, ref, dA, dB);
  m2_case<16, false, 1>(hA, hB, ref, dA, dB);
  m2_case<32, true, 1>(hA, hB, ref, dA, dB);
  m2_case<32, false, 1>(hA, hB, ref, dA, dB);
  m2_case<8, true, 2>(hA, hB, ref, dA, dB);
  m2_case<8, false, 2>(hA, hB, ref, dA, dB);
  m2_case<16, true, 2>(hA, hB, ref, dA, dB);
  m2_case<16, false, 2>(hA, hB, ref, dA, dB);
  m2_case<32, true, 2>(hA, hB, ref, dA, dB);
  m2_case<32, false, 2>(hA, hB, ref, dA, dB);
  CK(cudaFree(dA));
  CK(cudaFree(dB));
  // mma.sync baseline: A = B = 1.0 -> each D element = 16 per MMA.
  {
    const int blocks = g_sms, threads = 256, iters = 4000;
    const __half2 one = __floats2half2_rn(1.f, 1.f);
    uint32_t u1 = *reinterpret_cast<const uint32_t*>(&one);
    std::vector<uint32_t> fr(6, u1);
    uint32_t* dfr;
    float* dD;
    long long* cyc;
    const size_t dn = size_t(blocks) * threads * 16;
    CK(cudaMalloc(&dfr, 24));
    CK(cudaMalloc(&dD, dn * 4));
    CK(cudaMalloc(&cyc, blocks * 8));
    CK(cudaMemcpy(dfr, fr.data(), 24, cudaMemcpyHostToDevice));
    const double us = time_us([&] { m2_mma_sync<<<blocks, threads>>>(dfr, iters, dD, cyc); }, 5, 1);
    std::vector<float> h(dn);
    CK(cudaMemcpy(h.data(), dD, dn * 4, cudaMemcpyDeviceToHost));
    const float want = 16.f * iters * 8;
    bool ok = true;
    for (size_t i = 0; i < dn; ++i) ok &= h[i] == want;
    if (!ok) FAILF("m2 mma.sync: wrong accumulators");
    std::vector<long long> hc(blocks);
    CK(cudaMemcpy(hc.data(), cyc, blocks * 8, cudaMemcpyDeviceToHost));
    const double cycles = median(std::vector<double>(hc.begin(), hc.end()));
    const double flop_cta = 4096.0 * 4 * 8 * iters * (threads / 32);
    std::printf(
        "RESULT m2 mma.sync m16n8k16 (8 warps/SM, 4 chains/warp): %.2f TFLOP/s per SM (%.0f "
        "chip), %.0f FLOP/clk/SM%s\n",
        flop_cta / (us * 1e-6) / 1e12, flop_cta * blocks / (us * 1e-6) / 1e12, flop_cta / cycles,
        ok ? "" : " INVALID");
    CK(cudaFree(dfr));
    CK(cudaFree(dD));
    CK(cudaFree(cyc));
  }
}
