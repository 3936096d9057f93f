// What the kernels share: the producers' gather, q in fp16, the result store, the
// shared-memory layouts and what every CTA starts with.
// Part of our sm_90a sparse-MLA kernels (sparse_mla_kernel.cuh is the entry).
#pragma once

#include "ours/sm90/device_helpers.cuh"

namespace jax_glm_nope::sm90 {

// ---------------------------------------------------------------------------
// The producers: two warps per pipeline, warp `half` gathering rows 32 half .. 32 half
// + 31 of each block (lane = row; the bulk copies of one warp issue one after another,
// so two warps double the rows in flight per cycle). Per block: the indices (one block
// ahead), activity flags, a zero row for each inactive candidate and one bulk copy per
// active row into the stage, once the consumers released it; each warp arrives on the
// stage's full barrier with its own byte count (the barrier expects kProducerWarps).

constexpr int kProducerWarps = 2;

// Blocks first, first + step, ... (the warp-private kernel's two groups alternate).
template <int NS>
__device__ __forceinline__ void gather_rows(const SparseMlaParams& p, int token, int c_begin,
                                            int c_stop, int nblocks, int half, int lane,
                                            uint8_t* rows_base, int* flags, uint64_t* full,
                                            uint64_t* empty, int first = 0, int step = 1) {
  const int32_t* idx_row = p.indices + int64_t(token) * p.topk;
  const int r = 32 * half + lane;  // this lane's row of every block
  auto load = [&](int blk) {
    const int j = c_begin + blk * kBlockRows + r;
    return j < c_stop ? __ldg(idx_row + j) : -1;
  };
  int next = first < nblocks ? load(first) : -1;
  for (int blk = first; blk < nblocks; blk += step) {
    const int stage = blk % NS;
    const int idx = next;
    if (blk + step < nblocks) next = load(blk + step);  // one block of index latency ahead
    ptx::mbar_wait(&empty[stage], ((blk / NS) & 1) ^ 1);
    const bool active = idx >= 0 && int64_t(idx) < p.num_slots;
    uint8_t* row = rows_base + (stage * kBlockRows + r) * kRowBytes;
    // Inactive rows become zero rows: 0 * NaN in the value MMA cannot happen, and
    // the slot an inactive index names is never read.
    if (!active)
      for (int v = 0; v < kRowBytes / 16; ++v) reinterpret_cast<uint4*>(row)[v] = make_uint4(0, 0, 0, 0);
    flags[stage * kBlockRows + r] = active;
    const uint32_t n = __popc(__ballot_sync(~0u, active));
    __syncwarp();
    if (lane == 0) ptx::mbar_arrive_expect_tx(&full[stage], n * kRowBytes);
    __syncwarp();
    if (active) ptx::bulk_copy(row, p.pool + int64_t(idx) * p.row_bytes, kRowBytes, &full[stage]);
  }
}

// ---------------------------------------------------------------------------
// wgmma B operands in shared memory (K-major, no swizzle): element (n, k) of an N x K
// matrix, N = NP, in 8x8 core matrices of 16-byte rows (8 k), cores along K NP x 16
// bytes apart (the descriptor's LBO) and along N 128 bytes apart (SBO).
template <int NP>
__host__ __device__ constexpr int core_offset(int n, int k) {
  return ((k / 8) * (NP / 8) + n / 8) * 128 + (n % 8) * 16 + (k % 8) * 2;
}
// q̂ as the score MMA's B operand: the k order inside each 16-dim step is the one the
// codes' A fragments come in (dims 4q + 2h + e -> k 8h + 2q + e, see the score MMA).
// Byte offset of the pair (dims d, d + 1), d even, of head n.
template <int NP>
__host__ __device__ constexpr int q_core_offset(int n, int d) {
  return core_offset<NP>(n, 16 * (d / 16) + 8 * ((d / 2) % 2) + 2 * ((d % 16) / 4));
}

// ---------------------------------------------------------------------------
// q -> fp16 in shared memory, one padded row per head, by the kWarps consumer warps.

// kCore: the candidates-major kernel's layout instead (q_core_offset); with
// kNatural, core_offset (the heads-major kernel's A operand). The CTA's heads are
// h0 .. h0 + nheads - 1 of the token (all of them when nheads < 0).
template <int HP, int kWarps, bool kCore = false, bool kNatural = false>
__device__ __forceinline__ void prepare_q(const SparseMlaParams& p, int token, int warp, int lane,
                                          uint8_t* qhat, float* qpre, float* qpost,
                                          int* bad_head, int h0 = 0, int nheads = -1) {
  if (nheads < 0) nheads = p.heads;
  // q -> fp16 scaled by 2^-e1 per head (e1 from the exponent of max|q_h|, clamped so
  // the factor is a normal float); the factor goes back into the score factor.
  for (int h = warp; h < HP; h += kWarps) {
    float v[16];
    if (h < nheads) {
      const __nv_bfloat16* src = p.q + (int64_t(token) * p.heads + h0 + h) * L::kHeadDim;
      const uint4 lo = *reinterpret_cast<const uint4*>(src + lane * 8);
      const uint4 hi = *reinterpret_cast<const uint4*>(src + 256 + lane * 8);
      const uint32_t words[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        v[2 * i] = __uint_as_float(words[i] << 16);
        v[2 * i + 1] = __uint_as_float(words[i] & 0xffff0000u);
      }
    } else {
#pragma unroll
      for (int i = 0; i < 16; ++i) v[i] = 0.0f;
    }
    float amax = 0.0f;
    bool finite = true;
#pragma unroll
    for (int i = 0; i < 16; ++i) {
      amax = fmaxf(amax, fabsf(v[i]));
      finite = finite && isfinite(v[i]);
    }
#pragma unroll
    for (int o = 16; o > 0; o /= 2) amax = fmaxf(amax, __shfl_xor_sync(~0u, amax, o));
    const bool bad = __any_sync(~0u, !finite);
    const int e1 = amax == 0.0f ? 0 : exponent_bound(amax);  // max|q| < 2^e1
    const float down = pow2(-e1);
    uint32_t packed[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) packed[i] = pack_f16x2(v[2 * i] * down, v[2 * i + 1] * down);
    if constexpr (kCore) {
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const int d = (i / 4) * 256 + lane * 8 + 2 * (i % 4);  // dims d, d + 1
        *reinterpret_cast<uint32_t*>(qhat + (kNatural ? core_offset<HP>(h, d) : q_core_offset<HP>(h, d))) =
            packed[i];
      }
    } else {
      uint8_t* dst = qhat + h * kQRowBytes;
      *reinterpret_cast<uint4*>(dst + lane * 16) = make_uint4(packed[0], packed[1], packed[2], packed[3]);
      *reinterpret_cast<uint4*>(dst + 512 + lane * 16) =
          make_uint4(packed[4], packed[5], packed[6], packed[7]);
    }
    if (lane == 0) {
      // sm_scale * log2(e) * 2^e1, clamped: a finite factor keeps 0 * factor a zero.
      const float f = clamp_finite(ldexpf(p.sm_scale * kLog2e, e1));
      qpre[h] = fabsf(f) <= 1.0f ? f : 1.0f;
      qpost[h] = fabsf(f) <= 1.0f ? 1.0f : f;
      bad_head[h] = bad;
    }
  }
}

