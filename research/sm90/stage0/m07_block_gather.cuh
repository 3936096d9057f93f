// M7: the 64-row block gather by bulk copies: the product's 2-warp gather against 4 warps.
#pragma once

#include "harness.cuh"
#include "ours/sm90/pipeline.cuh"

// ---------------------------------------------------------------------------- M7
// The producer's gather of 64-row blocks (one bulk copy per row) from a pool far larger
// than L2, random rows, into an NS-stage ring of 64 x 528-byte rows, against a consumer
// warpgroup that XORs every landed byte into a checksum (checked on the host) and frees the
// stage. Producers: the product's gather_rows (2 warps, lane = row: 32 lane-serial copies
// per warp per block) or 4 warps of 16 rows (lanes 0-15), whole rows (528 B) or the design's
// half rows (bytes 256-527, 272 B). One CTA per SM, `nblocks` blocks per CTA.
// Probe mode (NS = nblocks): no stage is ever waited for, so the producers' loop time per
// block is their issue cost; their index loads are touched first (L1 hits).
constexpr int kM7Consumers = 128, kM7Stride = sm90::kRowBytes;
constexpr int kM7Stats = 9;  // per CTA: consumer cycles, each producer warp's loop and issue cycles

// Warp `warp` of 4: rows 16 warp + lane of each block (lanes 0-15), bytes [OFF, OFF + BYTES)
// of each; `spent` += the cycles from the stage being free to the warp's last copy issued.
template <int NS, int BYTES, int OFF>
__device__ __forceinline__ void m7_gather4(const uint8_t* pool, const int* blk_idx, int nblocks,
                                           int warp, int lane, uint8_t* ring, uint64_t* full,
                                           uint64_t* empty, long long& spent) {
  const bool mine = lane < 16;
  const int row = 16 * warp + (lane & 15);
  int slot = __ldg(blk_idx + row);
  for (int b = 0; b < nblocks; ++b) {
    const int s = b % NS, src_row = slot;
    if (b + 1 < nblocks) slot = __ldg(blk_idx + (b + 1) * sm90::kBlockRows + row);
    ptx::mbar_wait(&empty[s], ((b / NS) & 1) ^ 1);
    const long long t = clock64();
    if (lane == 0) ptx::mbar_arrive_expect_tx(&full[s], 16 * BYTES);
    __syncwarp();
    uint8_t* dst = ring + (s * sm90::kBlockRows + row) * kM7Stride + OFF;
    if (mine) ptx::bulk_copy(dst, pool + int64_t(src_row) * kM7Stride + OFF, BYTES, &full[s]);
    __syncwarp();
    spent += clock64() - t;
  }
}

