// M1: e4m3 -> f16 conversion and ex2 throughput, alone and interleaved.
#pragma once

#include "harness.cuh"

// ============================================================================ M1
// Mode 0: cvt only, 1: ex2 only, 2: both interleaved (same per-thread counts as each alone).
constexpr int kM1Chains = 8;
__device__ __forceinline__ uint32_t cvt_e4m3x2(uint16_t codes) {
  uint32_t r;
  asm volatile("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(r) : "h"(codes));
  return r;
}
__device__ __forceinline__ float ex2a(float x) {
  float y;
  asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
template <int MODE>
__global__ void __launch_bounds__(1024, 1)
    m1_kernel(int iters, uint32_t* sink_cvt, float* sink_ex2, long long* cycles) {
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
  uint16_t c[kM1Chains];
  float f[kM1Chains];
#pragma unroll
  for (int k = 0; k < kM1Chains; ++k) {
    c[k] = static_cast<uint16_t>(hash32(gid * kM1Chains + k));
    f[k] = 0.25f + 0.01f * k;
  }
  __syncthreads();
  const long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int u = 0; u < 4; ++u) {
#pragma unroll
      for (int k = 0; k < kM1Chains; ++k) {
        if (MODE != 1) c[k] = static_cast<uint16_t>(cvt_e4m3x2(c[k]));
        if (MODE != 0) f[k] = ex2a(-f[k]);
      }
    }
  }
  __syncthreads();
  const long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
  uint32_t x = 0;
  float y = 0;
#pragma unroll
  for (int k = 0; k < kM1Chains; ++k) {
    x ^= static_cast<uint32_t>(c[k]) << (k & 1 ? 16 : 0);
    y += f[k];
  }
  sink_cvt[gid] = x;
  sink_ex2[gid] = y;
}
__global__ void m1_check_kernel(uint32_t* out) {  // every 16-bit pair of codes
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 65536) out[i] = cvt_e4m3x2(static_cast<uint16_t>(i));
}
__global__ void m1_check_ex2(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = ex2a(in[i]);
}