// ---------------------------------------------------------------------------
// One head's result for M-tiles mt0..mt0 + NMT - 1 of value tile w: v[mt] = the values
// at dims 128 w + 16 (mt0 + mt) + 2 g, +1, in units of 2^f (up = 2^f), lse2 in log2
// units. A split writes its partial (fp32, log2), a single split the output (bf16,
// natural log); lse by the thread of tile 0, mt0 = 0, g = 0. A bad head gets NaN.
// store_head_at: the same with the dims of v[mt] at dim0 + dim_step mt + 2 g, +1, and
// the lse written by the thread that has `writes_lse`.
template <int NMT>
__device__ __forceinline__ void store_head_at(const SparseMlaParams& p, int token, int split,
                                              int h, int dim0, int dim_step, int g,
                                              const float (&v)[NMT][2], float up, float lse2,
                                              bool bad, bool writes_lse) {
  if (bad) lse2 = __int_as_float(0x7fffffff);
  const bool partial = p.num_splits > 1;
  const int64_t row = partial ? (int64_t(token) * p.num_splits + split) * p.heads + h
                              : int64_t(token) * p.heads + h;
  if (partial) {
    float* dst = p.part_out + row * L::kHeadDim;
#pragma unroll
    for (int mt = 0; mt < NMT; ++mt) {
      const int d = dim0 + dim_step * mt + 2 * g;
      const float2 x = bad ? make_float2(lse2, lse2) : make_float2(v[mt][0] * up, v[mt][1] * up);
      *reinterpret_cast<float2*>(dst + d) = x;
    }
    if (writes_lse) p.part_lse[row] = lse2;
  } else {
    __nv_bfloat16* dst = p.out + row * L::kHeadDim;
#pragma unroll
    for (int mt = 0; mt < NMT; ++mt) {
      const int d = dim0 + dim_step * mt + 2 * g;
      const float2 x = bad ? make_float2(lse2, lse2) : make_float2(v[mt][0] * up, v[mt][1] * up);
      *reinterpret_cast<__nv_bfloat162*>(dst + d) = __floats2bfloat162_rn(x.x, x.y);
    }
    if (writes_lse) p.lse[row] = lse2 * kLn2;
  }
}