// PW producer warps (2: the product's gather, 4: m7_gather4) after kM7Consumers threads.
template <int NS, int PW, int BYTES, int OFF>
__global__ void __launch_bounds__(kM7Consumers + PW * 32, 1)
    m7_kernel(const uint8_t* __restrict__ pool, const int* __restrict__ idx, int64_t slots,
              int nblocks, uint32_t* xor_out, long long* stats, int* err, long long timeout) {
  static_assert(PW == 4 || (PW == 2 && BYTES == kM7Stride && OFF == 0), "2 warps: the product's");
  extern __shared__ __align__(128) uint8_t smem[];
  uint8_t* ring = smem;
  int* flags = reinterpret_cast<int*>(smem + NS * sm90::kBlockRows * kM7Stride);
  uint64_t* full = reinterpret_cast<uint64_t*>(flags + NS * sm90::kBlockRows);
  uint64_t* empty = full + NS;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int topk = nblocks * sm90::kBlockRows;
  const int* my_idx = idx + int64_t(blockIdx.x) * topk;
  if (tid == 0) {
    for (int s = 0; s < NS; ++s) {
      ptx::mbar_init(&full[s], PW);
      ptx::mbar_init(&empty[s], kM7Consumers / 32);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (warp >= kM7Consumers / 32) {  // producers
    const int pw = warp - kM7Consumers / 32;
    int touch = 0;  // the probe's index loads hit L1 (the timed loop measures issue only)
    if (NS >= nblocks)
      for (int i = lane; i < topk; i += 32) touch += __ldg(my_idx + i);
    __syncwarp();
    if (touch == -7) stats[0] = touch;  // keeps the loads
    long long spent = 0;
    const long long t0 = clock64();
    if constexpr (PW == 2) {
      sm90::SparseMlaParams p{};
      p.pool = pool;
      p.indices = idx;
      p.num_slots = slots;
      p.row_bytes = kM7Stride;
      p.topk = topk;
      sm90::gather_rows<NS>(p, blockIdx.x, 0, topk, nblocks, pw, lane, ring, flags, full, empty);
    } else {
      m7_gather4<NS, BYTES, OFF>(pool, my_idx, nblocks, pw, lane, ring, full, empty, spent);
    }
    const long long t1 = clock64();
    if (lane == 0) {
      stats[kM7Stats * blockIdx.x + 1 + pw] = t1 - t0;
      stats[kM7Stats * blockIdx.x + 5 + pw] = spent;
    }
    return;
  }
  // Consumers: every 16-byte chunk of the block's copied bytes, then free the stage.
  constexpr int kChunks = BYTES / 16;
  uint32_t x = 0;
  const long long t0 = clock64();
  for (int b = 0; b < nblocks; ++b) {
    const int s = b % NS;
    if (!mbar_wait_bounded(&full[s], (b / NS) & 1, timeout, err)) break;
    const uint8_t* base = ring + s * sm90::kBlockRows * kM7Stride + OFF;
    for (int c = tid; c < sm90::kBlockRows * kChunks; c += kM7Consumers) {
      const uint4 v = *reinterpret_cast<const uint4*>(base + (c / kChunks) * kM7Stride + (c % kChunks) * 16);
      x ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    __syncwarp();
    if (lane == 0) ptx::mbar_arrive(&empty[s]);
  }
  if (tid == 0) stats[kM7Stats * blockIdx.x] = clock64() - t0;
#pragma unroll
  for (int o = 16; o; o >>= 1) x ^= __shfl_xor_sync(0xffffffffu, x, o);
  if (lane == 0) atomicXor(xor_out, x);
}

template <int NS, int PW, int BYTES, int OFF>
static void m7_case(const uint8_t* pool, const int* didx, int64_t slots, int nblocks,
                    uint32_t want, uint32_t* dx, long long* dstats, int* derr) {
  const int grid = g_sms, threads = kM7Consumers + PW * 32;
  const size_t smem = size_t(NS) * sm90::kBlockRows * (kM7Stride + 4) + 2 * NS * 8;
  auto k = m7_kernel<NS, PW, BYTES, OFF>;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  const long long timeout = 2000000000LL;
  auto launch = [&] { k<<<grid, threads, smem>>>(pool, didx, slots, nblocks, dx, dstats, derr, timeout); };
  CK(cudaMemset(dstats, 0, size_t(grid) * kM7Stats * 8));
  CK(cudaMemset(dx, 0, 4));
  CK(cudaMemset(derr, 0, 4));
  launch();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  uint32_t got;
  int err;
  CK(cudaMemcpy(&got, dx, 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&err, derr, 4, cudaMemcpyDeviceToHost));
  const bool ok = got == want && err == 0;
  const bool probe = NS >= nblocks;
  if (!ok) FAILF("m7 %d warps %d B NS=%d: checksum %08x want %08x, timeout flag %d", PW, BYTES, NS, got, want, err);
  const double us = time_us(launch, 10);
  std::vector<long long> hs(size_t(grid) * kM7Stats);
  CK(cudaMemcpy(hs.data(), dstats, hs.size() * 8, cudaMemcpyDeviceToHost));
  std::vector<double> cons, prod, issue;
  for (int c = 0; c < grid; ++c) {
    const long long* st = &hs[size_t(kM7Stats) * c];
    cons.push_back(double(st[0]) / nblocks);
    prod.push_back(double(*std::max_element(st + 1, st + 1 + PW)) / nblocks);
    issue.push_back(double(*std::max_element(st + 5, st + 5 + PW)) / nblocks);
  }
  const double rows = double(grid) * nblocks * sm90::kBlockRows;
  char issue_s[64] = "n/a (the product's loop)";
  if (PW == 4) std::snprintf(issue_s, sizeof issue_s, "%.0f", median(issue));
  std::printf(
      "RESULT m7 gather %d warps %s %3d B NS=%d%s: %.1f us, %.0f Mrows/s, %.2f TB/s, consumer "
      "%.0f cycles/block, producer loop %.0f cycles/block (slowest warp), copy issue %s "
      "cycles/block/warp%s\n",
      PW, PW == 2 ? "(product gather_rows)" : "(16 rows each)        ", BYTES, NS,
      probe ? " probe" : "      ", us, rows / us, rows * BYTES / (us * 1e-6) / 1e12, median(cons),
      median(prod), issue_s, ok ? "" : " INVALID");
}

static void run_m7() {
  const size_t pool_bytes = 1100000000ULL;  // 1.1 GB, 22x the L2
  const int64_t slots = int64_t(pool_bytes / kM7Stride);
  std::printf("== M7: block gather (64 rows by bulk copies), pool %.2f GB, random rows, 1 CTA/SM\n",
              pool_bytes / 1e9);
  uint8_t* pool;
  CK(cudaMalloc(&pool, pool_bytes));
  m3_fill<<<g_sms * 8, 256>>>(reinterpret_cast<uint32_t*>(pool), pool_bytes / 4);
  CK(cudaGetLastError());
  const int nblocks = 64, probe_blocks = 6;  // 64 x 64 rows per CTA; probe: 6 stages
  const size_t n = size_t(g_sms) * nblocks * sm90::kBlockRows;
  std::vector<int> idx(n);
  std::mt19937_64 rng(4321);
  for (auto& v : idx) v = int(rng() % uint64_t(slots));
  int* didx;
  uint32_t* dx;
  long long* dstats;
  int* derr;
  CK(cudaMalloc(&didx, n * 4));
  CK(cudaMalloc(&dx, 4));
  CK(cudaMalloc(&dstats, size_t(g_sms) * kM7Stats * 8));
  CK(cudaMalloc(&derr, 4));
  CK(cudaMemcpy(didx, idx.data(), n * 4, cudaMemcpyHostToDevice));
  // Host checksums: bytes [off, 528) of every row of the first `blocks` blocks of each CTA.
  auto want = [&](int blocks, int off) {
    uint32_t x = 0;
    for (int c = 0; c < g_sms; ++c)
      for (int i = 0; i < blocks * sm90::kBlockRows; ++i) {
        const uint64_t w0 = uint64_t(idx[size_t(c) * nblocks * sm90::kBlockRows + i]) * kM7Stride / 4;
        for (int kk = off / 4; kk < kM7Stride / 4; ++kk) x ^= hash32(w0 + kk);
      }
    return x;
  };
  const uint32_t w_full = want(nblocks, 0), w_half = want(nblocks, 256);
  m7_case<1, 2, 528, 0>(pool, didx, slots, nblocks, w_full, dx, dstats, derr);
  m7_case<2, 2, 528, 0>(pool, didx, slots, nblocks, w_full, dx, dstats, derr);
  m7_case<1, 4, 528, 0>(pool, didx, slots, nblocks, w_full, dx, dstats, derr);
  m7_case<2, 4, 528, 0>(pool, didx, slots, nblocks, w_full, dx, dstats, derr);
  m7_case<1, 4, 272, 256>(pool, didx, slots, nblocks, w_half, dx, dstats, derr);
  m7_case<2, 4, 272, 256>(pool, didx, slots, nblocks, w_half, dx, dstats, derr);
  // Probe: the CTA's indices are laid out for nblocks blocks; the probe reads the first 6.
  // (its topk = 6 x 64 indexes the index array as [CTA][384]: other rows, checksum below)
  std::vector<int> pidx(size_t(g_sms) * probe_blocks * sm90::kBlockRows);
  for (int c = 0; c < g_sms; ++c)
    for (int i = 0; i < probe_blocks * sm90::kBlockRows; ++i)
      pidx[size_t(c) * probe_blocks * sm90::kBlockRows + i] = idx[size_t(c) * nblocks * sm90::kBlockRows + i];
  CK(cudaMemcpy(didx, pidx.data(), pidx.size() * 4, cudaMemcpyHostToDevice));
  const uint32_t p_full = want(probe_blocks, 0), p_half = want(probe_blocks, 256);
  m7_case<6, 2, 528, 0>(pool, didx, slots, probe_blocks, p_full, dx, dstats, derr);
  m7_case<6, 4, 528, 0>(pool, didx, slots, probe_blocks, p_full, dx, dstats, derr);
  m7_case<6, 4, 272, 256>(pool, didx, slots, probe_blocks, p_half, dx, dstats, derr);
  CK(cudaFree(pool));
  CK(cudaFree(didx));
  CK(cudaFree(dx));
  CK(cudaFree(dstats));
  CK(cudaFree(derr));
}
