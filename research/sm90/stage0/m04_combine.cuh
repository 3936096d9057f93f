// M4: the split combine, in a thread-block cluster through DSMEM against scratch + a second kernel.
#pragma once

#include "harness.cuh"

// ============================================================================ M4
// Synthetic partials: split s of token t, head h: O[h][d] = v(t,h,d) * a_s(h) + b_s(h),
// lse (base 2) = l_s(h). out[t][h][d] = sum_s 2^(l_s - L) O_s with L = log2 sum_s 2^l_s.
constexpr int kH = 16, kD = 512, kHD = kH * kD;
__host__ __device__ inline float m4_v(int t, int h, int d) {
  return float(hash32((uint64_t(t) << 20) | (h << 10) | d) & 0xffff) / 65536.0f - 0.5f;
}
__host__ __device__ inline float m4_a(int t, int s, int h) {
  return 0.5f + float(hash32((uint64_t(t) << 24) | (s << 8) | h | (1ull << 40)) & 0xff) / 256.0f;
}
__host__ __device__ inline float m4_b(int t, int s, int h) {
  return float(hash32((uint64_t(t) << 24) | (s << 8) | h | (2ull << 40)) & 0xff) / 1024.0f;
}
__host__ __device__ inline float m4_l(int t, int s, int h) {
  return float(hash32((uint64_t(t) << 24) | (s << 8) | h | (3ull << 40)) & 0xfff) / 512.0f - 4.0f;
}

