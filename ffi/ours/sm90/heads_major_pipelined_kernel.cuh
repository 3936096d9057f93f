// The pipelined heads-major kernel: 33-128 heads at 8 or more blocks per split, one CTA per
// group of 64 heads (grid y), every MMA with M = 64 heads (docs/cuda_sm90.md,
// "heads-major, pipelined"). Exact scores in one accumulator (Horner's rule over the four
// tile scales) and roles that hand off one way, so that a block's scores overlap the
// previous block's values and the next block's conversion.
// Part of our sm_90a sparse-MLA kernels (sparse_mla_kernel.cuh is the entry).
//
// Shared memory: q̂ (64 KB), three fp16 half-tile slots (32 KB each) and a ring of three
// raw half-stages (64 rows x 272 B). A block's two halves are A = dims 256-511 with the
// row's scales (raw bytes 256-527) and B = dims 0-255 (raw bytes 0-255); half n = 2 j +
// side of block j lives in slot n % 3 and raw stage n % 3.
//  - producer warps: per block and half, one bulk copy per active row into the raw stage
//    (zero rows for inactive candidates), the A half with the activity flags;
//  - WG1: builds block j's table from A's scales (Horner ratios, E_c, 2^E_c, the tiles'
//    fp16 scales g, skipped tiles), converts both halves into fp16 slots, then, from
//    P'(j), forms U = P' g for tiles 0-1 and accumulates O for dims 0-255;
//  - WG0: scores all 64 candidates, acc = (((P2 r_a + P3) r_b + P0) r_c + P1) F1 with
//    P_t the tile-t MMA group, runs the base-2 softmax (lazy maximum, a tight per-head
//    exponent F), hands P' (fp16, one per head and candidate) and O's rescale factor to
//    WG1, and accumulates O for dims 256-511.
// Per block the chain is: softmax(j) -> PV_A(j) frees A(j)'s slot -> WG1 converts B(j+1)
// into it -> scores of tiles 0, 1 of j+1 -> softmax(j+1); the scores of tiles 2, 3 of
// j+1 (slot A(j+1), converted long before) run while B(j+1) converts. The softmax (one
// warp per scheduler) is the longest step.
//
// Numerics: q̂ = q 2^-e1 per head in fp16 (exact); codes exact in fp16; per candidate E_c
// = the exponent bound of max_t |s_t| and f_t = s_t 2^-E_c (exact); a tile whose |f_t| <
// 2^-60 is skipped: its codes read as zero (NaN codes stay NaN) and its chain factor is 1,
// so the ratios stay within 2^+-60. Score (log2 units) = sm log2(e) 2^e1 2^E_c x acc.
// P'_hc = 2^(v - m + E_c - F_h) <= 1 with F_h = ceil of the running maximum of (v - m +
// E_c); U_t = fp16(P' x fp16(f_t)); O in units of 2^F_h; l = sum 2^(v - m) in fp32. The
// Horner ratios are divided to 2 ulp (__fdividef). NaN and Inf rules as the heads-major
// kernel's (heads_major_kernel.cuh, whose score, probability and store helpers it uses).
// The lean softmax (kHpLeanSoftmax) computes the same P' from t = v + E_c by one ex2 and
// takes p = P' 2^(F - E_c) exactly (an exponent-field add); a block whose exponents span
// more than 2^kHpSpread against a head's F, or whose scores come near the float range, takes
// the two-exponential path instead (a warp vote), where one exponential cannot carry both.
#pragma once

#include "ours/sm90/heads_major_kernel.cuh"

