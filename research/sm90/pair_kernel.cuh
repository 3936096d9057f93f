// The dims-pair kernel (lab; research/anchors.md 5.2, "design C"): 33-128 heads, a cluster of
// two CTAs per (token, split, group of 64 heads). CTA r of the pair owns dims 256 r .. 256 r
// + 255 (value tiles 2 r, 2 r + 1): it gathers, converts, scores and accumulates only its
// half. Inside a CTA the two consumer warpgroups take alternate blocks, each with its own
// fp16 tile, O [64 heads x 256 dims], running maximum, sums and exponents: two independent
// streams that share nothing but the tensor pipe (one's MMAs run under the other's scalar
// work), merged once at the end through shared memory.
//
// Per 64-candidate block, warpgroup w of CTA r:
//  1. converts its 256 dims of the block's codes into its fp16 tile, and the candidates'
//     scales into its table (warpgroup-local barrier);
//  2. scores all 64 candidates on its half: 16 m64n64k16 (q̂'s half and the tile, both
//     from shared memory), one accumulator per tile, folded exactly into a partial sum
//     x_r = acc_2r s_2r 2^-E_c + acc_2r+1 s_2r+1 2^-E_c;
//  3. sends x_r (16 KB) into the peer's receive buffer of warpgroup w (st.async with the
//     peer's mbarrier completing the bytes), waits for the peer's x_(1-r), frees its own
//     receive buffer on the peer (remote arrive), and forms x = x_0 + x_1 (the same order,
//     so the same bits, in both CTAs);
//  4. runs the softmax over all 64 candidates (the same in both CTAs), the bounds and
//     exponents of its two tiles, U_t = p s_t 2^-F_t in registers;
//  5. accumulates O_t += U_t . V_t (8 m64n128k16, A from registers).
// The producer warpgroup's 128 threads gather each row's own 256 code bytes and its 16
// scale bytes with 16-byte cp.async (inactive rows: zero fill, nothing read) into a 3-stage
// ring of 272-byte rows; completion by cp.async.mbarrier.arrive.noinc.
// Numerics as the heads-major kernel's (heads_major_kernel.cuh), except that the four tile
// terms are summed as (t0 + t1) + (t2 + t3) and that the two streams are merged as the
// split combine merges splits.

#pragma once

#include "ours/sm90/heads_major_kernel.cuh"

