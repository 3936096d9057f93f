// M9, M10 and M12's block loop: its shared memory, hand-off barriers, Horner step, data
// and checks (the kernels are in m09_m10_block_loop.cu and m12_symmetric_scorers.cu).
#pragma once

#include "harness.cuh"
#include "ours/sm90/heads_major_kernel.cuh"  // e4m3x16_to_f16, HmWgmma::values
#include "ss_wgmma.cuh"

// ---------------------------------------------------------------------------- M9, M10
// The next heads-major design's block loop (three warpgroups, one-way hand-offs, the design
// note's section 2.4), on static data, timed per 64-candidate block:
//   WG0 (232 registers), block j: waits tile j's L half (dims 0-255); scores in four groups
//     of 8 m64n64k16 SS (q̂ 64 x 512 as A, the tile as B) into ONE accumulator, the previous
//     block's value MMAs on dims 0-255 (8 m64n128k16 RS, U from registers) interleaved after
//     groups 0 and 1; in Horner modes it waits after groups 0-2 and multiplies the accumulator
//     by a per-candidate ratio from the table (32 FMUL); it frees the L half of j - 1 once
//     its value MMAs are done, waits tile j's R half before group 2; after group 3 it
//     releases WG1 for P'(j - 1) ("QK(j) done"), runs a softmax-sized chain, writes P'(j)
//     (once WG1 has read the buffer) and forms U_0, U_1 (HMUL2). Modes (kMode): 0 the four
//     groups back to back and one wait (the same MMAs); 1 Horner; 2 Horner without the
//     softmax chain (ablation); 3 two accumulators (groups 0-1 and 2-3, one wait, then
//     acc x r + acc2: the design's fallback; ptxas serializes it at 232 registers, C7512);
//     4 no consumer work (M10 only: the producer's own rate, each half taken once full).
//   WG1 (176), block j: waits "P'(j) ready", reads P' (LDS), frees the buffer, forms U_2,
//     U_3 (HMUL2), 8 m64n128k16 RS on dims 256-511, frees the R half of j. Its value MMAs
//     run under WG0's softmax of block j + 1.
//   WG2 (96): refills each freed half; with kStores it converts 16 KB of e4m3 codes (its
//     CTA's own copy, L2-resident) into the 32 KB fp16 half (LDG.128 + cvt + STS.128, core
//     layout) as the design's producer would; without, it only hands the half back (M9).
// Two tiles of two halves (full/empty mbarriers each), two P' buffers (named barriers:
// ready 1-2, free 3-4). The data are small integers with r = g = 1, so the last block's
// scores and O (the sum over every block) are exact and checked.
constexpr int kM9Tile = 64 * 512 * 2;    // one 64-candidate fp16 tile
constexpr int kM9PRow = 72;              // P' row stride in halves (padded: no bank conflicts)
constexpr int kM9PBytes = 64 * kM9PRow * 2;
struct M9Smem {
  static constexpr int kQ = 0;
  static constexpr int kTile = kQ + kM9Tile;             // 2 tiles
  static constexpr int kP = kTile + 2 * kM9Tile;         // 2 P' buffers
  static constexpr int kTab = kP + 2 * kM9PBytes;        // 2 x [r1, r2, r3, g][64] float
  static constexpr int kBars = kTab + 2 * 4 * 64 * 4;    // full[half][2], empty[half][2]
  static constexpr int kBytes = kBars + 8 * 8;
};
static_assert(M9Smem::kBytes <= 227 * 1024, "M9 shared memory");

template <int ID>
__device__ __forceinline__ void nb_sync() {
  asm volatile("bar.sync %0, 256;" ::"n"(ID) : "memory");
}
template <int ID>
__device__ __forceinline__ void nb_arrive() {
  asm volatile("bar.arrive %0, 256;" ::"n"(ID) : "memory");
}
__device__ __forceinline__ uint32_t hmul2_u32(uint32_t a, uint32_t b) {
  uint32_t r;
  asm("mul.rn.f16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
// The accumulator times a per-candidate ratio (the table's row `which`): 32 FMUL.
__device__ __forceinline__ void m9_horner_step(float (&acc)[32], const float* row, int q4) {
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const float2 r = *reinterpret_cast<const float2*>(row + 8 * i + 2 * q4);
    acc[4 * i] *= r.x;
    acc[4 * i + 1] *= r.y;
    acc[4 * i + 2] *= r.x;
    acc[4 * i + 3] *= r.y;
  }
}

// q̂ and both tiles from global memory (core layout), the table's ratios and g all 1.
__device__ __forceinline__ void m9_fill(uint8_t* sQ, uint8_t* sT, float* tab, const __half* Q, const __half* K,
                                        int tid) {
  to_cores<64>(sQ, Q, 512, tid, 384);
  to_cores<64>(sT, K, 512, tid, 384);
  to_cores<64>(sT + kM9Tile, K, 512, tid, 384);
  for (int i = tid; i < 2 * 4 * 64; i += 384) tab[i] = 1.0f;
}

// A warpgroup's two m64n128 accumulators (dims 0-255 of `o_out`'s rows of 512).
__device__ __forceinline__ void m9_store_o(const float (&o)[2][64], float* o_out, int t) {
#pragma unroll
  for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
    for (int e = 0; e < 64; ++e) {
      int row, col;
      frag_rc(t, e, row, col);
      o_out[row * 512 + 128 * t2 + col] = o[t2][e];
    }
}

// The wrong results of an M9-shaped run: the last block's scores against Q . K^T, and O
// (every block's values, U = 1) against nblocks x K's column sums, all exact.
static int m9_wrong(const float* dacc, const float* dO, int blocks, int nblocks, const std::vector<float>& fQ,
                    const std::vector<float>& fK) {
  std::vector<float> acc(64 * 64), o(size_t(blocks) * 64 * 512);
  CK(cudaMemcpy(acc.data(), dacc, acc.size() * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(o.data(), dO, o.size() * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int h = 0; h < 64; ++h)
    for (int c = 0; c < 64; ++c) {
      double r = 0;
      for (int d = 0; d < 512; ++d) r += fQ[h * 512 + d] * fK[c * 512 + d];
      bad += acc[h * 64 + c] != float(r);
    }
  std::vector<double> colsum(512, 0.0);
  for (int c = 0; c < 64; ++c)
    for (int d = 0; d < 512; ++d) colsum[d] += fK[c * 512 + d];
  for (size_t i = 0; i < o.size(); ++i) bad += o[i] != float(nblocks * colsum[i % 512]);
  return bad;
}
// The median CTA's cycles per block.
static double m9_cycles_per_block(const long long* dcycles, int blocks, int nblocks) {
  std::vector<long long> hc(blocks);
  CK(cudaMemcpy(hc.data(), dcycles, blocks * 8, cudaMemcpyDeviceToHost));
  return median(std::vector<double>(hc.begin(), hc.end())) / nblocks;
}