namespace jax_glm_nope::sm90 {

constexpr int kHpHeads = 64;
constexpr int kHpMinBlocks = 8;  // blocks per split from which it serves (kKernels)
constexpr int kHpThreads = 3 * 128;
constexpr int kHpRawRow = 272;  // raw half-row stride: 256 codes (+ 16 B scales in A); 272 / 16 odd
constexpr int kHpRawStage = kBlockRows * kHpRawRow;
constexpr int kHpSlot = kBlockRows * 256 * 2;  // fp16 [64 candidates][256 dims], core_offset<64>
constexpr int kHpRing = 3;                     // raw half-stages and fp16 slots

struct HpSmem {
  static constexpr int kQ = 0;                                  // q̂ [64][512], core_offset<64>
  static constexpr int kSlots = kQ + kHpHeads * L::kHeadDim * 2;  // 3 slots; q rows before block 0
  static constexpr int kRaw = kSlots + kHpRing * kHpSlot;
  // Per block parity, the table (rows of 64 candidates): the Horner ratios r_a, r_b, r_c,
  // E_c (-inf: inactive) and the last factor F1 2^E_c as floats; row 3 (the lean softmax
  // only) E_c's exponent field E_c << 23 as an int (0: inactive); the tiles' scales g in
  // fp16 [4][64] at kTabG16; the skipped-tile masks [64] int at kTabSkip; the lean
  // softmax's range of the active E_c, per warp of the table's builders: min, min, max,
  // max (int) at kTabRange.
  static constexpr int kTabRa = 0, kTabRb = 1, kTabRc = 2, kTabBits = 3, kTabE = 4, kTabLast = 5;
  static constexpr int kTabG16 = 6 * 64 * 4;
  static constexpr int kTabSkip = kTabG16 + 4 * 64 * 2;
  static constexpr int kTabRange = kTabSkip + 64 * 4;
  static constexpr int kTabBytes = kTabRange + 16;
  static constexpr int kTab = kRaw + kHpRing * kHpRawStage;
  // P' [16 words][128 threads] and O's factor [2][128] (after the loop: l, m, F [6][128])
  static constexpr int kP = kTab + 2 * kTabBytes;
  static constexpr int kFlags = kP + 18 * 128 * 4;  // [3 raw stages][64] activity
  static constexpr int kFactor = kFlags + kHpRing * kBlockRows * 4;  // qpre, qpost [2][64]
  static constexpr int kBad = kFactor + 2 * kHpHeads * 4;  // bad_head [64], bad_all, place [3]
  static constexpr int kBars = (kBad + kHpHeads * 4 + 16 + 7) / 8 * 8;
  // full_raw[3], empty_raw[3], full_h[3], empty_h[3], full_p, empty_p, q_full
  static constexpr int kBytes = kBars + (4 * kHpRing + 3) * 8;
  static_assert(kBytes <= 227 * 1024, "shared memory");
};

// Warpgroup MMAs: scores m64n64k16 (both operands K-major in shared memory) and values
// m64n128k16 (A from registers, B N-major), as the heads-major kernel's.
__device__ __forceinline__ void hp_scores(float (&d)[32], uint64_t a, uint64_t b, int accumulate) {
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

// One Horner group: the 8 k-steps of a 128-dim tile, q̂ dims qd0.., slot dims sd0...
__device__ __forceinline__ void hp_group(float (&acc)[32], uint64_t q_desc, uint64_t k_desc, int qd0,
                                         int sd0, bool first) {
#pragma unroll
  for (int s = 0; s < 8; ++s)
    hp_scores(acc, q_desc + uint64_t(((qd0 + 16 * s) * 128) >> 4),
              k_desc + uint64_t(((sd0 + 16 * s) * 128) >> 4), first && s == 0 ? 0 : 1);
}

__device__ __forceinline__ uint32_t hmul2(uint32_t a, uint32_t b) {
  uint32_t d;
  asm("mul.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}

// A fake use of value-MMA A fragments: keeps them (and their registers) live until the
// wait that retires their MMAs.
__device__ __forceinline__ void hp_keep(uint32_t (&a)[2][4][4]) {
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int k = 0; k < 4; ++k) asm volatile("" ::"r"(a[i][j][k]));
}

// A float2 from shared memory, loaded where it is written (volatile: not kept in registers
// across the softmax's passes by common-subexpression elimination).
__device__ __forceinline__ float2 hp_lds2(const float* p) {
  float2 v;
  asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "r"(ptx::smem_u32(p)));
  return v;
}

// Keeps the NaN codes of a skipped tile's 4 bytes and zeroes the others.
__device__ __forceinline__ uint32_t keep_nan_codes(uint32_t x) {
  const uint32_t m = (((x & 0x7f7f7f7fu) + 0x01010101u) & 0x80808080u) >> 7;  // 1 per NaN byte
  return x & (m * 0xffu);
}

// A thread's fp16 tile scales of tiles t0, t0 + 1 for its candidate pairs of each 16-
// candidate k-step: [t2][kk] = candidates 16 kk + 2 q4, +1 and 16 kk + 8 + 2 q4, +1, from
// the table's [4 tiles][32 pairs].
__device__ __forceinline__ void hp_tile_scales(const uint32_t* g16, int t0, int q4, uint32_t (&gq)[2][4][2]) {
#pragma unroll
  for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      gq[t2][kk][0] = g16[(t0 + t2) * 32 + 8 * kk + q4];
      gq[t2][kk][1] = g16[(t0 + t2) * 32 + 8 * kk + 4 + q4];
    }
}

// The value MMA's A fragments U_t = P' g_t ([t2][kk][4], heads g and g + 8) from the packed
// weights pp[2 j + hi] (candidates 8 j + 2 q4, +1) and the tile scales.
__device__ __forceinline__ void hp_operands(const uint32_t (&pp)[16], const uint32_t (&gq)[2][4][2],
                                            uint32_t (&a)[2][4][4]) {
#pragma unroll
  for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      a[t2][kk][0] = hmul2(pp[2 * (2 * kk) + 0], gq[t2][kk][0]);
      a[t2][kk][1] = hmul2(pp[2 * (2 * kk) + 1], gq[t2][kk][0]);
      a[t2][kk][2] = hmul2(pp[2 * (2 * kk + 1) + 0], gq[t2][kk][1]);
      a[t2][kk][3] = hmul2(pp[2 * (2 * kk + 1) + 1], gq[t2][kk][1]);
    }
}

// O_t += U_t V_t over a 64-candidate block for a warpgroup's two tiles (the slot's dims
// 128 t2 ..), issued as one committed group.
__device__ __forceinline__ void hp_values(float (&o)[2][64], const uint32_t (&a)[2][4][4], uint64_t v_desc) {
  ptx::wgmma_fence();
#pragma unroll
  for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
      HmWgmma::values(o[t2], a[t2][kk], v_desc + uint64_t((core_offset<64>(16 * kk, 128 * t2)) >> 4));
  ptx::wgmma_commit();
}

// O's rescale when a head's maximum or exponent moved (a factor of 1, most blocks: nothing).
__device__ __forceinline__ void hp_rescale(float (&o)[2][64], const float (&fac)[2]) {
#pragma unroll
  for (int hi = 0; hi < 2; ++hi)
    if (fac[hi] != 1.0f) {
#pragma unroll
      for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
        for (int j = 0; j < 16; ++j) {
          o[t2][4 * j + 2 * hi] *= fac[hi];
          o[t2][4 * j + 2 * hi + 1] *= fac[hi];
        }
    }
}

// O's exponent F from the running bound B (log2 units): ceil(B) within [-126, 126]; -126
// while no candidate is active (B = -inf).
__device__ __forceinline__ int hp_exponent(float bound) {
  return int(fminf(fmaxf(ceilf(bound), -126.0f), 126.0f));
}

// Half n's raw stage / slot and the parity of its use.
__device__ __forceinline__ int hp_stage(int n) { return n % kHpRing; }
__device__ __forceinline__ uint32_t hp_parity(int n) { return uint32_t(n / kHpRing) & 1u; }

