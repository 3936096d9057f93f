// Ablations of the product's heads-major kernel (lab; timing only, the results are wrong
// by design): the kernel of ffi/ours/sm90/heads_major_kernel.cuh with phases removed at
// compile time, to measure what each phase adds to a block's chain (run 42 of
// research/notebook.md). kSkip bits: 1 no score MMAs, 2 no value MMAs, 4 no conversion
// into the fp16 tile, 8 no barriers between the warpgroups' exchanges, 16 no U formation
// (nor its hand-over), 32 no wait for the block's rows (the consumers do not wait for the
// gather; the producers still gather, paced by the consumers' releases). Launched by lab_launch.cuh when `LabParams::hm_ablate` is non-zero
// (selftest `--ablate N`, in place of the pipelined kernel). Removed after its run.

#pragma once

#include "ours/sm90/heads_major_kernel.cuh"

namespace jax_glm_nope::sm90 {

template <int kSkip>
__global__ void __launch_bounds__(kHmThreads, 1) sparse_mla_ablate_kernel(const SparseMlaParams p) {
  using S = HmSmem;
  constexpr int NS = kHmStages;
  extern __shared__ __align__(128) uint8_t smem[];
  const SmemView<S> sm(smem, NS);
  uint8_t* const tile = smem + S::kTile;
  ptx::grid_dependency_wait();  // before any global access, reads and writes
  ptx::launch_dependents();     // the combine may be scheduled once every CTA is here
  const auto [token, split, c_begin, c_stop, nblocks] = SplitRange(p);
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  uint64_t* const q_full = sm.empty + NS;  // the CTA's q rows landed in the tile's space
  const int q_heads = min(kHmHeads, p.heads - hm_first_head());
  if (threadIdx.x == 0) ptx::mbar_init(q_full, 1);
  // empty: one arrival per consumer warp (each warp's exchange reads done)
  init_barriers<NS>(sm.full, sm.empty, 2 * kConsumerWarps, sm.bad_all);

  if (warp >= 2 * kConsumerWarps) {
    // ---------------- producer ----------------
    ptx::setmaxnreg_dec<kProducerRegs>();
    const int half = warp - 2 * kConsumerWarps;
    if (half < kProducerWarps)
      gather_rows<NS>(p, token, c_begin, c_stop, nblocks, half, lane, sm.rows, sm.flags,
                      sm.full, sm.empty);
    else if (half == kProducerWarps && lane == 0) {  // the warp with no rows to gather
      const uint32_t bytes = uint32_t(q_heads) * L::kHeadDim * 2;
      ptx::mbar_arrive_expect_tx(q_full, bytes);
      ptx::bulk_copy(tile, p.q + (int64_t(token) * p.heads + hm_first_head()) * L::kHeadDim, bytes, q_full);
    }
    return;
  }

  // ---------------- consumers ----------------
  ptx::setmaxnreg_inc<kConsumerRegs>();
  // (a shuffle from lane 0: the compiler then knows it is warp-uniform)
  const int wg = __shfl_sync(~0u, warp / kConsumerWarps, 0);
  const int w = warp % kConsumerWarps;  // heads 16 w .. 16 w + 15 of every MMA
  const int tid = threadIdx.x % 128;
  const int g = lane >> 2;  // heads 16 w + g (hi = 0) and + 8 (hi = 1)
  const int q4 = lane & 3;  // candidates / dims 8 j + 2 q4 + {0, 1} in the C layouts
  // prepare_q over the rows in shared memory: token 0, heads from 0, one 1-KB row each
  SparseMlaParams ps = p;
  ps.q = reinterpret_cast<const __nv_bfloat16*>(tile);
  ps.heads = kHmHeads;
  ptx::mbar_wait(q_full, 0);
  prepare_q<kHmHeads, 2 * kConsumerWarps, true, true>(ps, 0, warp, lane, sm.qhat, sm.qpre, sm.qpost,
                                                      sm.bad_head, 0, q_heads);
  ptx::fence_proxy_async();
  ptx::all_consumers_sync<2>();  // (also: every read of the q rows done before the tile is written)

  float pre[2], post[2];
#pragma unroll
  for (int hi = 0; hi < 2; ++hi) {
    pre[hi] = sm.qpre[16 * w + g + 8 * hi];
    post[hi] = sm.qpost[16 * w + g + 8 * hi];
  }
  float m_run[2] = {-INFINITY, -INFINITY};
  // This thread's state words (word i at st[256 i]): l[hi] at hi, the bound of (tile t,
  // head hi) at 2 + 2 t + hi, its exponent F at 10 + 2 t + hi.
  float* const st = reinterpret_cast<float*>(smem + S::kState) + threadIdx.x;
  int* const st_f = reinterpret_cast<int*>(st);
#pragma unroll
  for (int i = 0; i < 10; ++i) st[256 * i] = 0.0f;
#pragma unroll
  for (int i = 10; i < 18; ++i) st_f[256 * i] = -126;
  bool scale_bad = false;
  float o[2][64];  // own tile t2: heads (g, g + 8), dims 128 (2 wg + t2) + 8 j + 2 q4 + {0, 1}
  zero_acc(o);
  // Descriptors (no swizzle): q̂ and the tile as K-major operands, LBO = 1024 bytes between
  // 8-dim cores, SBO = 128 between 8-row cores; the tile as the value MMA's N-major B,
  // 128 bytes between 8-candidate cores (K), 1024 between 8-dim cores (N) (this field
  // assignment verified on the H200, with a microbenchmark and in this kernel).
  // The warpgroup's part of each operand is in its base descriptors, so that every MMA in
  // the loop adds a compile-time offset (a runtime `wg` term costs five uniform
  // instructions per MMA).
  const uint64_t q_desc = ptx::smem_desc(sm.qhat, 1024, 128);
  const uint64_t k_desc = ptx::smem_desc(tile + 512 * wg, 1024, 128);
  const uint64_t v_desc = ptx::smem_desc(tile + core_offset<64>(0, 256 * wg), 128, 1024);
  // This thread's 16-byte code chunks of every block: candidate cr, dims 256 wg + 16 (dq + 2 i).
  const int cr = (lane & 7) + 8 * ((tid >> 3) & 7);
  const int dq = tid >> 6;

  for (int b = 0; b < nblocks; ++b) {
    const int stage = b % NS;
    uint8_t* const tab = smem + S::kTab + (b & 1) * S::kTabBytes;
    float4* const tab_s = reinterpret_cast<float4*>(tab);                      // [64]
    float4* const tab_sn = reinterpret_cast<float4*>(tab + kBlockRows * 16);    // [64] s 2^-E_c
    float* const tab_up = reinterpret_cast<float*>(tab + kBlockRows * 32);      // [64] 2^E_c, -1 inactive
    float* const tab_smax = reinterpret_cast<float*>(tab + kBlockRows * 36);    // [wg][4]
    ptx::consumer_sync(wg);  // (1) this warpgroup's value MMAs of the previous block are done
    if constexpr (!(kSkip & 32)) ptx::mbar_wait(&sm.full[stage], (b / NS) & 1);  // (ablation 32: no wait for the rows)
    uint8_t* rows = sm.rows + stage * S::kStage;

    // ---- the block's codes (own dims) -> fp16 tile; own candidates' scales -> table ----
    if constexpr (!(kSkip & 4)) {  // ablation 4: no conversion into the fp16 tile
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      const int d = 256 * wg + 16 * (dq + 2 * i);
      uint4 lo, hi;
      e4m3x16_to_f16(*reinterpret_cast<const uint4*>(rows + cr * kRowBytes + d), lo, hi);
      *reinterpret_cast<uint4*>(tile + core_offset<64>(cr, d)) = lo;
      *reinterpret_cast<uint4*>(tile + core_offset<64>(cr, d + 8)) = hi;
    }
    }
    if (w == 0) {  // lane = candidate 32 wg + lane
      const int c = 32 * wg + lane;
      const float4 s = *reinterpret_cast<const float4*>(rows + c * kRowBytes + L::kScalesOffset);
      const float sv[4] = {fabsf(s.x), fabsf(s.y), fabsf(s.z), fabsf(s.w)};
      scale_bad |= !isfinite(s.x) || !isfinite(s.y) || !isfinite(s.z) || !isfinite(s.w);  // zero rows: 0
      tab_s[c] = s;
      // The candidate's shifted scales and 2^E_c, once per candidate here rather than by
      // each of the 32 threads that hold it.
      const int e_c = sm.flags[stage * kBlockRows + c] != 0
                          ? exponent_bound(fmaxf(fmaxf(sv[0], sv[1]), fmaxf(sv[2], sv[3])))
                          : kInactive;
      float sn[4], up;
      const bool a = hm_shifted_scales(s, e_c, sn, up);
      tab_sn[c] = make_float4(sn[0], sn[1], sn[2], sn[3]);
      tab_up[c] = a ? up : -1.0f;
#pragma unroll
      for (int t = 0; t < 4; ++t) {
        float mx = sv[t];  // max |s_t| over this warpgroup's candidates (NaN: skipped; flagged)
#pragma unroll
        for (int o_ = 1; o_ < 32; o_ *= 2) mx = fmaxf(mx, __shfl_xor_sync(~0u, mx, o_));
        if (lane == 0) tab_smax[wg * 4 + t] = mx;
      }
    }
    ptx::fence_proxy_async();      // the tile is read by the MMAs through the async proxy
    ptx::all_consumers_sync<2>();  // (2) the tile and table are complete; the stage is free

    // ---- scores of own candidates over all dims: one accumulator per tile ----
    float acc[4][16];
#pragma unroll
    for (int t = 0; t < 4; ++t)
#pragma unroll
      for (int e = 0; e < 16; ++e) {
        acc[t][e] = 0.0f;
        asm volatile("" : "+f"(acc[t][e]));  // opaque: the scalar work on the scores stays
      }
    if constexpr (!(kSkip & 1)) {  // ablation 1: no score MMAs (scores from zero accumulators)
    ptx::wgmma_fence();
#pragma unroll
    for (int t = 0; t < 4; ++t)
#pragma unroll
      for (int s = 0; s < 8; ++s) {
        const int d0 = 128 * t + 16 * s;  // core_offset<64>(0, d0) and (32 wg, d0)
        HmWgmma::scores(acc[t], q_desc + uint64_t((d0 * 128) >> 4), k_desc + uint64_t((d0 * 128) >> 4), s > 0);
      }
    ptx::wgmma_commit();
    ptx::wgmma_wait<0>();
#pragma unroll
    for (int t = 0; t < 4; ++t) ptx::fence_regs(acc[t]);

    }
    // ---- scaled scores (e = 4 j + 2 hi + k: candidate 32 wg + 8 j + 2 q4 + k, head hi) ----
    float sc[16];
    float mx[2] = {-INFINITY, -INFINITY};
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int k = 0; k < 2; ++k) {
        const int c = 32 * wg + 8 * j + 2 * q4 + k;
        const float4 s4 = tab_sn[c];
        const float sn[4] = {s4.x, s4.y, s4.z, s4.w};
        const float up = tab_up[c];
        const bool a = up > 0.0f;
#pragma unroll
        for (int hi = 0; hi < 2; ++hi) {
          const int e = 4 * j + 2 * hi + k;
          sc[e] = hm_score(hm_tile_sum(acc, e, sn), pre[hi], up, post[hi], a);  // (an inactive one: -inf)
          mx[hi] = fmaxf(mx[hi], sc[e]);
        }
      }
    // The block maximum per head: this warpgroup's candidates, then both halves.
    float2* const xmax = reinterpret_cast<float2*>(rows + S::kXchgMax);
#pragma unroll
    for (int hi = 0; hi < 2; ++hi) {
      mx[hi] = fmaxf(mx[hi], __shfl_xor_sync(~0u, mx[hi], 1));
      mx[hi] = fmaxf(mx[hi], __shfl_xor_sync(~0u, mx[hi], 2));
    }
    xmax[wg * 128 + tid] = make_float2(mx[0], mx[1]);
    if constexpr (!(kSkip & 8)) ptx::all_consumers_sync<2>();  // (3) both halves' maxima (ablation 8: no barrier)
    const float2 mo = xmax[(wg ^ 1) * 128 + tid];
    float bmax[2], corr[2], psum[2];
#pragma unroll
    for (int hi = 0; hi < 2; ++hi) {
      const float other = hi ? mo.y : mo.x;
      bmax[hi] = wg == 0 ? fmaxf(mx[hi], other) : fmaxf(other, mx[hi]);  // one order in both
      const float m_old = m_run[hi];
      const float m = bmax[hi] > m_old + kLazyMax ? bmax[hi] : m_old;  // lazy_max
      corr[hi] = m_old == m ? 1.0f : ptx::exp2_approx(m_old - m);
      m_run[hi] = m;
      psum[hi] = hm_probabilities(sc, hi, m);
    }
    // Per (tile, head), the same in both warpgroups: the bound of p |s_t| (max(p) = 2^(bmax
    // - m) times the block's max |s_t|), its exponent F and O's rescale factor (own tiles).
    // r = 0: own tiles (2 wg + t2), r = 1: the other warpgroup's.
    float down[2][2][2];  // [r][t2][hi]: 2^-F
#pragma unroll
    for (int r = 0; r < 2; ++r)
#pragma unroll
      for (int t2 = 0; t2 < 2; ++t2) {
        const int t = 2 * (wg ^ r) + t2;
        const float smax = fmaxf(tab_smax[t], tab_smax[4 + t]);
#pragma unroll
        for (int hi = 0; hi < 2; ++hi) {
          const float pm = bmax[hi] == m_run[hi] ? 1.0f : ptx::exp2_approx(bmax[hi] - m_run[hi]);
          float* const bw = st + 256 * (2 + 2 * t + hi);
          int* const fw = st_f + 256 * (10 + 2 * t + hi);
          const float bnd = fmaxf(*bw * corr[hi], pm * smax);
          const int f_new = exponent_bound(bnd);
          const int d = *fw - f_new;
          *bw = bnd;
          *fw = f_new;
          down[r][t2][hi] = pow2(-f_new);
          if (r == 0) {
            // |d| <= 252: two normal powers of two; 1 (no rescale) unless the maximum or
            // the exponent moved.
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
      }
    // U_t = p s_t 2^-F over own candidates: own tiles kept, the other's handed over (with
    // the partial sums) through the stage.
    uint32_t u[2][4][2];   // own tiles [t2][j][hi]
    uint32_t* const xu = reinterpret_cast<uint32_t*>(rows + S::kXchgU);  // [wg][18][128]
    if constexpr (kSkip & 16) {  // ablation 16: no U (the probabilities kept live)
#pragma unroll
      for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
        for (int j = 0; j < 4; ++j)
#pragma unroll
          for (int hi = 0; hi < 2; ++hi) u[t2][j][hi] = __float_as_uint(sc[4 * j + 2 * hi + t2]);
    } else
#pragma unroll
    for (int r = 0; r < 2; ++r)
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int c = 32 * wg + 8 * j + 2 * q4;
        // scales of tiles 2 (wg ^ r), + 1 of candidates c, c + 1
        const float2 s0 = reinterpret_cast<const float2*>(tab_s + c)[wg ^ r];
        const float2 s1 = reinterpret_cast<const float2*>(tab_s + c + 1)[wg ^ r];
#pragma unroll
        for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
          for (int hi = 0; hi < 2; ++hi) {
            const float dn = down[r][t2][hi];
            const uint32_t x = pack_f16x2((sc[4 * j + 2 * hi] * (t2 ? s0.y : s0.x)) * dn,
                                          (sc[4 * j + 2 * hi + 1] * (t2 ? s1.y : s1.x)) * dn);
            if (r == 0)
              u[t2][j][hi] = x;
            else
              xu[(wg * 18 + (t2 * 4 + j) * 2 + hi) * 128 + tid] = x;
          }
      }
    xu[(wg * 18 + 16) * 128 + tid] = __float_as_uint(psum[0]);
    xu[(wg * 18 + 17) * 128 + tid] = __float_as_uint(psum[1]);
    if constexpr (!(kSkip & 8)) ptx::all_consumers_sync<2>();  // (4) both halves' U and sums (ablation 8: no barrier)
    uint32_t uo[2][4][2];  // own tiles over the other warpgroup's candidates
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int hi = 0; hi < 2; ++hi) uo[t2][j][hi] = xu[((wg ^ 1) * 18 + (t2 * 4 + j) * 2 + hi) * 128 + tid];
#pragma unroll
    for (int hi = 0; hi < 2; ++hi) {
      const float other = __uint_as_float(xu[((wg ^ 1) * 18 + 16 + hi) * 128 + tid]);
      const float sum = wg == 0 ? __fadd_rn(psum[hi], other) : __fadd_rn(other, psum[hi]);
      st[256 * hi] = __fadd_rn(__fmul_rn(st[256 * hi], corr[hi]), sum);
    }
    ptx::fence_proxy_async();  // generic accesses of the stage before the producer's bulk copies
    __syncwarp();
    if (lane == 0) ptx::mbar_arrive(&sm.empty[stage]);