namespace jax_glm_nope::sm90 {

constexpr int kPrStages = 3;
constexpr int kPrRowBytes = 272;  // own 256 code bytes, then the 16 scale bytes
static_assert((kPrRowBytes / 4) % 32 == 4, "row stride must step the banks by 16 bytes");
constexpr int kPrThreads = 3 * 128;
constexpr int kPrXchgBytes = kBlockRows * kHmHeads * 4;  // a warpgroup's partial scores: 16 KB

struct PrSmem {
  static constexpr int kHeadsPad = kHmHeads;
  static constexpr int kStage = kBlockRows * kPrRowBytes;
  static constexpr int kRows = 0;                                // the row ring
  static constexpr int kQ = kRows + kPrStages * kStage;          // q̂ [64][512], core_offset<64>
  static constexpr int kTileBytes = kBlockRows * 256 * 2;        // [64 candidates][256 dims] fp16
  static constexpr int kTile = kQ + kHmHeads * L::kHeadDim * 2;  // [wg] tiles
  static constexpr int kRecv = kTile + 2 * kTileBytes;           // [wg] received partial scores
  // Per warpgroup: the block's scales [64] float4, exponents E_c (or kInactive) [64] int,
  // max |s_t| of its own two tiles per half of the candidates [2][2].
  static constexpr int kTabBytes = kBlockRows * 16 + kBlockRows * 4 + 4 * 4;
  static constexpr int kTab = kRecv + 2 * kPrXchgBytes;
  // Per consumer thread [word][256]: l[2] (0-1), bounds [t2][hi] (2-5), exponents F (6-9).
  static constexpr int kStateWords = 10;
  static constexpr int kState = kTab + 2 * kTabBytes;
  static constexpr int kFlags = kState + kStateWords * 256 * 4;
  static constexpr int kFactor = kFlags + kPrStages * kBlockRows * 4;
  static constexpr int kBad = kFactor + 2 * kHeadsPad * 4;
  static constexpr int kBars = (kBad + kHeadsPad * 4 + 16 + 15) / 16 * 16;
  // full[NS], empty[NS], recv_full[2], peer_free[2]
  static constexpr int kBytes = kBars + (2 * kPrStages + 4) * 8;
  static_assert(kBytes <= 227 * 1024, "shared memory");
  // The merge: warpgroup 1's normalised values [64 float2][128 threads] over the tiles,
  // its lse [2][128] over the receive buffers.
  static_assert(64 * 128 * 8 <= 2 * kTileBytes, "merge buffer");
};

namespace ptx {
__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
// Every thread of both CTAs: arrive (release), then wait (acquire).
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ uint32_t mapa(uint32_t addr, uint32_t rank) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}
// (the default semantics, release at CTA scope, as CUTLASS's ClusterBarrier: release at
// cluster scope costs a MEMBAR.ALL.GPU per arrive, run 35's profile)
__device__ __forceinline__ void remote_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(bar) : "memory");
}
// 16 bytes into the peer's shared memory, completing them on the peer's mbarrier.
__device__ __forceinline__ void st_async16(uint32_t dst, float4 v, uint32_t bar) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];" ::"r"(dst),
               "r"(__float_as_uint(v.x)), "r"(__float_as_uint(v.y)), "r"(__float_as_uint(v.z)),
               "r"(__float_as_uint(v.w)), "r"(bar)
               : "memory");
}
// 16 bytes global -> shared; src_bytes 0 writes zeros and reads nothing.
__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src, uint32_t src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(src_bytes)
               : "memory");
}
// The mbarrier's arrival once this thread's cp.asyncs so far have landed (counted in its
// expected arrivals).
__device__ __forceinline__ void cp_async_arrive_noinc(uint64_t* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(smem_u32(bar)) : "memory");
}
}  // namespace ptx

// D (+)= A . B, m64n64k16: A (64 heads x 16 dims) and B (64 candidates x 16 dims), both
// K-major from shared memory.
__device__ __forceinline__ void pr_scores(float (&d)[32], uint64_t a, uint64_t b, int accumulate) {
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.b32 p, %34, 0;\n"
      " wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
      "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,"
      "%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),
        "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]),
        "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]),
        "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(a), "l"(b), "r"(accumulate));
}

// The producer warpgroup (t = 0..127): thread t copies code chunk t % 16 of rows t / 16 + 8 i,
// and the threads of chunk 0 also those rows' scales and activity flags.
template <int NS>
__device__ __forceinline__ void pr_gather(const SparseMlaParams& p, int token, int c_begin, int c_stop,
                                          int nblocks, uint32_t rank, int t, uint8_t* ring, int* flags,
                                          uint64_t* full, uint64_t* empty) {
  const int32_t* idx_row = p.indices + int64_t(token) * p.topk;
  const int chunk = t & 15, row0 = t >> 4;
  const int src_off = 256 * int(rank) + 16 * chunk;
  const uint32_t ring_u32 = ptx::smem_u32(ring);
  for (int blk = 0; blk < nblocks; ++blk) {
    const int stage = blk % NS;
    int idx[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int j = c_begin + blk * kBlockRows + row0 + 8 * i;
      idx[i] = j < c_stop ? __ldg(idx_row + j) : -1;
    }
    ptx::mbar_wait(&empty[stage], ((blk / NS) & 1) ^ 1);
    const uint32_t base = ring_u32 + stage * PrSmem::kStage;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int row = row0 + 8 * i;
      const bool active = idx[i] >= 0 && int64_t(idx[i]) < p.num_slots;
      const uint8_t* src = p.pool + (active ? int64_t(idx[i]) * p.row_bytes : 0);
      const uint32_t n = active ? 16 : 0;
      ptx::cp_async16(base + row * kPrRowBytes + 16 * chunk, src + src_off, n);
      if (chunk == 0) {
        ptx::cp_async16(base + row * kPrRowBytes + 256, src + L::kScalesOffset, n);
        flags[stage * kBlockRows + row] = active;
      }
    }
    ptx::cp_async_arrive_noinc(&full[stage]);
    __syncwarp();
    if ((t & 31) == 0) ptx::mbar_arrive(&full[stage]);  // the flags (release)
  }
}