// The producer: per block, half A (raw bytes 256-527) then half B (0-255) of each row, one
// bulk copy per active row and half. The four producer warps gather 16 rows each (lane =
// row): a warp issues its copies one after another, and this kernel needs two per row.
constexpr int kHpGatherWarps = 4;
constexpr int kHpGatherRows = kBlockRows / kHpGatherWarps;
__device__ __forceinline__ void hp_gather(const SparseMlaParams& p, int token, int c_begin, int c_stop,
                                          int nblocks, int half, int lane, uint8_t* raw, int* flags,
                                          uint64_t* full, uint64_t* empty) {
  const int32_t* idx_row = p.indices + int64_t(token) * p.topk;
  const int r = kHpGatherRows * half + lane;  // (lanes < kHpGatherRows)
  const bool mine = lane < kHpGatherRows;
  auto load = [&](int blk) {
    const int j = c_begin + blk * kBlockRows + r;
    return mine && j < c_stop ? __ldg(idx_row + j) : -1;
  };
  int next = nblocks > 0 ? load(0) : -1;
  for (int blk = 0; blk < nblocks; ++blk) {
    const int idx = next;
    if (blk + 1 < nblocks) next = load(blk + 1);  // one block of index latency ahead
    const bool active = idx >= 0 && int64_t(idx) < p.num_slots;
    const uint32_t n_active = __popc(__ballot_sync(~0u, active));
#pragma unroll
    for (int side = 0; side < 2; ++side) {
      const int n = 2 * blk + side;
      const int s = hp_stage(n);
      const uint32_t bytes = side == 0 ? 272 : 256;
      ptx::mbar_wait(&empty[s], hp_parity(n) ^ 1u);
      uint8_t* row = raw + s * kHpRawStage + r * kHpRawRow;
      if (mine && !active)
        for (int v = 0; v < kHpRawRow / 16; ++v) reinterpret_cast<uint4*>(row)[v] = make_uint4(0, 0, 0, 0);
      if (mine && side == 0) flags[s * kBlockRows + r] = active;
      __syncwarp();
      if (lane == 0) ptx::mbar_arrive_expect_tx(&full[s], n_active * bytes);
      __syncwarp();
      if (active)
        ptx::bulk_copy(row, p.pool + int64_t(idx) * p.row_bytes + (side == 0 ? 256 : 0), bytes, &full[s]);
    }
  }
}

// The shipped kernel's softmax: the lean one (one ex2 per element, hp_kernel_body<true>)
// or the two-exponential one (false), which the lab keeps as its comparison.
constexpr bool kHpLeanSoftmax = true;

// A head's log2-sum-exp from its running maximum m and sum l (units of 2^m): -inf for no
// active candidate; +inf once a score reached the float range (the lean softmax's scores
// saturate at FLT_MAX, the two-exponential one's at +inf).
__device__ __forceinline__ float hp_lse2(float m, float l) {
  return l > 0.0f ? (m >= FLT_MAX ? INFINITY : m + log2f(l)) : -INFINITY;
}

// x y + z rounded toward zero: a sum past the float range saturates at +-FLT_MAX rather
// than becoming +-inf (an active candidate's score is never -inf, the inactive mark).
__device__ __forceinline__ float hp_fma_rz(float x, float y, float z) {
  float d;
  asm("fma.rz.f32 %0, %1, %2, %3;" : "=f"(d) : "f"(x), "f"(y), "f"(z));
  return d;
}

// The lean softmax's exactness bound: the fast path takes p = P' 2^(F - E_c) with P' =
// 2^(v - m + E_c - F) from one ex2.approx.ftz. A weight that matters (p >= 2^-35 against
// l >= 1) keeps P' >= 2^-(35 + kHpSpread) > 2^-126, a normal float, while F - E_c <=
// kHpSpread; and 2^(F - E_c) is a normal float while F - E_c >= -126. A block with an
// active candidate outside [F - kHpSpread, F + 126] for some head takes the slow path.
constexpr int kHpSpread = 90;