// Cluster variant: grid = tokens x C CTAs, cluster of C; CTA of rank r owns splits
// r*per .. r*per+per-1 (per = splits / C), merges them locally, then the cluster combines
// through DSMEM (CTA r finalises 1/C of the 16 x 512 elements). C = 1: no cluster.
__global__ void __launch_bounds__(256)
    m4_cluster(int splits, int csize, float* __restrict__ out) {
  __shared__ __align__(16) float sO[kHD];
  __shared__ float sL[kH];
  __shared__ float sW[kH][16];
  const int rank = blockIdx.x % csize, t = blockIdx.x / csize, tid = threadIdx.x;
  const int per = splits / csize;
  if (tid < kH) {  // local weights of this CTA's splits (per <= 16)
    float m = -INFINITY;
    for (int j = 0; j < per; ++j) m = fmaxf(m, m4_l(t, rank * per + j, tid));
    float sum = 0;
    for (int j = 0; j < per; ++j) sum += exp2f(m4_l(t, rank * per + j, tid) - m);
    for (int j = 0; j < per; ++j) sW[tid][j] = exp2f(m4_l(t, rank * per + j, tid) - m) / sum;
    sL[tid] = m + log2f(sum);
  }
  __syncthreads();
  for (int e = tid; e < kHD; e += 256) {
    const int h = e / kD, d = e % kD;
    const float v = m4_v(t, h, d);
    float o = 0;
    for (int j = 0; j < per; ++j) {
      const int s = rank * per + j;
      o += sW[h][j] * (v * m4_a(t, s, h) + m4_b(t, s, h));
    }
    sO[e] = o;
  }
  float* dst = out + size_t(t) * kHD;
  if (csize == 1) {
    __syncthreads();
    for (int e = tid; e < kHD; e += 256) dst[e] = sO[e];
    return;
  }
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();
  __shared__ float sLall[kH][16];  // lse of every CTA of the cluster, per head
  __shared__ float sWall[kH][16];  // their combine weights
  if (tid < kH * csize) sLall[tid / csize][tid % csize] = *cluster.map_shared_rank(&sL[tid / csize], tid % csize);
  __syncthreads();
  if (tid < kH) {
    float m = -INFINITY, sum = 0;
    for (int c = 0; c < csize; ++c) m = fmaxf(m, sLall[tid][c]);
    for (int c = 0; c < csize; ++c) sum += exp2f(sLall[tid][c] - m);
    for (int c = 0; c < csize; ++c) sWall[tid][c] = exp2f(sLall[tid][c] - m) / sum;
  }
  __syncthreads();
  const int slice = kHD / csize;  // elements finalised by this CTA
  for (int e4 = tid; e4 < slice / 4; e4 += 256) {
    const int e = rank * slice + e4 * 4, h = e / kD;
    float4 acc = make_float4(0, 0, 0, 0);
    for (int c = 0; c < csize; ++c) {
      const float w = sWall[h][c];
      const float4 v = *reinterpret_cast<const float4*>(cluster.map_shared_rank(&sO[e], c));
      acc.x += w * v.x;
      acc.y += w * v.y;
      acc.z += w * v.z;
      acc.w += w * v.w;
    }
    *reinterpret_cast<float4*>(dst + e) = acc;
  }
  cluster.sync();  // keep every CTA's shared memory alive until all reads are done
}
// Global variant, kernel 1: one CTA per (token, split) writes its partial + lse.
__global__ void __launch_bounds__(256)
    m4_partial(int splits, float* __restrict__ sO, float* __restrict__ sL) {
  const int t = blockIdx.x / splits, s = blockIdx.x % splits, tid = threadIdx.x;
  float* o = sO + size_t(blockIdx.x) * kHD;
  for (int e = tid; e < kHD; e += 256) {
    const int h = e / kD, d = e % kD;
    o[e] = m4_v(t, h, d) * m4_a(t, s, h) + m4_b(t, s, h);
  }
  if (tid < kH) sL[size_t(blockIdx.x) * kH + tid] = m4_l(t, s, tid);
}
// Kernel 2: one CTA per (token, head), 128 threads x 4 dims.
__global__ void __launch_bounds__(128)
    m4_combine(int splits, const float* __restrict__ sO, const float* __restrict__ sL,
               float* __restrict__ out) {
  __shared__ float w[64];
  const int t = blockIdx.x / kH, h = blockIdx.x % kH, tid = threadIdx.x;
  if (tid < 32) {
    float l0 = tid < splits ? sL[(size_t(t) * splits + tid) * kH + h] : -INFINITY;
    float l1 = tid + 32 < splits ? sL[(size_t(t) * splits + tid + 32) * kH + h] : -INFINITY;
    float m = fmaxf(l0, l1);
    for (int o = 16; o; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    float e0 = exp2f(l0 - m), e1 = exp2f(l1 - m), sum = e0 + e1;
    for (int o = 16; o; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    w[tid] = e0 / sum;
    w[tid + 32] = e1 / sum;
  }
  __syncthreads();
  float4 acc = make_float4(0, 0, 0, 0);
  for (int s = 0; s < splits; ++s) {
    const float4 v = *reinterpret_cast<const float4*>(
        sO + (size_t(t) * splits + s) * kHD + h * kD + tid * 4);
    acc.x += w[s] * v.x;
    acc.y += w[s] * v.y;
    acc.z += w[s] * v.z;
    acc.w += w[s] * v.w;
  }
  *reinterpret_cast<float4*>(out + size_t(t) * kHD + h * kD + tid * 4) = acc;
}

static bool m4_verify(const float* dout, int tokens, int splits, const char* what) {
  std::vector<float> h(size_t(tokens) * kHD);
  CK(cudaMemcpy(h.data(), dout, h.size() * 4, cudaMemcpyDeviceToHost));
  double worst = 0;
  for (int t = 0; t < tokens; ++t)
    for (int hh = 0; hh < kH; ++hh) {
      double m = -1e300;
      for (int s = 0; s < splits; ++s) m = std::max(m, (double)m4_l(t, s, hh));
      double sum = 0;
      for (int s = 0; s < splits; ++s) sum += std::exp2(m4_l(t, s, hh) - m);
      for (int d = 0; d < kD; ++d) {
        double r = 0;
        for (int s = 0; s < splits; ++s)
          r += std::exp2(m4_l(t, s, hh) - m) / sum *
               ((double)m4_v(t, hh, d) * m4_a(t, s, hh) + m4_b(t, s, hh));
        worst = std::max(worst, std::fabs(h[size_t(t) * kHD + hh * kD + d] - r));
      }
    }
  if (worst > 1e-4) {
    FAILF("m4 %s: max abs err %.3g", what, worst);
    return false;
  }
  return true;
}

static void run_m4() {
  std::printf("== M4: split combine, 16 heads x 512 fp32 partial per split (CUDA graphs, us/iter)\n");
  const int cases[2][2] = {{1, 32}, {128, 2}};  // {tokens, splits}
  for (auto& cs : cases) {
    const int tokens = cs[0], splits = cs[1];
    float *dout, *sO, *sL;
    CK(cudaMalloc(&dout, size_t(tokens) * kHD * 4));
    CK(cudaMalloc(&sO, size_t(tokens) * splits * kHD * 4));
    CK(cudaMalloc(&sL, size_t(tokens) * splits * kH * 4));
    // Global scratch + second kernel.
    {
      auto launch = [&](cudaStream_t s) {
        m4_partial<<<tokens * splits, 256, 0, s>>>(splits, sO, sL);
        m4_combine<<<tokens * kH, 128, 0, s>>>(splits, sO, sL, dout);
      };
      CK(cudaMemset(dout, 0, size_t(tokens) * kHD * 4));
      launch(0);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      const bool ok = m4_verify(dout, tokens, splits, "global");
      const double us = time_graph_us(launch);
      const double us1 = time_graph_us([&](cudaStream_t s) {
        m4_partial<<<tokens * splits, 256, 0, s>>>(splits, sO, sL);
      });
      std::printf(
          "RESULT m4 T=%d S=%d global scratch + combine kernel: %.2f us end to end (partials "
          "kernel alone %.2f us, combine adds %.2f us)%s\n",
          tokens, splits, us, us1, us - us1, ok ? "" : " INVALID");
    }
    // Cluster / DSMEM variants; C = 1 is one CTA doing every split (no combine at all).
    for (int csize : {1, 2, 4, 8, 16}) {
      if (csize > splits || splits % csize || splits / csize > 16) continue;
      const int grid = tokens * csize;
      if (csize == 16)
        CK(cudaFuncSetAttribute(m4_cluster, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
      cudaLaunchAttribute attr[1];
      attr[0].id = cudaLaunchAttributeClusterDimension;
      attr[0].val.clusterDim.x = csize;
      attr[0].val.clusterDim.y = 1;
      attr[0].val.clusterDim.z = 1;
      auto launch = [&](cudaStream_t s) {
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(grid);
        cfg.blockDim = dim3(256);
        cfg.dynamicSmemBytes = 0;
        cfg.stream = s;
        cfg.attrs = attr;
        cfg.numAttrs = csize > 1 ? 1 : 0;
        return cudaLaunchKernelEx(&cfg, m4_cluster, splits, csize, dout);
      };
      if (csize > 1) {
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(grid);
        cfg.blockDim = dim3(256);
        cfg.attrs = attr;
        cfg.numAttrs = 1;
        int nclusters = 0;
        const cudaError_t e = cudaOccupancyMaxActiveClusters(&nclusters, m4_cluster, &cfg);
        if (e != cudaSuccess || nclusters == 0) {
          (void)cudaGetLastError();
          std::printf("RESULT m4 T=%d S=%d cluster C=%d: not launchable here (%s)\n", tokens,
                      splits, csize, cudaGetErrorString(e));
          continue;
        }
      }
      CK(cudaMemset(dout, 0, size_t(tokens) * kHD * 4));
      const cudaError_t e = launch(0);
      if (e != cudaSuccess) {
        (void)cudaGetLastError();
        std::printf("RESULT m4 T=%d S=%d cluster C=%d: launch failed (%s)\n", tokens, splits,
                    csize, cudaGetErrorString(e));
        continue;
      }
      CK(cudaDeviceSynchronize());
      const bool ok = m4_verify(dout, tokens, splits, "cluster");
      const double us = time_graph_us([&](cudaStream_t s) { CK(launch(s)); });
      std::printf(
          "RESULT m4 T=%d S=%d cluster C=%2d (%2d splits merged locally per CTA%s): %.2f us end "
          "to end%s\n",
          tokens, splits, csize, splits / csize, csize == 1 ? ", no combine" : ", DSMEM combine",
          us, ok ? "" : " INVALID");
    }
    CK(cudaFree(dout));
    CK(cudaFree(sO));
    CK(cudaFree(sL));
  }
}