static std::vector<uint32_t> g_cvt_table;
static void run_m1() {
  std::printf("== M1: cvt.rn.f16x2.e4m3x2 and ex2.approx.f32 throughput\n");
  // Exactness of the conversion on all 65536 inputs.
  {
    uint32_t* d;
    CK(cudaMalloc(&d, 65536 * 4));
    m1_check_kernel<<<256, 256>>>(d);
    CK(cudaGetLastError());
    std::vector<uint32_t> h(65536);
    CK(cudaMemcpy(h.data(), d, 65536 * 4, cudaMemcpyDeviceToHost));
    int bad = 0;
    auto isnan16 = [](uint32_t b) { return (b & 0x7c00u) == 0x7c00u && (b & 0x3ffu); };
    for (int i = 0; i < 65536; ++i) {
      const uint32_t r = host_cvt(static_cast<uint16_t>(i));
      for (int half = 0; half < 2; ++half) {
        const uint32_t a = (h[i] >> (16 * half)) & 0xffff, b = (r >> (16 * half)) & 0xffff;
        bad += a != b && !(isnan16(a) && isnan16(b));
      }
    }
    g_cvt_table = h;  // the device's own results drive the chain simulation below
    if (bad) FAILF("m1 cvt: %d of 65536 inputs differ from __nv_cvt_fp8x2_to_halfraw2", bad);
    else std::printf("m1 cvt check: all 65536 inputs exact\n");
    CK(cudaFree(d));
    const int n = 1024;
    std::vector<float> in(n), out(n);
    for (int i = 0; i < n; ++i) in[i] = -20.0f + 40.0f * i / n;
    float *di, *dout;
    CK(cudaMalloc(&di, n * 4));
    CK(cudaMalloc(&dout, n * 4));
    CK(cudaMemcpy(di, in.data(), n * 4, cudaMemcpyHostToDevice));
    m1_check_ex2<<<4, 256>>>(di, dout, n);
    CK(cudaGetLastError());
    CK(cudaMemcpy(out.data(), dout, n * 4, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int i = 0; i < n; ++i) worst = std::max(worst, std::fabs(out[i] / std::exp2((double)in[i]) - 1));
    if (worst > 1e-5) FAILF("m1 ex2: rel err %.3g", worst);
    else std::printf("m1 ex2 check: max rel err %.2e\n", worst);
    CK(cudaFree(di));
    CK(cudaFree(dout));
  }
  const int threads = 1024, blocks = g_sms, iters = 2048;
  const double per_thread = double(iters) * 4 * kM1Chains;  // ops of each kind per thread
  uint32_t* sc;
  float* se;
  long long* cyc;
  CK(cudaMalloc(&sc, size_t(blocks) * threads * 4));
  CK(cudaMalloc(&se, size_t(blocks) * threads * 4));
  CK(cudaMalloc(&cyc, blocks * 8));
  double us[3], clk[3];
  for (int mode = 0; mode < 3; ++mode) {
    auto k = mode == 0 ? m1_kernel<0> : mode == 1 ? m1_kernel<1> : m1_kernel<2>;
    us[mode] = time_us([&] { k<<<blocks, threads>>>(iters, sc, se, cyc); }, 10);
    std::vector<long long> hc(blocks);
    CK(cudaMemcpy(hc.data(), cyc, blocks * 8, cudaMemcpyDeviceToHost));
    std::vector<double> v(hc.begin(), hc.end());
    clk[mode] = median(v);
    // Check the cvt chains of thread 0..31 of block 0 exactly (bit-level simulation).
    if (mode != 1) {
      std::vector<uint32_t> hs(32);
      CK(cudaMemcpy(hs.data(), sc, 32 * 4, cudaMemcpyDeviceToHost));
      int bad = 0;
      for (int t = 0; t < 32; ++t) {
        uint32_t x = 0;
        for (int kk = 0; kk < kM1Chains; ++kk) {
          uint16_t c = static_cast<uint16_t>(hash32(uint64_t(t) * kM1Chains + kk));
          for (int i = 0; i < iters * 4; ++i) c = static_cast<uint16_t>(g_cvt_table[c]);
          x ^= static_cast<uint32_t>(c) << (kk & 1 ? 16 : 0);
        }
        bad += x != hs[t];
      }
      if (bad) FAILF("m1 mode %d: %d of 32 cvt chains differ from the host simulation", mode, bad);
    }
    if (mode != 0) {
      std::vector<float> hs(32);
      CK(cudaMemcpy(hs.data(), se, 32 * 4, cudaMemcpyDeviceToHost));
      for (int t = 0; t < 32; ++t)
        if (!(hs[t] > 0 && hs[t] < 8 * kM1Chains)) {
          FAILF("m1 mode %d: ex2 chain value %g out of range", mode, hs[t]);
          break;
        }
    }
  }
  const char* name[3] = {"cvt_only", "ex2_only", "cvt+ex2"};
  for (int mode = 0; mode < 3; ++mode) {
    const double ops = per_thread * threads;  // per SM (one CTA per SM)
    const double mhz = clk[mode] / us[mode];
    std::printf(
        "RESULT m1 %-9s time %.1f us  cycles/SM %.0f (clock %.0f MHz)  per SM per clk: %.2f "
        "cvt (%.1f codes) %.2f ex2\n",
        name[mode], us[mode], clk[mode], mhz, mode != 1 ? ops / clk[mode] : 0.0,
        mode != 1 ? 2 * ops / clk[mode] : 0.0, mode != 0 ? ops / clk[mode] : 0.0);
  }
  std::printf(
      "RESULT m1 pipe: interleaved %.0f cycles vs sum %.0f, max %.0f -> %s\n", clk[2],
      clk[0] + clk[1], std::max(clk[0], clk[1]),
      clk[2] > 0.85 * (clk[0] + clk[1]) ? "SHARED pipe (interleaved ~ sum)"
      : clk[2] < 1.15 * std::max(clk[0], clk[1]) ? "SEPARATE pipes (interleaved ~ max)"
                                                  : "partly shared (between max and sum)");
  CK(cudaFree(sc));
  CK(cudaFree(se));
  CK(cudaFree(cyc));
}