template <bool kLean>
__device__ __forceinline__ void hp_kernel_body(const SparseMlaParams& p) {
  using S = HpSmem;
  extern __shared__ __align__(128) uint8_t smem[];
  uint8_t* const qhat = smem + S::kQ;
  uint8_t* const slots = smem + S::kSlots;
  uint8_t* const raw = smem + S::kRaw;
  int* const flags = reinterpret_cast<int*>(smem + S::kFlags);
  float* const qpre = reinterpret_cast<float*>(smem + S::kFactor);
  float* const qpost = qpre + kHpHeads;
  int* const bad_head = reinterpret_cast<int*>(smem + S::kBad);
  int* const bad_all = bad_head + kHpHeads;
  // The epilogues' token, split and head count, kept here rather than in registers across
  // the block loop: the consumers' loops use every register of their budget.
  int* const place = bad_all + 1;
  uint64_t* const full_raw = reinterpret_cast<uint64_t*>(smem + S::kBars);
  uint64_t* const empty_raw = full_raw + kHpRing;
  uint64_t* const full_h = empty_raw + kHpRing;
  uint64_t* const empty_h = full_h + kHpRing;
  uint64_t* const full_p = empty_h + kHpRing;
  uint64_t* const empty_p = full_p + 1;
  uint64_t* const q_full = empty_p + 1;
  uint32_t* const pbuf = reinterpret_cast<uint32_t*>(smem + S::kP);  // [18][128]

  ptx::grid_dependency_wait();
  ptx::launch_dependents();
  const SplitRange range(p);
  const int token = range.token, split = range.split, nblocks = range.nblocks;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int h0 = kHpHeads * int(blockIdx.y);
  const int q_heads = min(kHpHeads, p.heads - h0);
  if (threadIdx.x == 0) {
    for (int s = 0; s < kHpRing; ++s) {
      ptx::mbar_init(&full_raw[s], kHpGatherWarps);
      ptx::mbar_init(&empty_raw[s], kConsumerWarps);  // WG1's warps, after converting
      ptx::mbar_init(&full_h[s], kConsumerWarps);     // WG1's warps, after converting
      ptx::mbar_init(&empty_h[s], kConsumerWarps);    // the warps whose value MMAs read it
    }
    ptx::mbar_init(full_p, kConsumerWarps);
    ptx::mbar_init(empty_p, kConsumerWarps);
    ptx::mbar_init(q_full, 1);
    *bad_all = 0;
    place[0] = token;
    place[1] = split;
    place[2] = q_heads;
  }
  __syncthreads();

  if (warp >= 2 * kConsumerWarps) {
    // ---------------- producer ----------------
    ptx::setmaxnreg_dec<kProducerRegs>();
    const int half = warp - 2 * kConsumerWarps;
    if (half == kHpGatherWarps - 1 && lane == 0) {  // first the q rows, then its share of the rows
      const uint32_t bytes = uint32_t(q_heads) * L::kHeadDim * 2;
      ptx::mbar_arrive_expect_tx(q_full, bytes);
      ptx::bulk_copy(slots, p.q + (int64_t(token) * p.heads + h0) * L::kHeadDim, bytes, q_full);
    }
    hp_gather(p, token, range.c_begin, range.c_stop, nblocks, half, lane, raw, flags, full_raw, empty_raw);
    return;
  }

  // ---------------- consumers ----------------
  ptx::setmaxnreg_inc<kConsumerRegs>();
  const int wg = __shfl_sync(~0u, warp / kConsumerWarps, 0);
  const int w = warp % kConsumerWarps;
  const int tid = threadIdx.x % 128;
  const int g = lane >> 2;
  const int q4 = lane & 3;
  {
    SparseMlaParams ps = p;
    ps.q = reinterpret_cast<const __nv_bfloat16*>(slots);
    ps.heads = kHpHeads;
    ptx::mbar_wait(q_full, 0);
    prepare_q<kHpHeads, 2 * kConsumerWarps, true, true>(ps, 0, warp, lane, qhat, qpre, qpost, bad_head, 0,
                                                       q_heads);
    ptx::fence_proxy_async();
    ptx::all_consumers_sync<2>();  // q̂ complete; the q rows' space is free
  }
  // Descriptors as the heads-major kernel's (no swizzle, core_offset<64> layouts).
  const uint64_t q_desc = ptx::smem_desc(qhat, 1024, 128);
  auto k_desc = [&](int n) { return ptx::smem_desc(slots + hp_stage(n) * kHpSlot, 1024, 128); };
  auto v_desc = [&](int n) { return ptx::smem_desc(slots + hp_stage(n) * kHpSlot, 128, 1024); };
  auto table = [&](int b) { return smem + S::kTab + (b & 1) * S::kTabBytes; };
  float o[2][64];  // this warpgroup's two tiles: heads (g, g + 8), dims 8 j + 2 q4 + {0, 1}
  zero_acc(o);

  if (wg == 1) {
    // ---------------- WG1: tables, conversion, O for dims 0-255 ----------------
    bool scale_bad = false;
    const int cr = (lane & 7) + 8 * ((tid >> 3) & 7);  // this thread's row of each chunk
    const int dq = tid >> 6;
    // Half n (block n / 2, side n % 2) from its raw stage into its slot.
    auto convert = [&](int n) {
      const int b = n / 2, side = n % 2;
      const int s = hp_stage(n);
      ptx::mbar_wait(&empty_h[s], hp_parity(n) ^ 1u);
      ptx::mbar_wait(&full_raw[s], hp_parity(n));
      const uint8_t* rs = raw + s * kHpRawStage;
      uint8_t* const tab = table(b);
      if (side == 0) {  // the block's table, one candidate per thread
        if (tid < kBlockRows) {
          const int c = tid;
          const float4 s4 = *reinterpret_cast<const float4*>(rs + c * kHpRawRow + 256);
          const float sv[4] = {s4.x, s4.y, s4.z, s4.w};
          scale_bad |= !isfinite(s4.x) || !isfinite(s4.y) || !isfinite(s4.z) || !isfinite(s4.w);
          const bool a = flags[s * kBlockRows + c] != 0;
          const float amax = fmaxf(fmaxf(fabsf(sv[0]), fabsf(sv[1])), fmaxf(fabsf(sv[2]), fabsf(sv[3])));
          const int e_c = exponent_bound(amax);
          const float down = pow2(-e_c);
          float fc[4];
          int skip = 0;
          __half g16[4];
#pragma unroll
          for (int t = 0; t < 4; ++t) {
            const float f = sv[t] * down;
            const bool sk = !(fabsf(f) >= 0x1p-60f) && !isnan(f);
            skip |= sk << t;
            fc[t] = sk ? 1.0f : f;
            g16[t] = __float2half_rn(sk ? 0.0f : f);
          }
          float* const tf = reinterpret_cast<float*>(tab);
          // (the ratios to 2 ulp: the chain's four roundings stay within 2^-21 of the score's
          // magnitude sum, and the IEEE division's slow-path check is costly here)
          tf[S::kTabRa * 64 + c] = __fdividef(fc[2], fc[3]);
          tf[S::kTabRb * 64 + c] = __fdividef(fc[3], fc[0]);
          tf[S::kTabRc * 64 + c] = __fdividef(fc[0], fc[1]);
          tf[S::kTabE * 64 + c] = a ? float(e_c) : -INFINITY;
          tf[S::kTabLast * 64 + c] = fc[1] * pow2(e_c);  // the score's last factor (any sign)
          if constexpr (kLean) {
            // E_c's exponent field (0 for an inactive candidate: 2^F stays a normal float for
            // any F) and the block's range of the active E_c (redux.sync per warp)
            reinterpret_cast<int*>(tf)[S::kTabBits * 64 + c] = a ? e_c << 23 : 0;
            const int lo = __reduce_min_sync(~0u, a ? e_c : 1024);
            const int hi = __reduce_max_sync(~0u, a ? e_c : -1024);
            if (lane == 0) {
              int* const range = reinterpret_cast<int*>(tab + S::kTabRange);
              range[c / 32] = lo;
              range[2 + c / 32] = hi;
            }
          }
          __half* const tg = reinterpret_cast<__half*>(tab + S::kTabG16);
#pragma unroll
          for (int t = 0; t < 4; ++t) tg[t * 64 + c] = g16[t];
          reinterpret_cast<int*>(tab + S::kTabSkip)[c] = skip;
        }
        ptx::consumer_sync(1);  // WG1: the table is complete
      }
      const int skip = reinterpret_cast<const int*>(tab + S::kTabSkip)[cr];
      uint8_t* const slot = slots + s * kHpSlot;
#pragma unroll
      for (int i = 0; i < 8; ++i) {
        const int d = 16 * (dq + 2 * i);  // local dim of the half
        uint4 x = *reinterpret_cast<const uint4*>(rs + cr * kHpRawRow + d);
        const int tile = 2 * (1 - side) + d / 128;
        if ((skip >> tile) & 1) {
          x.x = keep_nan_codes(x.x);
          x.y = keep_nan_codes(x.y);
          x.z = keep_nan_codes(x.z);
          x.w = keep_nan_codes(x.w);
        }
        uint4 lo, hi;
        e4m3x16_to_f16(x, lo, hi);
        *reinterpret_cast<uint4*>(slot + core_offset<64>(cr, d)) = lo;
        *reinterpret_cast<uint4*>(slot + core_offset<64>(cr, d + 8)) = hi;
      }
      ptx::fence_proxy_async();  // the slot for the MMAs; the raw reads before the next bulk copies
      __syncwarp();
      if (lane == 0) {
        ptx::mbar_arrive(&full_h[s]);
        ptx::mbar_arrive(&empty_raw[s]);
      }
    };
    if (nblocks > 0) {
      convert(0);
      convert(1);
      if (nblocks > 1) convert(2);
    }
    for (int b = 0; b < nblocks; ++b) {
      const uint8_t* const tab = table(b);
      // the tiles' fp16 scales first (the table is complete), their latency under the wait
      uint32_t gq[2][4][2];
      hp_tile_scales(reinterpret_cast<const uint32_t*>(tab + S::kTabG16), 0, q4, gq);
      ptx::mbar_wait(full_p, uint32_t(b) & 1u);
      uint32_t pp[16];
#pragma unroll
      for (int i = 0; i < 16; ++i) pp[i] = pbuf[i * 128 + tid];
      const float fac[2] = {__uint_as_float(pbuf[16 * 128 + tid]), __uint_as_float(pbuf[17 * 128 + tid])};
      __syncwarp();
      if (lane == 0) ptx::mbar_arrive(empty_p);
      hp_rescale(o, fac);
      // U_t = P' g_t for tiles 0, 1, then their value MMAs
      uint32_t a[2][4][4];
      hp_operands(pp, gq, a);
      hp_values(o, a, v_desc(2 * b + 1));
      if (b + 1 < nblocks) convert(2 * (b + 1) + 1);  // B(b+1), into A(b)'s slot
      ptx::wgmma_wait<0>();
#pragma unroll
      for (int t2 = 0; t2 < 2; ++t2) ptx::fence_regs(o[t2]);
      hp_keep(a);
      __syncwarp();
      if (lane == 0) ptx::mbar_arrive(&empty_h[hp_stage(2 * b + 1)]);
      if (b + 2 < nblocks) convert(2 * (b + 2));  // A(b+2), into B(b)'s slot
    }
    if (__any_sync(~0u, scale_bad) && lane == 0) atomicOr(bad_all, 1);
    ptx::all_consumers_sync<2>();  // WG0's l, m, F are in pbuf
    const bool any_bad = *bad_all != 0;
    const int at_token = place[0], at_split = place[1], at_heads = place[2];
#pragma unroll
    for (int hi = 0; hi < 2; ++hi) {
      const int h = 16 * w + g + 8 * hi;
      if (h >= at_heads) continue;
      const float l = __uint_as_float(pbuf[(0 + hi) * 128 + tid]);
      const float m = __uint_as_float(pbuf[(2 + hi) * 128 + tid]);
      const int f = int(pbuf[(4 + hi) * 128 + tid]);
      const float rl = l > 0.0f ? __fdiv_rn(1.0f, l) : 0.0f;
      const bool bad = isnan(l) || (l > 0.0f && (bad_head[h] != 0 || any_bad));
      const float lse2 = hp_lse2(m, l);
#pragma unroll
      for (int t2 = 0; t2 < 2; ++t2) {
        float v[16][2];
#pragma unroll
        for (int j = 0; j < 16; ++j) {
          v[j][0] = o[t2][4 * j + 2 * hi] * rl;
          v[j][1] = o[t2][4 * j + 2 * hi + 1] * rl;
        }
        store_head_at<16>(p, at_token, at_split, h0 + h, 128 * t2, 8, q4, v, pow2(f), lse2, bad,
                          t2 == 0 && q4 == 0);
      }
    }
    return;
  }

  // ---------------- WG0: scores, softmax, O for dims 256-511 ----------------
  float m_run[2] = {-INFINITY, -INFINITY}, b_run[2] = {-INFINITY, -INFINITY}, l_run[2] = {0.0f, 0.0f};
  uint32_t u[2][4][4];  // U_t of tiles 2, 3 for the value MMAs in flight
  // acc: overwritten by each block's first k-step; "defined" where no MMA is in flight
  // (before the loop and after each softmax): a definition while the previous block's
  // value MMAs run makes ptxas serialize every MMA (C7515)
  float acc[32];
#pragma unroll
  for (int e = 0; e < 32; ++e) asm volatile("" : "=f"(acc[e]));
  // Block b's scores into acc (acc x F1 is the tile sum); with pv, the previous block's
  // value MMAs are in flight: retired by the first wait, which frees their slot. (The loop
  // below calls this for block b + 1 inside iteration b, so that no MMA is in flight across
  // the loop's back edge: ptxas serializes every MMA of a loop that carries one, C7515.)
  auto score = [&](int b, bool pv) {
    const float* const tf = reinterpret_cast<const float*>(table(b));
    const int nA = 2 * b, nB = 2 * b + 1;
    // A Horner step once the group in flight is done: acc *= the candidate's ratio (this
    // thread's candidates 8 j + 2 q4, +1), loaded before the wait.
    auto horner = [&](const float* ratio) {
      float2 r[8];
#pragma unroll
      for (int j = 0; j < 8; ++j) r[j] = reinterpret_cast<const float2*>(ratio)[4 * j + q4];
      ptx::wgmma_wait<0>();
      ptx::fence_regs(acc);
#pragma unroll
      for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int hi = 0; hi < 2; ++hi) {
          acc[4 * j + 2 * hi] *= r[j].x;
          acc[4 * j + 2 * hi + 1] *= r[j].y;
        }
    };
    // ---- tiles 2, 3 (half A) ----
    ptx::mbar_wait(&full_h[hp_stage(nA)], hp_parity(nA));
    ptx::wgmma_fence();
    hp_group(acc, q_desc, k_desc(nA), 256, 0, true);
    ptx::wgmma_commit();
    if (pv) {
      ptx::wgmma_wait<1>();  // PV_A(b - 1) done: its slot is free, U too
      hp_keep(u);            // U lives until here: else ptxas gives acc U's registers
      __syncwarp();
      if (lane == 0) ptx::mbar_arrive(&empty_h[hp_stage(nA - 2)]);
    }
    horner(tf + S::kTabRa * 64);
    ptx::wgmma_fence();
    hp_group(acc, q_desc, k_desc(nA), 384, 128, false);
    ptx::wgmma_commit();
    horner(tf + S::kTabRb * 64);
    // ---- tiles 0, 1 (half B) ----
    ptx::mbar_wait(&full_h[hp_stage(nB)], hp_parity(nB));
    ptx::wgmma_fence();
    hp_group(acc, q_desc, k_desc(nB), 0, 0, false);
    ptx::wgmma_commit();
    horner(tf + S::kTabRc * 64);
    ptx::wgmma_fence();
    hp_group(acc, q_desc, k_desc(nB), 128, 128, false);
    ptx::wgmma_commit();
    ptx::wgmma_wait<0>();
    ptx::fence_regs(acc);

  };
  if (nblocks > 0) score(0, false);
  for (int b = 0; b < nblocks; ++b) {
    const uint8_t* const tab = table(b);
    const float* const tf = reinterpret_cast<const float*>(tab);
    const int nA = 2 * b;
    // ---- scores in log2 units (e = 4 j + 2 hi + k: candidate 8 j + 2 q4 + k, head hi) ----
    const float pre[2] = {qpre[16 * w + g], qpre[16 * w + g + 8]};
    const float post[2] = {qpost[16 * w + g], qpost[16 * w + g + 8]};
    float fac[2];
    uint32_t pp[16];
    if constexpr (!kLean) {
      float mx[2] = {-INFINITY, -INFINITY};
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const float2 s2 = hp_lds2(tf + S::kTabLast * 64 + 8 * j + 2 * q4);  // F1 2^E_c (any sign)
        const float2 e2 = hp_lds2(tf + S::kTabE * 64 + 8 * j + 2 * q4);  // E_c, -inf: inactive
#pragma unroll
        for (int k = 0; k < 2; ++k) {
          const float s1 = k ? s2.y : s2.x;
          const bool active = (k ? e2.y : e2.x) > -INFINITY;
#pragma unroll
          for (int hi = 0; hi < 2; ++hi) {
            const int e = 4 * j + 2 * hi + k;
            acc[e] = hm_score(acc[e], pre[hi], s1, post[hi], active);
            mx[hi] = fmaxf(mx[hi], acc[e]);
          }
        }
      }
      float mm[2], sh[2];
#pragma unroll
      for (int hi = 0; hi < 2; ++hi) {
        mx[hi] = fmaxf(mx[hi], __shfl_xor_sync(~0u, mx[hi], 1));
        mx[hi] = fmaxf(mx[hi], __shfl_xor_sync(~0u, mx[hi], 2));
        const float m_old = m_run[hi];
        const float m = mx[hi] > m_old + kLazyMax ? mx[hi] : m_old;
        fac[hi] = m_old == m ? 1.0f : ptx::exp2_approx(m_old - m);  // corr, for now
        sh[hi] = m_old == m ? 0.0f : m_old - m;
        m_run[hi] = m;
        mm[hi] = m == -INFINITY ? 0.0f : m;
      }
      // relative scores (in acc) and the bound of (v - m + E_c)
      float y[2] = {-INFINITY, -INFINITY};
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const float2 e2 = hp_lds2(tf + S::kTabE * 64 + 8 * j + 2 * q4);
#pragma unroll
        for (int k = 0; k < 2; ++k)
#pragma unroll
          for (int hi = 0; hi < 2; ++hi) {
            const int e = 4 * j + 2 * hi + k;
            const float v = acc[e];
            const float rel = v == mm[hi] ? 0.0f : v - mm[hi];
            acc[e] = rel;
            y[hi] = fmaxf(y[hi], rel + (k ? e2.y : e2.x));
          }
      }