__global__ void __launch_bounds__(kPrThreads, 1) sparse_mla_pair_kernel(const SparseMlaParams p) {
  using S = PrSmem;
  constexpr int NS = kPrStages;
  extern __shared__ __align__(128) uint8_t smem[];
  const SmemView<S> sm(smem, NS);
  uint64_t* const recv_full = sm.empty + NS;  // [wg]: the peer's partial scores landed
  uint64_t* const peer_free = recv_full + 2;  // [wg]: the peer has read what we sent
  const uint32_t rank = ptx::cluster_rank(), peer = rank ^ 1;
  ptx::grid_dependency_wait();
  ptx::launch_dependents();
  // The pair's (token, split) and candidates.
  const int unit = int(blockIdx.x) >> 1;
  const int token = unit / p.num_splits, split = unit % p.num_splits;
  int len = p.topk_lens ? p.topk_lens[token] : p.topk;
  len = len < 0 ? 0 : (len > p.topk ? p.topk : len);
  const int c_begin = split * p.blocks_per_split * kBlockRows;
  const int c_stop = min(min(p.topk, c_begin + p.blocks_per_split * kBlockRows), len);
  const int nblocks = c_stop > c_begin ? (c_stop - c_begin + kBlockRows - 1) / kBlockRows : 0;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    for (int s = 0; s < NS; ++s) {
      ptx::mbar_init(&sm.full[s], 128 + 4);  // 128 noinc cp.async arrivals + 4 warps' flags
      ptx::mbar_init(&sm.empty[s], kConsumerWarps);
    }
    for (int w = 0; w < 2; ++w) {
      ptx::mbar_init(&recv_full[w], 1);
      ptx::mbar_init(&peer_free[w], kConsumerWarps);
    }
    *sm.bad_all = 0;
    ptx::fence_mbarrier_init();
  }
  ptx::cluster_sync();  // both CTAs' barriers exist before any remote access

  if (warp >= 2 * kConsumerWarps) {
    // ---------------- producer ----------------
    ptx::setmaxnreg_dec<kProducerRegs>();
    pr_gather<NS>(p, token, c_begin, c_stop, nblocks, rank, threadIdx.x - 256, sm.rows, sm.flags,
                  sm.full, sm.empty);
  } else {
    // ---------------- consumers ----------------
    ptx::setmaxnreg_inc<kConsumerRegs>();
    const int wg = __shfl_sync(~0u, warp / kConsumerWarps, 0);
    const int w = warp % kConsumerWarps;  // heads 16 w .. 16 w + 15 of every MMA
    const int tid = threadIdx.x % 128;
    const int g = lane >> 2;
    const int q4 = lane & 3;
    hm_prepare_q(p, token, warp, lane, sm.qhat, sm.qpre, sm.qpost, sm.bad_head);
    float pre[2], post[2];
#pragma unroll
    for (int hi = 0; hi < 2; ++hi) {
      pre[hi] = sm.qpre[16 * w + g + 8 * hi];
      post[hi] = sm.qpost[16 * w + g + 8 * hi];
    }
    float m_run[2] = {-INFINITY, -INFINITY};
    float* const st = reinterpret_cast<float*>(smem + S::kState) + threadIdx.x;
    int* const st_f = reinterpret_cast<int*>(st);
#pragma unroll
    for (int i = 0; i < 6; ++i) st[256 * i] = 0.0f;
#pragma unroll
    for (int i = 6; i < 10; ++i) st_f[256 * i] = -126;
    bool scale_bad = false;
    float o[2][64];  // own tile t2 (value tile 2 rank + t2): heads (g, g + 8), dims 128 t2 + 8 j + 2 q4 + {0, 1}
    zero_acc(o);
    uint8_t* const tile = smem + S::kTile + wg * S::kTileBytes;
    // q̂'s half of this CTA: dims 256 rank .. of the core layout are its bytes 32768 rank ..
    const uint64_t q_desc = ptx::smem_desc(sm.qhat + 32768 * rank, 1024, 128);
    const uint64_t k_desc = ptx::smem_desc(tile, 1024, 128);
    const uint64_t v_desc = ptx::smem_desc(tile, 128, 1024);
    uint8_t* const tab = smem + S::kTab + wg * S::kTabBytes;
    float4* const tab_s = reinterpret_cast<float4*>(tab);                      // [64]
    int* const tab_exp = reinterpret_cast<int*>(tab + kBlockRows * 16);         // [64]
    float* const tab_smax = reinterpret_cast<float*>(tab + kBlockRows * 20);    // [2][2]
    float4* const recv = reinterpret_cast<float4*>(smem + S::kRecv + wg * kPrXchgBytes);
    const uint32_t peer_recv = ptx::mapa(ptx::smem_u32(recv), peer);
    const uint32_t peer_recv_full = ptx::mapa(ptx::smem_u32(&recv_full[wg]), peer);
    const uint32_t peer_peer_free = ptx::mapa(ptx::smem_u32(&peer_free[wg]), peer);
    const int cr = (lane & 7) + 8 * ((tid >> 3) & 7);  // conversion: candidate cr, dims 16 (dq + 2 i)
    const int dq = tid >> 6;

    int round = 0;
    for (int b = wg; b < nblocks; b += 2, ++round) {
      const int stage = b % NS;
      ptx::consumer_sync(wg);  // (1) this warpgroup's previous value MMAs and table reads are done
      ptx::mbar_wait(&sm.full[stage], (b / NS) & 1);
      const uint8_t* rows = sm.rows + stage * S::kStage;
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const int d = 16 * (dq + 2 * i);
        uint4 lo, hi;
        e4m3x16_to_f16(*reinterpret_cast<const uint4*>(rows + cr * kPrRowBytes + d), lo, hi);
        *reinterpret_cast<uint4*>(tile + core_offset<64>(cr, d)) = lo;
        *reinterpret_cast<uint4*>(tile + core_offset<64>(cr, d + 8)) = hi;
      }
      if (w < 2) {  // lane = candidate 32 w + lane
        const int c = 32 * w + lane;
        const float4 s = *reinterpret_cast<const float4*>(rows + c * kPrRowBytes + 256);
        const float sv[4] = {fabsf(s.x), fabsf(s.y), fabsf(s.z), fabsf(s.w)};
        scale_bad |= !isfinite(s.x) || !isfinite(s.y) || !isfinite(s.z) || !isfinite(s.w);
        tab_s[c] = s;
        tab_exp[c] = sm.flags[stage * kBlockRows + c] != 0
                         ? exponent_bound(fmaxf(fmaxf(sv[0], sv[1]), fmaxf(sv[2], sv[3])))
                         : kInactive;
#pragma unroll
        for (int t2 = 0; t2 < 2; ++t2) {
          float mx = rank ? (t2 ? sv[3] : sv[2]) : (t2 ? sv[1] : sv[0]);
#pragma unroll
          for (int o_ = 1; o_ < 32; o_ *= 2) mx = fmaxf(mx, __shfl_xor_sync(~0u, mx, o_));
          if (lane == 0) tab_smax[2 * w + t2] = mx;
        }
      }
      __syncwarp();
      if (lane == 0) ptx::mbar_arrive(&sm.empty[stage]);  // this warp's reads of the stage are done
      ptx::fence_proxy_async();  // the tile is read by the MMAs through the async proxy
      ptx::consumer_sync(wg);    // (2) the tile and the table are complete

      // ---- partial scores over this CTA's 256 dims: one accumulator per tile ----
      float acc[2][32];
#pragma unroll
      for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
        for (int e = 0; e < 32; ++e) asm volatile("" : "=f"(acc[t2][e]));  // overwritten by s = 0
      ptx::wgmma_fence();
#pragma unroll
      for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
        for (int s = 0; s < 8; ++s) {
          const uint64_t off = uint64_t(((128 * t2 + 16 * s) * 128) >> 4);
          pr_scores(acc[t2], q_desc + off, k_desc + off, s > 0);
        }
      ptx::wgmma_commit();
      ptx::wgmma_wait<0>();
#pragma unroll
      for (int t2 = 0; t2 < 2; ++t2) ptx::fence_regs(acc[t2]);

      // ---- fold (e = 4 j + 2 hi + k: candidate 8 j + 2 q4 + k, head row hi) ----
      float x[32];
      float up[16];
      uint32_t act = 0;  // bit 2 j + k
#pragma unroll
      for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int k = 0; k < 2; ++k) {
          const int c = 8 * j + 2 * q4 + k;
          const float2 s = reinterpret_cast<const float2*>(tab_s + c)[rank];
          float down;
          const bool a = hm_candidate(tab_exp[c], down, up[2 * j + k]);
          act |= uint32_t(a) << (2 * j + k);
          const float s0 = s.x * down, s1 = s.y * down;
#pragma unroll
          for (int hi = 0; hi < 2; ++hi) {
            const int e = 4 * j + 2 * hi + k;
            x[e] = fmaf(acc[1][e], s1, acc[0][e] * s0);
          }
        }

      // ---- exchange the partial sums with the peer ----
      if (tid == 0) ptx::mbar_arrive_expect_tx(&recv_full[wg], kPrXchgBytes);
      if (round > 0) ptx::mbar_wait(&peer_free[wg], (round - 1) & 1);