template <int NMT>
__device__ __forceinline__ void store_head(const SparseMlaParams& p, int token, int split, int h,
                                           int w, int mt0, int g, const float (&v)[NMT][2],
                                           float up, float lse2, bool bad) {
  store_head_at<NMT>(p, token, split, h, L::kTile * w + 16 * mt0, 16, g, v, up, lse2, bad,
                     w == 0 && mt0 == 0 && g == 0);
}

// The running maximum of the candidates-major and heads-major kernels moves lazily: a
// block's maximum replaces m only when it exceeds m by more than kLazyMax (log2 units), so
// that O, the sums and the bounds need a rescale in few blocks; probabilities stay
// <= 2^kLazyMax.
constexpr float kLazyMax = 8.0f;

// ---------------------------------------------------------------------------
// Shared memory.

template <int NT, int NS>
struct Smem {
  static constexpr int kHeadsPad = NT * 8;
  static constexpr int kGroups = consumer_groups(NT);
  static constexpr int kRows = 0;
  static constexpr int kQ = kRows + NS * kBlockRows * kRowBytes;
  // Per consumer group (stride kGroup): probabilities, block maxima and sums, and the
  // per-(tile, head) bound and exponent.
  static constexpr int kP = kQ + kHeadsPad * kQRowBytes;
  static constexpr int kRedMax = kP + kHeadsPad * kPRowFloats * 4;
  static constexpr int kRedSum = kRedMax + kConsumerWarps * kHeadsPad * 4;
  static constexpr int kBound = kRedSum + kConsumerWarps * kHeadsPad * 4;
  static constexpr int kGroup = kBound + 2 * kConsumerWarps * kHeadsPad * 4 - kP;
  static constexpr int kFlags = kP + kGroups * kGroup;
  static constexpr int kFactor = kFlags + NS * kBlockRows * 4;
  static constexpr int kBad = kFactor + 2 * kHeadsPad * 4;
  static constexpr int kBars = (kBad + kHeadsPad * 4 + 16 + 15) / 16 * 16;
  static constexpr int kBytes = kBars + 2 * NS * 8;
  // The group merge reuses the row ring once every block is consumed: per consumer
  // thread of group 1, its 32 NT accumulators and 4 NT softmax values.
  static constexpr int kXchgFloats = 36 * NT;
  static_assert(kGroups == 1 || kXchgFloats * kConsumerWarps * 32 * 4 <= NS * kBlockRows * kRowBytes,
                "the merge buffer must fit in the row ring");
};

// Stages per head-tile count: the most that keep ctas_per_sm CTAs resident
// (2 x ~113 KB, or 1 x ~180 KB).
template <int NT>
constexpr int stages_for() {
  return NT == 1 ? 3 : (NT == 2 ? 2 : 4);
}

// ---------------------------------------------------------------------------
// What every attention kernel's CTA starts with.

