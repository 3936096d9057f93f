// The split combine: a deterministic merge of each token's split partials.
// Part of our sm_90a sparse-MLA kernels (sparse_mla_kernel.cuh is the entry).
#pragma once

#include "ours/sm90/device_helpers.cuh"

namespace jax_glm_nope::sm90 {

// ---------------------------------------------------------------------------
// Split combine: one CTA per (token, head), 128 threads x 4 dims, splits merged in
// index order as a running weighted mean (exact LSE merge, no atomics).

__global__ void __launch_bounds__(128) combine_kernel(const SparseMlaParams p) {
  ptx::grid_dependency_wait();  // the attention kernel's partials
  const int token = blockIdx.x;
  const int h = blockIdx.y;
  const int splits = p.num_splits;
  const int64_t base = int64_t(token) * splits * p.heads + h;  // part_lse index of split 0
  // Loads are issued 8 splits at a time before the ordered merge (b = 1 has 32 splits:
  // one global latency per 8 splits instead of per split); same arithmetic and order.
  constexpr int kAhead = 8;
  float m = -INFINITY;
  bool nan = false;
#pragma unroll 8
  for (int s = 0; s < splits; ++s) {
    const float v = p.part_lse[base + int64_t(s) * p.heads];
    nan = nan || isnan(v);
    m = fmaxf(m, v);
  }
  float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  float total = 0.0f;
  if (!nan && m != -INFINITY) {
    for (int s0 = 0; s0 < splits; s0 += kAhead) {
      float v[kAhead];
      float4 x[kAhead];
#pragma unroll
      for (int k = 0; k < kAhead; ++k) {
        const int64_t row = base + int64_t(s0 + k) * p.heads;
        const bool in = s0 + k < splits;  // every split's rows are written, empty ones too
        v[k] = in ? p.part_lse[row] : -INFINITY;
        x[k] = in ? *reinterpret_cast<const float4*>(p.part_out + row * L::kHeadDim + threadIdx.x * 4)
                  : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      }
#pragma unroll
      for (int k = 0; k < kAhead; ++k) {
        const float wgt = v[k] == m ? 1.0f : ptx::exp2_approx(v[k] - m);  // -inf splits weigh 0
        if (wgt == 0.0f) continue;
        const float next = total + wgt;  // >= 1: the split at the max weighs 1
        const float keep = total / next, take = wgt / next;
        acc.x = acc.x * keep + x[k].x * take;
        acc.y = acc.y * keep + x[k].y * take;
        acc.z = acc.z * keep + x[k].z * take;
        acc.w = acc.w * keep + x[k].w * take;
        total = next;
      }
    }
  }
  float lse;
  if (nan) {
    lse = __int_as_float(0x7fffffff);
    acc = make_float4(lse, lse, lse, lse);
  } else {
    lse = total > 0.0f ? (m + log2f(total)) * kLn2 : -INFINITY;
  }
  const int64_t row = int64_t(token) * p.heads + h;
  __nv_bfloat162* dst = reinterpret_cast<__nv_bfloat162*>(p.out + row * L::kHeadDim + threadIdx.x * 4);
  dst[0] = __floats2bfloat162_rn(acc.x, acc.y);
  dst[1] = __floats2bfloat162_rn(acc.z, acc.w);
  if (threadIdx.x == 0) p.lse[row] = lse;
}

}  // namespace jax_glm_nope::sm90