#pragma unroll
      for (int v = 0; v < 8; ++v)
        ptx::st_async16(peer_recv + uint32_t((v * 128 + tid) * 16),
                        make_float4(x[4 * v], x[4 * v + 1], x[4 * v + 2], x[4 * v + 3]), peer_recv_full);
      ptx::mbar_wait(&recv_full[wg], round & 1);  // (CTA scope, as a TMA multicast's consumer)
#pragma unroll
      for (int v = 0; v < 8; ++v) {
        const float4 y = recv[v * 128 + tid];
        const float yv[4] = {y.x, y.y, y.z, y.w};
#pragma unroll
        for (int i = 0; i < 4; ++i) x[4 * v + i] = rank == 0 ? x[4 * v + i] + yv[i] : yv[i] + x[4 * v + i];
      }
      __syncwarp();
      if (lane == 0) ptx::remote_arrive(peer_peer_free);

      // ---- softmax over the block's 64 candidates ----
      float mx[2] = {-INFINITY, -INFINITY};
#pragma unroll
      for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int k = 0; k < 2; ++k)
#pragma unroll
          for (int hi = 0; hi < 2; ++hi) {
            const int e = 4 * j + 2 * hi + k;
            x[e] = hm_score(x[e], pre[hi], up[2 * j + k], post[hi], (act >> (2 * j + k)) & 1);
            mx[hi] = fmaxf(mx[hi], x[e]);
          }
      float corr[2], psum[2], bmax[2];