    // ---- values: O_t[64 heads, 128 dims] += U_t . V_t per own tile, all 64 candidates ----
    // The A fragments first (all defined before the fence: no injected arrives).
    uint32_t a[2][4][4];  // [t2][kk]: candidates 16 kk .. 16 kk + 15, warpgroup kk / 2's
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        const bool mine = (kk / 2) == wg;
        const int j0 = 2 * (kk % 2);
        a[t2][kk][0] = mine ? u[t2][j0][0] : uo[t2][j0][0];
        a[t2][kk][1] = mine ? u[t2][j0][1] : uo[t2][j0][1];
        a[t2][kk][2] = mine ? u[t2][j0 + 1][0] : uo[t2][j0 + 1][0];
        a[t2][kk][3] = mine ? u[t2][j0 + 1][1] : uo[t2][j0 + 1][1];
      }
    if constexpr (!(kSkip & 2)) {  // ablation 2: no value MMAs
    ptx::wgmma_fence();
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        // candidates 16 kk.. (cores 2 kk, 2 kk + 1), dims 128 (2 wg + t2).. (core 16 (2 wg + t2))
        const uint64_t off = uint64_t((core_offset<64>(16 * kk, 128 * t2)) >> 4);
        HmWgmma::values(o[t2], a[t2][kk], v_desc + off);
      }
    ptx::wgmma_commit();
    ptx::wgmma_wait<0>();
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2) ptx::fence_regs(o[t2]);
    } else {
#pragma unroll
      for (int t2 = 0; t2 < 2; ++t2)
#pragma unroll
        for (int kk = 0; kk < 4; ++kk)
#pragma unroll
          for (int i = 0; i < 4; ++i) asm volatile("" ::"r"(a[t2][kk][i]));  // U stays computed
    }
  }

  // ---- epilogue ----
  if (__any_sync(~0u, scale_bad) && lane == 0) atomicOr(sm.bad_all, 1);
  ptx::all_consumers_sync<2>();
  const HmPlace at = hm_place(p, sm.bad_all);