#pragma unroll
      for (int hi = 0; hi < 2; ++hi) {
        y[hi] = fmaxf(y[hi], __shfl_xor_sync(~0u, y[hi], 1));
        y[hi] = fmaxf(y[hi], __shfl_xor_sync(~0u, y[hi], 2));
      }
      float fneg[2];  // -F per head, new
#pragma unroll
      for (int hi = 0; hi < 2; ++hi) {
        const int f_old = hp_exponent(b_run[hi]);  // (recomputed: a register fewer in the loop)
        const float bnd = fmaxf(b_run[hi] + sh[hi], y[hi]);
        b_run[hi] = bnd;
        const int f_new = hp_exponent(bnd);
        const int d = f_old - f_new;
        fneg[hi] = float(-f_new);
        fac[hi] = fac[hi] * pow2(d / 2) * pow2(d - d / 2);  // (l takes corr alone, below)
      }
      // P' = 2^(rel + E_c - F) <= 1, packed per candidate pair: pp[2 j + hi]; the sums of p =
      // 2^rel by their own exponential (from P' they would lose a candidate whose E_c is 2^126
      // below the head's F: its values are negligible, its weight is not)
      float ps[2] = {0.0f, 0.0f};
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const float2 e2 = hp_lds2(tf + S::kTabE * 64 + 8 * j + 2 * q4);
#pragma unroll
        for (int hi = 0; hi < 2; ++hi) {
          float pk[2];
#pragma unroll
          for (int k = 0; k < 2; ++k) {
            const float rel = acc[4 * j + 2 * hi + k];
            const float ec = k ? e2.y : e2.x;
            const float q = ptx::exp2_approx(rel + (ec + fneg[hi]));
            pk[k] = q;
            ps[hi] += ptx::exp2_approx(rel);
          }
          pp[2 * j + hi] = pack_f16x2(pk[0], pk[1]);
        }
      }