#pragma unroll
      for (int hi = 0; hi < 2; ++hi) {
        mx[hi] = fmaxf(mx[hi], __shfl_xor_sync(~0u, mx[hi], 1));
        mx[hi] = fmaxf(mx[hi], __shfl_xor_sync(~0u, mx[hi], 2));
        bmax[hi] = mx[hi];
        const float m_old = m_run[hi];
        const float m = bmax[hi] > m_old + kLazyMax ? bmax[hi] : m_old;  // lazy_max
        corr[hi] = m_old == m ? 1.0f : ptx::exp2_approx(m_old - m);
        m_run[hi] = m;
        psum[hi] = hm_probabilities(x, act, hi, m);
      }
      // Per (own tile, head): the bound of p |s_t|, its exponent F, O's rescale.
      float down[2][2];
#pragma unroll
      for (int t2 = 0; t2 < 2; ++t2) {
        const float smax = fmaxf(tab_smax[t2], tab_smax[2 + t2]);
#pragma unroll
        for (int hi = 0; hi < 2; ++hi) {
          const float pm = bmax[hi] == m_run[hi] ? 1.0f : ptx::exp2_approx(bmax[hi] - m_run[hi]);
          float* const bw = st + 256 * (2 + 2 * t2 + hi);
          int* const fw = st_f + 256 * (6 + 2 * t2 + hi);
          const float bnd = fmaxf(*bw * corr[hi], pm * smax);
          const int f_new = exponent_bound(bnd);
          const int d = *fw - f_new;
          *bw = bnd;
          *fw = f_new;
          down[t2][hi] = pow2(-f_new);
          const float factor = corr[hi] * pow2(d / 2) * pow2(d - d / 2);
          if (factor != 1.0f) {
#pragma unroll
            for (int j = 0; j < 16; ++j) {
              o[t2][4 * j + 2 * hi] *= factor;
              o[t2][4 * j + 2 * hi + 1] *= factor;
            }
          }
        }
      }
