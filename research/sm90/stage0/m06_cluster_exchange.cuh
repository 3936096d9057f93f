// M6: 16 KB exchanges between the CTAs of a cluster pair, alone and beside wgmma streams.
#pragma once

#include "harness.cuh"
#include "ss_wgmma.cuh"

// ---------------------------------------------------------------------------- M6
// 16 KB exchanges between the two CTAs of a cluster pair (the next design's partial-score
// exchange: 128 threads x 32 fp32), alone and beside a stream of m64n128k16 SS wgmmas on
// both CTAs. Warpgroups 0 and 1: chains of 16 k-steps (A 64 x 256, B 128 x 256, 1024
// tensor cycles per chain) until the exchanger is done; warpgroup 2: `rounds` lock-step
// rounds: wait the peer's "free" of buffer r % 2, write 16 KB into it, wait the peer's
// 16 KB in the own buffer, check every word, free it on the peer. Mode 0: st.async with
// mbarrier complete_tx on the peer's barrier (armed locally with expect_tx); mode 1:
// st.shared::cluster, then one mbarrier.arrive.release.cluster per warp on the peer.
constexpr int kM6Bytes = 16384, kM6Stats = 8;
constexpr size_t kM6Smem = 200 * 1024;  // as the design's CTA: one per SM
__device__ __forceinline__ uint32_t mapa_u32(uint32_t addr, uint32_t rank) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}
__device__ __forceinline__ void remote_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(bar) : "memory");
}
// Every thread of the 128 at named barrier ID gets the OR of their `v`.
template <int ID>
__device__ __forceinline__ int wg_any(int v) {
  uint32_t r;
  asm volatile(
      "{\n .reg .pred p, q;\n setp.ne.b32 p, %1, 0;\n bar.red.or.pred q, %2, 128, p;\n"
      " selp.u32 %0, 1, 0, q;\n}\n"
      : "=r"(r)
      : "r"(v), "n"(ID)
      : "memory");
  return int(r);
}
__host__ __device__ inline uint32_t m6_word(int round, uint32_t rank, int i) {
  return uint32_t(round) * 0x9E3779B1u ^ (rank << 31) ^ uint32_t(i);
}