#pragma unroll
      for (int hi = 0; hi < 2; ++hi) {
        ps[hi] += __shfl_xor_sync(~0u, ps[hi], 1);
        ps[hi] += __shfl_xor_sync(~0u, ps[hi], 2);
        const float corr = sh[hi] == 0.0f ? 1.0f : ptx::exp2_approx(sh[hi]);
        l_run[hi] = __fadd_rn(__fmul_rn(l_run[hi], corr), ps[hi]);
      }
    } else {
      // The lean softmax. Pass 1: t = v + E_c in one rounding (v = the score in log2 units;
      // the addend E_c is -inf for an inactive candidate, which masks it), and the maximum
      // of t over the quad: one reduction round. v itself is not formed on the fast path.
      float z[2];
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const float2 s2 = hp_lds2(tf + S::kTabLast * 64 + 8 * j + 2 * q4);  // F1 2^E_c (any sign)
        const float2 e2 = hp_lds2(tf + S::kTabE * 64 + 8 * j + 2 * q4);     // E_c, -inf: inactive
#pragma unroll
        for (int k = 0; k < 2; ++k)
#pragma unroll
          for (int hi = 0; hi < 2; ++hi) {
            const int e = 4 * j + 2 * hi + k;
            const float a = (acc[e] * pre[hi]) * (k ? s2.y : s2.x);
            const float t = hp_fma_rz(a, post[hi], k ? e2.y : e2.x);
            acc[e] = t;
            z[hi] = j == 0 && k == 0 ? t : fmaxf(z[hi], t);
          }
      }