#pragma unroll
  for (int hi = 0; hi < 2; ++hi) {
    const int h = 16 * w + g + 8 * hi;
    if (h >= at.nh) continue;
    const float l = st[256 * hi];
    const float rl = l > 0.0f ? __fdiv_rn(1.0f, l) : 0.0f;
    // A NaN sum: a NaN score was seen; otherwise non-finite referenced input poisons the
    // head (never the empty sentinel).
    const bool bad = isnan(l) || (l > 0.0f && (sm.bad_head[h] != 0 || at.any_bad_scale));
    const float lse2 = l > 0.0f ? m_run[hi] + log2f(l) : -INFINITY;
#pragma unroll
    for (int t2 = 0; t2 < 2; ++t2) {
      float v[16][2];
#pragma unroll
      for (int j = 0; j < 16; ++j) {
        v[j][0] = o[t2][4 * j + 2 * hi] * rl;
        v[j][1] = o[t2][4 * j + 2 * hi + 1] * rl;
      }
      store_head_at<16>(p, at.token, at.split, at.h0 + h, 128 * (2 * wg + t2), 8, q4, v,
                        pow2(st_f[256 * (10 + 2 * (2 * wg + t2) + hi)]), lse2, bad,
                        wg == 0 && t2 == 0 && q4 == 0);
    }
  }
}

}  // namespace jax_glm_nope::sm90
