// The split combine: a deterministic merge of each token's split partials.
// Part of our sm_90a sparse-MLA kernels (sparse_mla_kernel.cuh is the entry).
#pragma once

#include "ours/sm90/device_helpers.cuh"

namespace jax_glm_nope::sm90 {

// ---------------------------------------------------------------------------
// Split combine: one CTA per (token, head), warp q owning dims 128 q + 4 lane .. + 3. Each
// warp holds the head's first 32 split LSEs in its lanes (further splits are read again
// per pass), takes their maximum and the sum of the weights 2^(lse_s - max) by shuffles
// (one fixed tree, then lane 0's sum broadcast), and merges the splits in index order as
// o = sum_s (w_s / total) x_s: every partial load of the head is independent of the others
// (no serial chain through a running total), and the weights sum to 1 within a few ulp, so
// no partial sum exceeds max |x_s| by more. Deterministic, no atomics.

constexpr int kPrefetchSplits = 32;  // one warp's lanes hold the first 32 LSEs

__global__ void __launch_bounds__(128) combine_kernel(const SparseMlaParams p) {
  ptx::grid_dependency_wait();  // the attention kernel's partials
  const int token = blockIdx.x;
  const int h = blockIdx.y;
  const int lane = threadIdx.x % 32;
  const int splits = p.num_splits;
  const int64_t base = int64_t(token) * splits * p.heads + h;  // part_lse index of split 0
  auto lse_of = [&](int s) { return s < splits ? p.part_lse[base + int64_t(s) * p.heads] : -INFINITY; };
  // The first 32 splits' LSEs stay in their lanes' registers (one round of loads in all for
  // up to 32 splits); further splits are read again in each pass.
  const float first = lse_of(lane);
  // Up to 32 splits: every partial load is issued here, with the LSEs' (the weights depend
  // only on the LSEs), so the merge waits for one round of loads, not for the LSEs' round
  // and then the partials' (a one-token call's tail after its kernel).
  const float* part = p.part_out + base * L::kHeadDim + threadIdx.x * 4;
  const int64_t split_stride = int64_t(p.heads) * L::kHeadDim;
  float4 x[kPrefetchSplits];
  if (splits <= kPrefetchSplits) {
#pragma unroll
    for (int k = 0; k < kPrefetchSplits; ++k)
      if (k < splits) x[k] = *reinterpret_cast<const float4*>(part + k * split_stride);
  }
  float m = first;
  bool nan = isnan(first);
  for (int s = lane + 32; s < splits; s += 32) {
    const float v = lse_of(s);
    nan = nan || isnan(v);
    m = fmaxf(m, v);
  }
#pragma unroll
  for (int o = 16; o > 0; o /= 2) m = fmaxf(m, __shfl_xor_sync(~0u, m, o));
  nan = __any_sync(~0u, nan);
  // (-inf splits weigh 0; the split at the max weighs 1, so total >= 1)
  auto weight = [&](float v) { return v == m ? 1.0f : ptx::exp2_approx(v - m); };
  float total = 0.0f;
  if (!nan && m != -INFINITY) {
    total = weight(first);
    for (int s = lane + 32; s < splits; s += 32) total += weight(lse_of(s));
#pragma unroll
    for (int o = 16; o > 0; o /= 2) total += __shfl_xor_sync(~0u, total, o);
    total = __shfl_sync(~0u, total, 0);
  }
  float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if (splits <= kPrefetchSplits) {
    // The same weights, the same order of fmas: the same bits as the loop below.
    if (total > 0.0f) {
      const float take = __fdividef(weight(first), total);
#pragma unroll
      for (int k = 0; k < kPrefetchSplits; ++k)
        if (k < splits) {
          const float t = __shfl_sync(~0u, take, k);
          acc.x = fmaf(t, x[k].x, acc.x);
          acc.y = fmaf(t, x[k].y, acc.y);
          acc.z = fmaf(t, x[k].z, acc.z);
          acc.w = fmaf(t, x[k].w, acc.w);
        }
    }
  } else if (total > 0.0f) {
    for (int s0 = 0; s0 < splits; s0 += 32) {
      // (div.approx: total is in [1, splits], no subnormal; a few ulp, the same bits every run)
      const float take = __fdividef(weight(s0 == 0 ? first : lse_of(s0 + lane)), total);
      const int n = min(32, splits - s0);
#pragma unroll 16
      for (int k = 0; k < n; ++k) {
        const float t = __shfl_sync(~0u, take, k);
        // every split's rows are written, empty ones too (zeros, weight 0)
        const float4 x = *reinterpret_cast<const float4*>(part + int64_t(s0 + k) * split_stride);
        acc.x = fmaf(t, x.x, acc.x);
        acc.y = fmaf(t, x.y, acc.y);
        acc.z = fmaf(t, x.z, acc.z);
        acc.w = fmaf(t, x.w, acc.w);
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