#pragma unroll
      for (int hi = 0; hi < 2; ++hi) {
        z[hi] = fmaxf(z[hi], __shfl_xor_sync(~0u, z[hi], 1));
        z[hi] = fmaxf(z[hi], __shfl_xor_sync(~0u, z[hi], 2));
      }
      // The running maximum from z: max_c v >= z - max E_c, so m's candidate z - max E_c
      // trails the block's largest score by at most the block's exponent spread (<= 90 on
      // the fast path): l stays below 2^(8 + 90) per candidate, far from fp32's range.
      const int4 range = *reinterpret_cast<const int4*>(tab + S::kTabRange);
      // E_c << 23 of this thread's candidates 8 j + 2 q4, +1
      auto exponent_bits = [&](int j) {
        return *reinterpret_cast<const int2*>(tab + S::kTabBits * 256 + 4 * (8 * j + 2 * q4));
      };
      const int emin = min(range.x, range.y), emax = max(range.z, range.w);
      float m_new[2], b_new[2];
      int f_new[2];
      bool slow = emax - emin > kHpSpread;
#pragma unroll
      for (int hi = 0; hi < 2; ++hi) {
        const float m_old = m_run[hi];
        const float c = z[hi] - float(emax);  // -inf: no active candidate in the block
        m_new[hi] = c > m_old + kLazyMax ? c : m_old;
        const float mm = m_new[hi] == -INFINITY ? 0.0f : m_new[hi];
        const float sh = m_old == m_new[hi] ? 0.0f : m_old - m_new[hi];
        b_new[hi] = fmaxf(b_run[hi] + sh, z[hi] - mm);
        f_new[hi] = hp_exponent(b_new[hi]);
        // (|m| near the float range: t = v + E_c has lost E_c to rounding)
        slow = slow || f_new[hi] - emin > kHpSpread || f_new[hi] - emax < -126 ||
               !(fabsf(mm) < 0x1p126f);
      }
      if (!__any_sync(~0u, slow)) {
        // Fast path: P' = 2^(t - m - F) by one ex2; p = P' 2^(F - E_c) exactly, an integer
        // add of exponent fields and one FFMA into this thread's share of l.
        float kneg[2];
        int fbits[2];
#pragma unroll
        for (int hi = 0; hi < 2; ++hi) {
          const float m_old = m_run[hi];
          const float corr = m_old == m_new[hi] ? 1.0f : ptx::exp2_approx(m_old - m_new[hi]);
          const int d = hp_exponent(b_run[hi]) - f_new[hi];
          fac[hi] = corr * pow2(d / 2) * pow2(d - d / 2);
          l_run[hi] *= corr;
          m_run[hi] = m_new[hi];
          b_run[hi] = b_new[hi];
          kneg[hi] = -(m_new[hi] == -INFINITY ? 0.0f : m_new[hi]) - float(f_new[hi]);
          fbits[hi] = (127 + f_new[hi]) << 23;
        }
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          const int2 b2 = exponent_bits(j);
#pragma unroll
          for (int hi = 0; hi < 2; ++hi) {
            float pk[2];
#pragma unroll
            for (int k = 0; k < 2; ++k) {
              const float q = ptx::exp2_approx(acc[4 * j + 2 * hi + k] + kneg[hi]);
              pk[k] = q;
              l_run[hi] = fmaf(q, __int_as_float(fbits[hi] - (k ? b2.y : b2.x)), l_run[hi]);
            }
            pp[2 * j + hi] = pack_f16x2(pk[0], pk[1]);
          }
        }
      } else {
        // Slow path: the two-exponential softmax on v = t - E_c, with the block's own
        // maximum of v (an exponent spread past 2^90, or scores near the float range). p by
        // its own exponential: from P' it would lose a candidate whose E_c is far below F
        // (its values are negligible, its weight is not).
        float mx[2] = {-INFINITY, -INFINITY};
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          const int2 b2 = exponent_bits(j);
#pragma unroll
          for (int k = 0; k < 2; ++k)
#pragma unroll
            for (int hi = 0; hi < 2; ++hi) {
              const int e = 4 * j + 2 * hi + k;
              acc[e] -= float((k ? b2.y : b2.x) >> 23);  // v (an inactive one: -inf - 0)
              mx[hi] = fmaxf(mx[hi], acc[e]);
            }
        }
        float mm[2], fneg[2];
