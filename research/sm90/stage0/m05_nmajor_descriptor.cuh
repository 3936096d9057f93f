// M5: wgmma with B N-major: which descriptor field takes which core stride.
#pragma once

#include "harness.cuh"

// ============================================================================ M5
// D[64][32] = A[64][64] . B[64][32], A from registers (the mma.sync A fragment per warp),
// B (K = 64 x N = 32) N-major in shared memory: 8x8 core matrices of 8 k-rows x 16 bytes
// (8 n). Core order 0: core (kb, nb) at (kb * 4 + nb) * 128 (N-direction stride 128 B,
// K-direction 512 B); order 1: at (nb * 8 + kb) * 128 (K 128 B, N 1024 B). Four k-steps.
constexpr int kM5K = 64, kM5N = 32;
__device__ __forceinline__ int m5_off(int k, int n, int order) {
  const int kb = k / 8, nb = n / 8;
  const int core = order == 0 ? kb * (kM5N / 8) + nb : nb * (kM5K / 8) + kb;
  return core * 64 + (k % 8) * 8 + (n % 8);  // in halves
}
__global__ void __launch_bounds__(128, 1)
    m5_wgmma_nmajor(const __half* A, const __half* B, int order, uint32_t lbo, uint32_t sbo, float* D) {
  __shared__ __align__(128) __half sB[kM5K * kM5N];
  const int tid = threadIdx.x;
  for (int i = tid; i < kM5K * kM5N; i += 128) sB[m5_off(i / kM5N, i % kM5N, order)] = B[i];
  ptx::fence_proxy_async();
  __syncthreads();
  const int w = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  const int r0 = 16 * w + g, r1 = r0 + 8;
  float d[16];
#pragma unroll
  for (int i = 0; i < 16; ++i) d[i] = 0.f;
  auto pk = [&](int r, int k) {
    const __half2 h = __halves2half2(A[r * kM5K + k], A[r * kM5K + k + 1]);
    return *reinterpret_cast<const uint32_t*>(&h);
  };
  ptx::wgmma_fence();
#pragma unroll
  for (int s = 0; s < kM5K / 16; ++s) {
    const uint32_t a[4] = {pk(r0, 16 * s + 2 * t), pk(r1, 16 * s + 2 * t), pk(r0, 16 * s + 2 * t + 8),
                           pk(r1, 16 * s + 2 * t + 8)};
    // the k-step's first core: k = 16 s
    const uint64_t db = ptx::smem_desc(sB + m5_off(16 * s, 0, order), lbo, sbo);
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,"
        "%11,%12,%13,%14,%15}, {%16,%17,%18,%19}, %20, 1, 1, 1, 1;"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]),
          "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
  }
  ptx::wgmma_commit();
  ptx::wgmma_wait<0>();
#pragma unroll
  for (int j = 0; j < kM5N / 8; ++j) {
    D[r0 * kM5N + 8 * j + 2 * t] = d[4 * j + 0];
    D[r0 * kM5N + 8 * j + 2 * t + 1] = d[4 * j + 1];
    D[r1 * kM5N + 8 * j + 2 * t] = d[4 * j + 2];
    D[r1 * kM5N + 8 * j + 2 * t + 1] = d[4 * j + 3];
  }
}

static void run_m5() {
  std::printf("== M5: wgmma m64n32k16, B N-major (trans-b = 1), no swizzle: descriptor fields\n");
  std::vector<__half> hA(64 * kM5K), hB(kM5K * kM5N);
  std::vector<float> fA(hA.size()), fB(hB.size());
  for (size_t i = 0; i < hA.size(); ++i) fA[i] = float(int(hash32(i + 7) % 5) - 2);
  for (size_t i = 0; i < hB.size(); ++i) fB[i] = float(int(hash32(i + 300000) % 5) - 2);
  for (size_t i = 0; i < hA.size(); ++i) hA[i] = __float2half(fA[i]);
  for (size_t i = 0; i < hB.size(); ++i) hB[i] = __float2half(fB[i]);
  std::vector<double> ref(64 * kM5N, 0.0);
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < kM5N; ++n)
      for (int k = 0; k < kM5K; ++k) ref[m * kM5N + n] += fA[m * kM5K + k] * fB[k * kM5N + n];
  __half *dA, *dB;
  float* dD;
  CK(cudaMalloc(&dA, hA.size() * 2));
  CK(cudaMalloc(&dB, hB.size() * 2));
  CK(cudaMalloc(&dD, 64 * kM5N * 4));
  CK(cudaMemcpy(dA, hA.data(), hA.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dB, hB.data(), hB.size() * 2, cudaMemcpyHostToDevice));
  int verified = 0;
  for (int order = 0; order < 2; ++order) {
    const uint32_t kstride = order == 0 ? (kM5N / 8) * 128 : 128;
    const uint32_t nstride = order == 0 ? 128 : (kM5K / 8) * 128;
    for (int swap = 0; swap < 2; ++swap) {
      const uint32_t lbo = swap ? nstride : kstride, sbo = swap ? kstride : nstride;
      CK(cudaMemset(dD, 0, 64 * kM5N * 4));
      m5_wgmma_nmajor<<<1, 128>>>(dA, dB, order, lbo, sbo, dD);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      std::vector<float> h(64 * kM5N);
      CK(cudaMemcpy(h.data(), dD, h.size() * 4, cudaMemcpyDeviceToHost));
      int bad = 0;
      for (size_t i = 0; i < h.size(); ++i) bad += h[i] != float(ref[i]);
      verified += bad == 0;
      std::printf("RESULT m5 N-major B, core order %d (K stride %u B, N stride %u B), LBO=%u SBO=%u: %s\n",
                  order, kstride, nstride, lbo, sbo, bad ? "wrong product" : "verified");
    }
  }
  if (!verified) FAILF("m5: no descriptor assignment gave the right product for an N-major B");
  CK(cudaFree(dA));
  CK(cudaFree(dB));
  CK(cudaFree(dD));
}