template <int MODE>
__global__ void __launch_bounds__(384, 1)
    m6_kernel(const __half* A, const __half* B, int rounds, int mma_on, int min_iters, float* D,
              long long* stats, int* err, long long timeout) {
  extern __shared__ __align__(128) uint8_t smem[];
  __shared__ uint64_t recv_full[2], recv_free[2];
  __shared__ int done;
  uint8_t* sA = smem;                                // 64 x 256 fp16
  uint8_t* sB = smem + 64 * 256 * 2;                 // 128 x 256 fp16
  uint4* recv = reinterpret_cast<uint4*>(smem + 192 * 256 * 2);  // 2 x 16 KB
  const int tid = threadIdx.x, wg = tid / 128;
  cg::cluster_group cluster = cg::this_cluster();
  const uint32_t rank = cluster.block_rank(), peer = rank ^ 1;
  to_cores<64>(sA, A, 256, tid, 384);
  to_cores<128>(sB, B, 256, tid, 384);
  if (tid == 0) {
    for (int b = 0; b < 2; ++b) {
      ptx::mbar_init(&recv_full[b], MODE == 0 ? 1 : 4);
      ptx::mbar_init(&recv_free[b], 1);
    }
    done = rounds == 0;
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  ptx::fence_proxy_async();
  cluster.sync();  // both CTAs' barriers exist before any remote access
  long long* st = stats + size_t(blockIdx.x) * kM6Stats;
  if (wg < 2 && mma_on) {
    float acc[64];
    int it = 0;
    const long long t0 = clock64();
    for (;;) {
      ptx::wgmma_fence();
#pragma unroll
      for (int s = 0; s < 16; ++s) Ss<128>::mma(acc, kstep_desc<64>(sA, s), kstep_desc<128>(sB, s), s);
      ptx::wgmma_commit();
      ptx::wgmma_wait<0>();
      ptx::fence_regs(acc);
      ++it;
      const int stop = it >= min_iters && *reinterpret_cast<volatile int*>(&done);
      if (wg == 0 ? wg_any<1>(stop) : wg_any<2>(stop)) break;
    }
    const long long t1 = clock64();
    if (tid % 128 == 0) {
      st[2 * wg] = t1 - t0;
      st[2 * wg + 1] = it;
    }
    float* out = D + (size_t(blockIdx.x) * 2 + wg) * 64 * 128;
#pragma unroll
    for (int e = 0; e < 64; ++e) {
      int row, col;
      frag_rc(tid % 128, e, row, col);
      out[row * 128 + col] = acc[e];
    }
  } else if (wg == 2 && rounds > 0) {
    const int x = tid - 256, lane = tid % 32;
    const uint32_t peer_recv = mapa_u32(ptx::smem_u32(recv), peer);
    const uint32_t peer_full = mapa_u32(ptx::smem_u32(recv_full), peer);
    const uint32_t peer_free = mapa_u32(ptx::smem_u32(recv_free), peer);
    long long issue = 0, wait = 0;
    int bad = 0, r = 0;
    const long long t0 = clock64();
    for (; r < rounds; ++r) {
      const int b = r & 1;
      const uint32_t phase = (r >> 1) & 1;
      if (MODE == 0 && x == 0) ptx::mbar_arrive_expect_tx(&recv_full[b], kM6Bytes);
      if (!mbar_wait_bounded<true>(&recv_free[b], phase ^ 1, timeout, err)) break;
      const long long ta = clock64();
#pragma unroll
      for (int j = 0; j < kM6Bytes / 16 / 128; ++j) {
        const int i = x + 128 * j;  // uint4 i of the 16 KB
        const uint32_t dst = peer_recv + uint32_t(b * kM6Bytes + 16 * i);
        const uint32_t w0 = m6_word(r, rank, 4 * i), w1 = m6_word(r, rank, 4 * i + 1),
                       w2 = m6_word(r, rank, 4 * i + 2), w3 = m6_word(r, rank, 4 * i + 3);
        if constexpr (MODE == 0)
          asm volatile(
              "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, "
              "%4}, [%5];" ::"r"(dst),
              "r"(w0), "r"(w1), "r"(w2), "r"(w3), "r"(peer_full + 8 * b)
              : "memory");
        else
          asm volatile("st.shared::cluster.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(dst), "r"(w0),
                       "r"(w1), "r"(w2), "r"(w3)
                       : "memory");
      }
      if constexpr (MODE == 1) {
        __syncwarp();
        if (lane == 0) remote_arrive(peer_full + 8 * b);
      }
      const long long tb = clock64();
      if (!mbar_wait_bounded<true>(&recv_full[b], phase, timeout, err)) break;
      const long long tc = clock64();
#pragma unroll
      for (int j = 0; j < kM6Bytes / 16 / 128; ++j) {
        const int i = x + 128 * j;
        const uint4 v = recv[b * (kM6Bytes / 16) + i];
        bad |= (v.x != m6_word(r, peer, 4 * i)) | (v.y != m6_word(r, peer, 4 * i + 1)) |
               (v.z != m6_word(r, peer, 4 * i + 2)) | (v.w != m6_word(r, peer, 4 * i + 3));
      }
      asm volatile("bar.sync 3, 128;" ::: "memory");  // every read of buffer b is done
      if (x == 0) remote_arrive(peer_free + 8 * b);
      issue += tb - ta;
      wait += tc - tb;
    }
    const long long t1 = clock64();
    if (bad) atomicExch(err, 2);
    if (x == 0) {
      *reinterpret_cast<volatile int*>(&done) = 1;
      st[4] = t1 - t0;
      st[5] = issue;
      st[6] = wait;
      st[7] = r;
    }
  }
  cluster.sync();  // no CTA leaves while its peer may still write or arrive remotely
}

struct M6Out {
  double us = 0, mma_frac = 0, round = 0, issue = 0, wait = 0;
  bool ok = false;
};
template <int MODE>
static M6Out m6_run(const __half* dA, const __half* dB, const std::vector<float>& fA,
                    const std::vector<float>& fB, int rounds, int mma_on, int min_iters) {
  const int grid = g_sms / 2 * 2;
  float* dD;
  long long* dst;
  int* derr;
  CK(cudaMalloc(&dD, size_t(grid) * 2 * 64 * 128 * 4));
  CK(cudaMalloc(&dst, size_t(grid) * kM6Stats * 8));
  CK(cudaMalloc(&derr, 4));
  CK(cudaMemset(dst, 0, size_t(grid) * kM6Stats * 8));
  CK(cudaMemset(derr, 0, 4));
  auto k = m6_kernel<MODE>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kM6Smem)));
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = 2;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(384);
  cfg.dynamicSmemBytes = kM6Smem;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  M6Out o;
  int nclusters = 0;
  if (cudaOccupancyMaxActiveClusters(&nclusters, k, &cfg) != cudaSuccess || nclusters == 0) {
    (void)cudaGetLastError();
    FAILF("m6: a 2-CTA cluster of 384 threads and %zu KB is not launchable here", kM6Smem / 1024);
    return o;
  }
  const long long timeout = 2000000000LL;
  o.us = time_us([&] { CK(cudaLaunchKernelEx(&cfg, k, dA, dB, rounds, mma_on, min_iters, dD, dst, derr, timeout)); }, 5, 1);
  int err = 0;
  CK(cudaMemcpy(&err, derr, 4, cudaMemcpyDeviceToHost));
  std::vector<long long> hs(size_t(grid) * kM6Stats);
  CK(cudaMemcpy(hs.data(), dst, hs.size() * 8, cudaMemcpyDeviceToHost));
  o.ok = err == 0;
  if (err) FAILF("m6 mode %d rounds %d mma %d: %s", MODE, rounds, mma_on, err == 2 ? "wrong exchanged words" : "mbarrier timeout");
  std::vector<double> frac, round, issue, wait;
  for (int c = 0; c < grid; ++c) {
    const long long* s = &hs[size_t(c) * kM6Stats];
    if (mma_on)
      for (int w = 0; w < 2; ++w)
        if (s[2 * w] > 0) frac.push_back(2.0 * 64 * 128 * 256 * s[2 * w + 1] / s[2 * w] / 2048.0);
    if (rounds > 0) {
      if (s[7] != rounds) o.ok = false;
      round.push_back(double(s[4]) / rounds);
      issue.push_back(double(s[5]) / rounds);
      wait.push_back(double(s[6]) / rounds);
    }
  }
  // Per SM both warpgroups share the tensor pipe: FLOP/clk/SM = sum of the two, / 4096.
  o.mma_frac = mma_on ? median(frac) : 0;
  o.round = median(round);
  o.issue = median(issue);
  o.wait = median(wait);
  if (mma_on) {  // the product of the first 4 CTAs' warpgroups
    std::vector<float> h(size_t(8) * 64 * 128);
    CK(cudaMemcpy(h.data(), dD, h.size() * 4, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (size_t i = 0; i < h.size(); ++i) {
      const int n = i % 128, m = (i / 128) % 64;
      double r = 0;
      for (int kk = 0; kk < 256; ++kk) r += fA[m * 256 + kk] * fB[n * 256 + kk];
      bad += h[i] != float(r);
    }
    if (bad) {
      FAILF("m6 mode %d: %d of %zu wgmma products wrong", MODE, bad, h.size());
      o.ok = false;
    }
  }
  CK(cudaFree(dD));
  CK(cudaFree(dst));
  CK(cudaFree(derr));
  return o;
}

static void run_m6() {
  std::printf(
      "== M6: 16 KB exchanges in a 2-CTA cluster (lock-step rounds), alone and beside m64n128k16 "
      "SS on 2 warpgroups per CTA\n");
  std::vector<float> fA, fB;
  const std::vector<__half> hA = small_ints(64 * 256, 21, fA), hB = small_ints(128 * 256, 700000, fB);
  __half *dA, *dB;
  CK(cudaMalloc(&dA, hA.size() * 2));
  CK(cudaMalloc(&dB, hB.size() * 2));
  CK(cudaMemcpy(dA, hA.data(), hA.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dB, hB.data(), hB.size() * 2, cudaMemcpyHostToDevice));
  const int rounds = 2000;
  const M6Out base = m6_run<0>(dA, dB, fA, fB, 0, 1, 2000);
  std::printf("RESULT m6 MMA alone (2 WGs x m64n128k16 SS chains of 16): %.1f us, %.1f%% of dense fp16%s\n",
              base.us, 100 * base.mma_frac, base.ok ? "" : " INVALID");
  const char* name[2] = {"st.async+complete_tx", "st.shared::cluster+arrive.release"};
  for (int mode = 0; mode < 2; ++mode)
    for (int mma_on = 0; mma_on < 2; ++mma_on) {
      const M6Out o = mode == 0 ? m6_run<0>(dA, dB, fA, fB, rounds, mma_on, 1)
                                : m6_run<1>(dA, dB, fA, fB, rounds, mma_on, 1);
      char mma_s[96] = "";
      if (mma_on)
        std::snprintf(mma_s, sizeof mma_s, ", MMA %.1f%% of dense (alone %.1f%%: %.1f%% lost)",
                      100 * o.mma_frac, 100 * base.mma_frac,
                      100 * (1 - o.mma_frac / std::max(base.mma_frac, 1e-9)));
      std::printf(
          "RESULT m6 %-33s %s: %.0f cycles per round (write issue %.0f, then wait for the peer's "
          "%.0f), %.2f B/clk/SM each way, %.1f us for %d rounds%s%s\n",
          name[mode], mma_on ? "with MMA" : "alone   ", o.round, o.issue, o.wait,
          kM6Bytes / std::max(o.round, 1.0), o.us, rounds, mma_s, o.ok ? "" : " INVALID");
    }
  CK(cudaFree(dA));
  CK(cudaFree(dB));
}