#pragma unroll
      for (int hi = 0; hi < 2; ++hi) st[256 * hi] = __fadd_rn(__fmul_rn(st[256 * hi], corr[hi]), psum[hi]);
      // U_t = p s_t 2^-F as the value MMAs' A fragments: [t2][kk = candidates 16 kk ..][4]
      uint32_t a[2][4][4];
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const int c = 8 * j + 2 * q4;
        const float2 s0 = reinterpret_cast<const float2*>(tab_s + c)[rank];
        const float2 s1 = reinterpret_cast<const float2*>(tab_s + c + 1)[rank];
#pragma unroll
        for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
          for (int hi = 0; hi < 2; ++hi) {
            const float dn = down[t2][hi];
            a[t2][j / 2][2 * (j % 2) + hi] = pack_f16x2((x[4 * j + 2 * hi] * (t2 ? s0.y : s0.x)) * dn,
                                                        (x[4 * j + 2 * hi + 1] * (t2 ? s1.y : s1.x)) * dn);
          }
      }
      // ---- values: O_t [64 heads, 128 dims] += U_t . V_t, all 64 candidates ----
      ptx::wgmma_fence();
#pragma unroll
      for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
        for (int kk = 0; kk < 4; ++kk)
          HmWgmma::values(o[t2], a[t2][kk], v_desc + uint64_t(core_offset<64>(16 * kk, 128 * t2) >> 4));
      ptx::wgmma_commit();
      ptx::wgmma_wait<0>();
#pragma unroll
      for (int t2 = 0; t2 < 2; ++t2) ptx::fence_regs(o[t2]);
    }

    // ---- epilogue: each stream's normalised values, then warpgroup 1's merged into 0's ----
    if (__any_sync(~0u, scale_bad) && lane == 0) atomicOr(sm.bad_all, 1);
    ptx::all_consumers_sync<2>();  // both streams done: the tiles are free, bad_all is final
    const bool any_bad_scale = *sm.bad_all != 0;
    const int h0 = hm_first_head();
    const int nh = min(kHmHeads, p.heads - h0);
    float2* const mbuf = reinterpret_cast<float2*>(smem + S::kTile);  // [64][128]
    float* const mlse = reinterpret_cast<float*>(smem + S::kRecv);     // [2][128]
    float lse2[2];
    float v[2][2][16][2];  // [hi][t2][j][pair]
