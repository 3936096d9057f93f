// M3: random-row gather engines (cp.async.bulk + mbarrier, 16-byte ld.global, 16-byte cp.async).
#pragma once

#include "harness.cuh"

// ============================================================================ M3
// Each warp gathers its own contiguous slice of the random index list through a ring of
// RPW row slots (RPW rows in flight per warp, 4 warps per CTA: rows in flight per CTA =
// 4 RPW). The warp reads every 16-byte chunk of each landed row and XORs it into a
// per-thread checksum (so nothing is dropped and every byte is verified against the host).
constexpr int kM3Warps = 4;
enum M3Engine { kBulk = 0, kLdg = 1, kCpAsync = 2 };

template <int E, int RPW>
__global__ void __launch_bounds__(kM3Warps * 32)
    m3_gather(const uint8_t* __restrict__ pool, const int* __restrict__ idx, int rows_per_warp,
              int stride, int bytes, uint32_t* xor_out, int* err, long long timeout) {
  extern __shared__ __align__(128) uint8_t smem[];
  __shared__ uint64_t bars[kM3Warps * RPW];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int chunks = bytes / 16;
  const int n = rows_per_warp;
  const int* my = idx + size_t(blockIdx.x * kM3Warps + warp) * n;
  uint8_t* slots = smem + size_t(warp) * RPW * bytes;
  // The warp's row indices are staged in shared memory first (coalesced, once): a row's
  // issue must not wait on its index's global load, or the loop measures that latency
  // (the first version did: ~600 cycles per row and warp, whatever the engine).
  int* sidx = reinterpret_cast<int*>(smem + size_t(kM3Warps) * RPW * bytes) + size_t(warp) * n;
  for (int i = lane; i < n; i += 32) sidx[i] = my[i];
  __syncwarp();
  uint32_t x = 0;
  auto row_ptr = [&](int i) { return pool + int64_t(sidx[i]) * stride; };
  auto eat_smem = [&](const uint8_t* s) {
    for (int c = lane; c < chunks; c += 32) {
      const uint4 v = *reinterpret_cast<const uint4*>(s + c * 16);
      x ^= v.x ^ v.y ^ v.z ^ v.w;
    }
  };
  if constexpr (E == kBulk) {
    uint64_t* bar = bars + warp * RPW;
    if (lane == 0)
      for (int r = 0; r < RPW; ++r) ptx::mbar_init(&bar[r], 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    __syncthreads();
    if (lane == 0)
      for (int r = 0; r < RPW && r < n; ++r) {
        ptx::mbar_arrive_expect_tx(&bar[r], bytes);
        ptx::bulk_copy(slots + r * bytes, row_ptr(r), bytes, &bar[r]);
      }
    for (int base = 0; base < n; base += RPW) {
      const uint32_t par = (base / RPW) & 1;
#pragma unroll
      for (int r = 0; r < RPW; ++r) {
        const int i = base + r;
        if (i >= n) break;
        if (!mbar_wait_bounded(&bar[r], par, timeout, err)) return;  // error path: give up
        eat_smem(slots + r * bytes);
        __syncwarp();
        if (lane == 0 && i + RPW < n) {
          ptx::fence_proxy_async();
          ptx::mbar_arrive_expect_tx(&bar[r], bytes);
          ptx::bulk_copy(slots + r * bytes, row_ptr(i + RPW), bytes, &bar[r]);
        }
      }
    }
  } else if constexpr (E == kCpAsync) {
    auto issue = [&](int i, int r) {
      const uint8_t* src = row_ptr(i);
      uint8_t* dst = slots + r * bytes;
      for (int c = lane; c < chunks; c += 32) cp_async16(dst + c * 16, src + c * 16);
    };
    for (int r = 0; r < RPW; ++r) {
      if (r < n) issue(r, r);
      cp_async_commit();
    }
    for (int i = 0; i < n; ++i) {
      const int r = i % RPW;
      cp_async_wait<RPW - 1>();
      __syncwarp();
      eat_smem(slots + r * bytes);
      __syncwarp();
      if (i + RPW < n) issue(i + RPW, r);
      cp_async_commit();
    }
    cp_async_wait<0>();
  } else {  // kLdg: registers ring, two 16-byte chunks per lane per row (chunks <= 64)
    uint4 buf[RPW][2];
    auto load = [&](int i, uint4 (&b)[2]) {
      const uint8_t* src = row_ptr(i);
      b[0] = ldg16(src + lane * 16);
      b[1] = lane + 32 < chunks ? ldg16(src + (lane + 32) * 16) : make_uint4(0, 0, 0, 0);
    };
#pragma unroll
    for (int r = 0; r < RPW; ++r)
      if (r < n) load(r, buf[r]);
    for (int base = 0; base < n; base += RPW) {
#pragma unroll
      for (int r = 0; r < RPW; ++r) {
        const int i = base + r;
        if (i < n) {
          x ^= buf[r][0].x ^ buf[r][0].y ^ buf[r][0].z ^ buf[r][0].w;
          x ^= buf[r][1].x ^ buf[r][1].y ^ buf[r][1].z ^ buf[r][1].w;
          if (i + RPW < n) load(i + RPW, buf[r]);
        }
      }
    }
  }
  // warp reduce then one atomic per warp
#pragma unroll
  for (int o = 16; o; o >>= 1) x ^= __shfl_xor_sync(0xffffffffu, x, o);
  if (lane == 0) atomicXor(xor_out, x);
}

template <int E, int RPW>
static void m3_case(const uint8_t* pool, const int* didx, int rows_per_warp, int stride, int bytes,
                    int ctas_per_sm, uint32_t want, uint32_t* dx, int* derr) {
  const int grid = g_sms * ctas_per_sm;
  const size_t smem = size_t(kM3Warps) * RPW * bytes + size_t(kM3Warps) * rows_per_warp * 4;
  auto k = m3_gather<E, RPW>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  const long long timeout = 2000000000LL;  // ~1 s at 2 GHz
  CK(cudaMemset(dx, 0, 4));
  CK(cudaMemset(derr, 0, 4));
  k<<<grid, kM3Warps * 32, smem>>>(pool, didx, rows_per_warp, stride, bytes, dx, derr, timeout);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  uint32_t got;
  int err;
  CK(cudaMemcpy(&got, dx, 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&err, derr, 4, cudaMemcpyDeviceToHost));
  const bool ok = got == want && err == 0;
  const char* en = E == kBulk ? "bulk" : E == kLdg ? "ldg16" : "cpasync16";
  if (!ok) FAILF("m3 %s rows/CTA=%d row=%d/%d: checksum %08x want %08x, timeout flag %d", en, 4 * RPW, bytes, stride, got, want, err);
  const double us = time_us(
      [&] { k<<<grid, kM3Warps * 32, smem>>>(pool, didx, rows_per_warp, stride, bytes, dx, derr, timeout); },
      20);
  CK(cudaMemcpy(&err, derr, 4, cudaMemcpyDeviceToHost));
  if (err) FAILF("m3 %s: mbarrier timeout during timing", en);
  const double total = double(grid) * kM3Warps * rows_per_warp * bytes;
  std::printf(
      "RESULT m3 gather %-9s row %d B (stride %d) CTA/SM=%d rows/CTA=%2d in-flight/SM=%6.1f KB: "
      "%.2f TB/s (%.1f us, %.0f MB)%s\n",
      en, bytes, stride, ctas_per_sm, 4 * RPW, 4.0 * RPW * ctas_per_sm * bytes / 1024.0,
      total / (us * 1e-6) / 1e12, us, total / 1e6, ok && !err ? "" : " INVALID");
}
template <int E>
static void m3_engine(const uint8_t* pool, const int* didx, int rpw_rows, int stride, int bytes,
                      int cps, uint32_t want, uint32_t* dx, int* derr) {
  m3_case<E, 1>(pool, didx, rpw_rows, stride, bytes, cps, want, dx, derr);
  m3_case<E, 2>(pool, didx, rpw_rows, stride, bytes, cps, want, dx, derr);
  m3_case<E, 4>(pool, didx, rpw_rows, stride, bytes, cps, want, dx, derr);
  m3_case<E, 8>(pool, didx, rpw_rows, stride, bytes, cps, want, dx, derr);
  m3_case<E, 16>(pool, didx, rpw_rows, stride, bytes, cps, want, dx, derr);
}

static void run_m3() {
  const size_t pool_bytes = 1100000000ULL;  // 1.1 GB
  std::printf("== M3: random-row gather, pool %.2f GB\n", pool_bytes / 1e9);
  uint8_t* pool;
  CK(cudaMalloc(&pool, pool_bytes));
  m3_fill<<<g_sms * 8, 256>>>(reinterpret_cast<uint32_t*>(pool), pool_bytes / 4);
  CK(cudaGetLastError());
  const int rows_per_warp = 256;  // 2 CTAs/SM x 132 SMs x 4 warps x 256 rows = 270k rows
  const size_t max_rows = size_t(g_sms) * 2 * kM3Warps * rows_per_warp;
  int* didx;
  uint32_t* dx;
  int* derr;
  CK(cudaMalloc(&didx, max_rows * 4));
  CK(cudaMalloc(&dx, 4));
  CK(cudaMalloc(&derr, 4));
  const int cfg[3][2] = {{528, 528}, {656, 656}, {656, 528}};  // {stride, bytes copied}
  std::mt19937_64 rng(1234);
  for (auto& c : cfg) {
    const int stride = c[0], bytes = c[1];
    const int64_t nrows = int64_t(pool_bytes / stride);
    std::vector<int> idx(max_rows);
    for (auto& v : idx) v = int(rng() % uint64_t(nrows));
    CK(cudaMemcpy(didx, idx.data(), max_rows * 4, cudaMemcpyHostToDevice));
    for (int cps = 1; cps <= 2; ++cps) {
      const size_t used = size_t(g_sms) * cps * kM3Warps * rows_per_warp;
      uint32_t want = 0;
      for (size_t i = 0; i < used; ++i) {
        const uint64_t w0 = uint64_t(idx[i]) * stride / 4;
        for (int k = 0; k < bytes / 4; ++k) want ^= hash32(w0 + k);
      }
      m3_engine<kBulk>(pool, didx, rows_per_warp, stride, bytes, cps, want, dx, derr);
      m3_engine<kLdg>(pool, didx, rows_per_warp, stride, bytes, cps, want, dx, derr);
      m3_engine<kCpAsync>(pool, didx, rows_per_warp, stride, bytes, cps, want, dx, derr);
    }
  }
  CK(cudaFree(pool));
  CK(cudaFree(didx));
  CK(cudaFree(dx));
  CK(cudaFree(derr));
}