// The shared-memory regions common to the kernels' layouts S (Smem).
template <typename S>
struct SmemView {
  uint8_t* rows;   // the NS-stage row ring
  uint8_t* qhat;   // q in fp16, one padded row per head
  int* flags;      // activity of each staged row
  // The per-head score factor f = sm_scale log2(e) 2^e1, applied before the tile scale
  // when |f| <= 1 (pre) and after the tile sum otherwise (post), so that no product
  // overflows unless the score itself does.
  float* qpre;
  float* qpost;
  int* bad_head;   // per head: a NaN seen (query or accumulator)
  int* bad_all;    // a non-finite scale in an active row
  uint64_t* full;  // per stage: rows landed
  uint64_t* empty; // per stage: consumers done
  __device__ explicit SmemView(uint8_t* smem, int stages)
      : rows(smem + S::kRows),
        qhat(smem + S::kQ),
        flags(reinterpret_cast<int*>(smem + S::kFlags)),
        qpre(reinterpret_cast<float*>(smem + S::kFactor)),
        qpost(qpre + S::kHeadsPad),
        bad_head(reinterpret_cast<int*>(smem + S::kBad)),
        bad_all(bad_head + S::kHeadsPad),
        full(reinterpret_cast<uint64_t*>(smem + S::kBars)),
        empty(full + stages) {}
};

// The candidates of this CTA's split: [c_begin, c_stop) active-eligible, in nblocks blocks.
struct SplitRange {
  int token, split, c_begin, c_stop, nblocks;
  __device__ explicit SplitRange(const SparseMlaParams& p) {
    token = blockIdx.x / p.num_splits;
    split = blockIdx.x % p.num_splits;
    int len = p.topk_lens ? p.topk_lens[token] : p.topk;
    len = len < 0 ? 0 : (len > p.topk ? p.topk : len);
    c_begin = split * p.blocks_per_split * kBlockRows;
    const int c_end = min(p.topk, c_begin + p.blocks_per_split * kBlockRows);
    c_stop = min(c_end, len);  // candidates at or past c_stop are inactive
    nblocks = c_stop > c_begin ? (c_stop - c_begin + kBlockRows - 1) / kBlockRows : 0;
  }
};

// Thread 0: the stage barriers (the producer warps arrive on full, `readers` consumer
// warps on empty) and the shared flag.
template <int NS>
__device__ __forceinline__ void init_barriers(uint64_t* full, uint64_t* empty, int readers,
                                              int* bad_all) {
  if (threadIdx.x == 0) {
    for (int s = 0; s < NS; ++s) {
      ptx::mbar_init(&full[s], kProducerWarps);
      ptx::mbar_init(&empty[s], readers);
    }
    *bad_all = 0;
  }
  __syncthreads();
}

// The start of a CTA whose producer warps only gather (every kernel but the heads-major
// one, whose spare producer warp also brings q): PDL (no global access before the previous
// grid is done; the combine may be scheduled once every CTA is here), the split's range,
// the ring's barriers (kConsumerWarps warps free a stage), and in a producer warp the
// split's rows. `consumer` is false there (the kernel returns); a consumer warp gets its
// registers raised where NWG == 2.
struct CtaStart {
  SplitRange range;
  bool consumer;
};
template <int NS, int NWG, class View>
__device__ __forceinline__ CtaStart start_cta(const SparseMlaParams& p, const View& sm) {
  ptx::grid_dependency_wait();
  ptx::launch_dependents();
  const SplitRange r(p);
  init_barriers<NS>(sm.full, sm.empty, kConsumerWarps, sm.bad_all);
  const int warp = threadIdx.x / 32;
  if (warp < NWG * kConsumerWarps) {
    if constexpr (NWG == 2) ptx::setmaxnreg_inc<kConsumerRegs>();
    return {r, true};
  }
  if constexpr (NWG == 2) ptx::setmaxnreg_dec<kProducerRegs>();  // the whole producer warpgroup
  const int half = warp - NWG * kConsumerWarps;
  if (half < kProducerWarps)
    gather_rows<NS>(p, r.token, r.c_begin, r.c_stop, r.nblocks, half, threadIdx.x % 32, sm.rows,
                    sm.flags, sm.full, sm.empty);
  return {r, false};
}

}  // namespace jax_glm_nope::sm90