#pragma unroll
    for (int hi = 0; hi < 2; ++hi) {
      const int h = 16 * w + g + 8 * hi;
      const float l = st[256 * hi];
      const float rl = l > 0.0f ? __fdiv_rn(1.0f, l) : 0.0f;
      const bool bad = isnan(l) || (l > 0.0f && (sm.bad_head[h] != 0 || any_bad_scale));
      lse2[hi] = bad ? __int_as_float(0x7fffffff) : (l > 0.0f ? m_run[hi] + log2f(l) : -INFINITY);
#pragma unroll
      for (int t2 = 0; t2 < 2; ++t2) {
        const float upf = pow2(st_f[256 * (6 + 2 * t2 + hi)]);
#pragma unroll
        for (int j = 0; j < 16; ++j) {
          v[hi][t2][j][0] = (o[t2][4 * j + 2 * hi] * rl) * upf;
          v[hi][t2][j][1] = (o[t2][4 * j + 2 * hi + 1] * rl) * upf;
        }
      }
    }
    if (wg == 1) {
#pragma unroll
      for (int hi = 0; hi < 2; ++hi) {
        mlse[hi * 128 + tid] = lse2[hi];
#pragma unroll
        for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
          for (int j = 0; j < 16; ++j)
            mbuf[((t2 * 16 + j) * 2 + hi) * 128 + tid] = make_float2(v[hi][t2][j][0], v[hi][t2][j][1]);
      }
    }
    ptx::all_consumers_sync<2>();
    if (wg == 0) {
#pragma unroll
      for (int hi = 0; hi < 2; ++hi) {
        const int h = 16 * w + g + 8 * hi;
        if (h >= nh) continue;
        const float la = lse2[hi], lb = mlse[hi * 128 + tid];
        const bool bad = isnan(la) || isnan(lb);
        const float m = fmaxf(la, lb);
        float ka = 0.0f, kb = 0.0f, lse = -INFINITY;
        if (!bad && m != -INFINITY) {
          const float wa = la == m ? 1.0f : ptx::exp2_approx(la - m);
          const float wb = lb == m ? 1.0f : ptx::exp2_approx(lb - m);
          const float total = wa + wb;  // >= 1
          ka = wa / total;
          kb = wb / total;
          lse = m + log2f(total);
        }
#pragma unroll
        for (int t2 = 0; t2 < 2; ++t2) {
          float r[16][2];
#pragma unroll
          for (int j = 0; j < 16; ++j) {
            const float2 ob = mbuf[((t2 * 16 + j) * 2 + hi) * 128 + tid];
            r[j][0] = kb == 0.0f ? v[hi][t2][j][0] * ka : v[hi][t2][j][0] * ka + ob.x * kb;
            r[j][1] = kb == 0.0f ? v[hi][t2][j][1] * ka : v[hi][t2][j][1] * ka + ob.y * kb;
          }
          store_head_at<16>(p, token, split, h0 + h, 256 * int(rank) + 128 * t2, 8, q4, r, 1.0f, lse, bad,
                            rank == 0 && t2 == 0 && q4 == 0);
        }
      }
    }
  }
  ptx::cluster_sync();  // no CTA leaves while its peer may still write into it or arrive on it
}

// Splits for the pair kernel: as many as keep tokens x splits x 2 x head groups CTAs within
// one wave, with at least two blocks per split (one per stream) where the candidates allow.
__host__ __device__ constexpr int pair_num_splits(int tokens, int heads, int topk, int sm_count) {
  const int64_t blocks = num_blocks(topk);
  const int64_t target = int64_t(sm_count > 0 ? sm_count : 1) / (2 * head_groups(heads));
  int64_t splits = target / (tokens > 0 ? tokens : 1);
  const int64_t most = blocks / 2 > 0 ? blocks / 2 : 1;
  splits = splits < 1 ? 1 : (splits > most ? most : splits);
  return splits_of(topk, blocks_per_split_of(topk, int(splits)));
}

// Launch: grid (2 x tokens x splits, head groups) in clusters of 2, then the split combine.
inline cudaError_t launch_pair(const SparseMlaParams& p, cudaStream_t stream, bool pdl) {
  cudaError_t status = cudaFuncSetAttribute(sparse_mla_pair_kernel,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize, PrSmem::kBytes);
  if (status != cudaSuccess) return status;
  cudaLaunchAttribute attrs[2];
  attrs[0].id = cudaLaunchAttributeClusterDimension;
  attrs[0].val.clusterDim.x = 2;
  attrs[0].val.clusterDim.y = 1;
  attrs[0].val.clusterDim.z = 1;
  attrs[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attrs[1].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(2 * int64_t(p.tokens) * p.num_splits),
                        (p.heads + kHmHeads - 1) / kHmHeads);
  config.blockDim = dim3(kPrThreads);
  config.dynamicSmemBytes = PrSmem::kBytes;
  config.stream = stream;
  config.attrs = attrs;
  config.numAttrs = pdl ? 2 : 1;
  status = cudaLaunchKernelEx(&config, sparse_mla_pair_kernel, p);
  if (status != cudaSuccess || p.num_splits == 1) return status;
  config.gridDim = dim3(p.tokens, p.heads);
  config.blockDim = dim3(128);
  config.dynamicSmemBytes = 0;
  config.attrs = attrs + 1;
  config.numAttrs = pdl ? 1 : 0;
  return cudaLaunchKernelEx(&config, combine_kernel, p);
}

}  // namespace jax_glm_nope::sm90