#pragma unroll
        for (int hi = 0; hi < 2; ++hi) {
          mx[hi] = fmaxf(mx[hi], __shfl_xor_sync(~0u, mx[hi], 1));
          mx[hi] = fmaxf(mx[hi], __shfl_xor_sync(~0u, mx[hi], 2));
          const float m_old = m_run[hi];
          const float m = mx[hi] > m_old + kLazyMax ? mx[hi] : m_old;
          const float corr = m_old == m ? 1.0f : ptx::exp2_approx(m_old - m);
          fac[hi] = corr;
          l_run[hi] *= corr;
          b_new[hi] = b_run[hi] + (m_old == m ? 0.0f : m_old - m);  // b_run shifted
          m_run[hi] = m;
          mm[hi] = m == -INFINITY ? 0.0f : m;
        }
        float y[2] = {-INFINITY, -INFINITY};
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          const int2 b2 = exponent_bits(j);
#pragma unroll
          for (int k = 0; k < 2; ++k)
#pragma unroll
            for (int hi = 0; hi < 2; ++hi) {
              const int e = 4 * j + 2 * hi + k;
              const float rel = acc[e] == mm[hi] ? 0.0f : acc[e] - mm[hi];
              acc[e] = rel;
              y[hi] = fmaxf(y[hi], rel + float((k ? b2.y : b2.x) >> 23));
            }
        }
#pragma unroll
        for (int hi = 0; hi < 2; ++hi) {
          y[hi] = fmaxf(y[hi], __shfl_xor_sync(~0u, y[hi], 1));
          y[hi] = fmaxf(y[hi], __shfl_xor_sync(~0u, y[hi], 2));
          const int f_old = hp_exponent(b_run[hi]);
          b_run[hi] = fmaxf(b_new[hi], y[hi]);
          const int f = hp_exponent(b_run[hi]);
          const int d = f_old - f;
          fac[hi] = fac[hi] * pow2(d / 2) * pow2(d - d / 2);
          fneg[hi] = float(-f);
        }
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          const int2 b2 = exponent_bits(j);
#pragma unroll
          for (int hi = 0; hi < 2; ++hi) {
            float pk[2];
#pragma unroll
            for (int k = 0; k < 2; ++k) {
              const float rel = acc[4 * j + 2 * hi + k];
              pk[k] = ptx::exp2_approx(rel + (float((k ? b2.y : b2.x) >> 23) + fneg[hi]));
              l_run[hi] += ptx::exp2_approx(rel);
            }
            pp[2 * j + hi] = pack_f16x2(pk[0], pk[1]);
          }
        }
      }
    }
    hp_rescale(o, fac);
#pragma unroll
    for (int e = 0; e < 32; ++e) asm volatile("" : "=f"(acc[e]));
    // U_t = P' g_t for tiles 2, 3
    {
      uint32_t gq[2][4][2];
      hp_tile_scales(reinterpret_cast<const uint32_t*>(tab + S::kTabG16), 2, q4, gq);
      hp_operands(pp, gq, u);
    }
    // P' and the factor to WG1 (every read of this block's table is done)
    ptx::mbar_wait(empty_p, (uint32_t(b) & 1u) ^ 1u);
#pragma unroll
    for (int i = 0; i < 16; ++i) pbuf[i * 128 + tid] = pp[i];
    pbuf[16 * 128 + tid] = __float_as_uint(fac[0]);
    pbuf[17 * 128 + tid] = __float_as_uint(fac[1]);
    __syncwarp();
    if (lane == 0) ptx::mbar_arrive(full_p);
    // ---- values: O_t += U_t V_t for tiles 2, 3 ----
    hp_values(o, u, v_desc(nA));
    if (b + 1 < nblocks)
      score(b + 1, true);
    else
      ptx::wgmma_wait<0>();
  }
#pragma unroll
  for (int t2 = 0; t2 < 2; ++t2) ptx::fence_regs(o[t2]);
  if constexpr (kLean) {  // l over the quad, once per split
#pragma unroll
    for (int hi = 0; hi < 2; ++hi) {
      l_run[hi] += __shfl_xor_sync(~0u, l_run[hi], 1);
      l_run[hi] += __shfl_xor_sync(~0u, l_run[hi], 2);
    }
  }
  // l, m, F to WG1 through pbuf, once it has read the last P'
  ptx::mbar_wait(empty_p, (uint32_t(nblocks) & 1u) ^ 1u);
#pragma unroll
  for (int hi = 0; hi < 2; ++hi) {
    pbuf[(0 + hi) * 128 + tid] = __float_as_uint(l_run[hi]);
    pbuf[(2 + hi) * 128 + tid] = __float_as_uint(m_run[hi]);
    pbuf[(4 + hi) * 128 + tid] = uint32_t(hp_exponent(b_run[hi]));
  }
  ptx::all_consumers_sync<2>();
  const bool any_bad = *bad_all != 0;
  const int at_token = place[0], at_split = place[1], at_heads = place[2];
#pragma unroll
  for (int hi = 0; hi < 2; ++hi) {
    const int h = 16 * w + g + 8 * hi;
    if (h >= at_heads) continue;
    const float l = l_run[hi];
    const float rl = l > 0.0f ? __fdiv_rn(1.0f, l) : 0.0f;
    const bool bad = isnan(l) || (l > 0.0f && (bad_head[h] != 0 || any_bad));
    const float lse2 = hp_lse2(m_run[hi], l);
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2) {
      float v[16][2];
#pragma unroll
      for (int j = 0; j < 16; ++j) {
        v[j][0] = o[t2][4 * j + 2 * hi] * rl;
        v[j][1] = o[t2][4 * j + 2 * hi + 1] * rl;
      }
      store_head_at<16>(p, at_token, at_split, h0 + h, 128 * (2 + t2), 8, q4, v,
                        pow2(hp_exponent(b_run[hi])), lse2, bad, false);
    }
  }
}

__global__ void __launch_bounds__(kHpThreads, 1)
    sparse_mla_heads_major_pipelined_kernel(const SparseMlaParams p) {
  hp_kernel_body<kHpLeanSoftmax>(p);
}

}  // namespace jax_glm_nope::sm90
