// The selftest's device runs: upload, launch through the lab's launcher, and the checks.
#pragma once

#include "cases.cuh"

namespace {

// ---------------------------------------------------------------- device runs
bool g_block_shared = false;  // H <= 8: the block-shared kernel instead of the warp-private one
// The kernel choice for the correctness runs (the product's unless a pass forces a kernel
// by name: LabParams).
const char* g_up_to_32 = nullptr;   // 9-32 heads
const char* g_above_32 = nullptr;   // 33-128 heads
bool g_candidate = false;           // 33-128 heads: the slot's candidate
int g_bench_min_heads = 0;
bool g_only_pipelined = false;  // --pipelined-check: correctness pass 3 alone, no timings
// The candidate in the pipelined slot (lab::kCandidate) is opt-in here: --with-pipelined
// runs pass 3 and its timing rows.
bool g_skip_pipelined = true;
// --same-bits: the kernel under test in pass 3 claims the product kernel's bits; every
// case and split count is compared with the product's (a candidate that only removes
// work, as the lean kernel of run 39 did before it became the product's).
bool g_same_bits = false;
bool g_bench_only = false;      // --bench-only: the timings alone (no correctness passes)  // --bench-min-heads N: time only the rows of N heads or more

struct DeviceCase {
  __nv_bfloat16* q = nullptr;
  uint8_t* pool = nullptr;
  int32_t* indices = nullptr;
  int32_t* lens = nullptr;
  __nv_bfloat16* out = nullptr;
  float* lse = nullptr;
  float* part_out = nullptr;
  float* part_lse = nullptr;
  size_t part_capacity = 0;  // splits the scratch holds
};

void upload(const Case& c, DeviceCase& d, int max_splits) {
  const size_t nq = c.q.size();
  CHECK_CUDA(cudaMalloc(&d.q, nq * 2));
  CHECK_CUDA(cudaMemcpy(d.q, c.q.data(), nq * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMalloc(&d.pool, c.pool.size()));
  CHECK_CUDA(cudaMemcpy(d.pool, c.pool.data(), c.pool.size(), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMalloc(&d.indices, c.indices.size() * 4));
  CHECK_CUDA(cudaMemcpy(d.indices, c.indices.data(), c.indices.size() * 4, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMalloc(&d.lens, c.lens.size() * 4));
  CHECK_CUDA(cudaMemcpy(d.lens, c.lens.data(), c.lens.size() * 4, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMalloc(&d.out, nq * 2));
  CHECK_CUDA(cudaMalloc(&d.lse, size_t(c.tokens) * c.heads * 4));
  d.part_capacity = max_splits;
  CHECK_CUDA(cudaMalloc(&d.part_out, size_t(c.tokens) * max_splits * c.heads * L::kHeadDim * 4));
  CHECK_CUDA(cudaMalloc(&d.part_lse, size_t(c.tokens) * max_splits * c.heads * 4));
}

void release(DeviceCase& d) {
  for (void* p : {(void*)d.q, (void*)d.pool, (void*)d.indices, (void*)d.lens, (void*)d.out,
                  (void*)d.lse, (void*)d.part_out, (void*)d.part_lse})
    CHECK_CUDA(cudaFree(p));
  d = DeviceCase{};
}

lab::LabParams params_for(const Case& c, const DeviceCase& d, int splits, int token0 = 0,
                                 int tokens = -1) {
  lab::LabParams p;
  const int64_t H = c.heads, D = L::kHeadDim;
  p.q = d.q + token0 * H * D;
  p.pool = d.pool;
  p.indices = d.indices + int64_t(token0) * c.topk;
  p.topk_lens = d.lens + token0;
  p.out = d.out + token0 * H * D;
  p.lse = d.lse + token0 * H;
  p.part_out = d.part_out;
  p.part_lse = d.part_lse;
  p.num_slots = c.num_slots;
  p.row_bytes = c.row_bytes;
  p.tokens = tokens < 0 ? c.tokens : tokens;
  p.heads = c.heads;
  p.topk = c.topk;
  p.num_splits = splits;
  p.blocks_per_split = sm90::blocks_per_split_of(c.topk, splits);
  p.sm_scale = c.sm_scale;
  p.up_to_8_heads = g_block_shared ? lab::kBlockShared : nullptr;
  p.up_to_32_heads = g_up_to_32;
  p.above_32_heads = g_above_32;
  p.candidate = g_candidate;
  return p;
}

constexpr uint16_t kPoisonOut = 0x7f01;      // a NaN the kernel never writes
constexpr uint32_t kPoisonLse = 0x7f800001u;  // likewise

void poison(const Case& c, const DeviceCase& d) {
  std::vector<uint16_t> o(c.q.size(), kPoisonOut);
  std::vector<uint32_t> l(size_t(c.tokens) * c.heads, kPoisonLse);
  CHECK_CUDA(cudaMemcpy(d.out, o.data(), o.size() * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d.lse, l.data(), l.size() * 4, cudaMemcpyHostToDevice));
}

struct Result {
  std::vector<uint16_t> out;
  std::vector<float> lse;
};

// product = true: the product's kernel choice whatever the pass (--same-bits).
Result run(const Case& c, const DeviceCase& d, int splits, bool product = false) {
  poison(c, d);
  auto p = params_for(c, d, splits);
  if (product) p.candidate = false;
  CHECK_CUDA(lab::lab_launch(p, 0));
  CHECK_CUDA(cudaDeviceSynchronize());
  Result r;
  r.out.resize(c.q.size());
  r.lse.resize(size_t(c.tokens) * c.heads);
  CHECK_CUDA(cudaMemcpy(r.out.data(), d.out, r.out.size() * 2, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(r.lse.data(), d.lse, r.lse.size() * 4, cudaMemcpyDeviceToHost));
  return r;
}

int g_failures = 0;

// SPEC 3 bounds per token; returns the worst relative L2 error seen.
double check(const Case& c, const Result& r, int splits, double* worst_lse) {
  const int T = c.tokens, H = c.heads, D = L::kHeadDim;
  double worst = 0.0;
  *worst_lse = 0.0;
  int reported = 0;
  auto fail = [&](const std::string& what) {
    ++g_failures;
    if (reported++ < 8) std::printf("  FAIL %s S=%d: %s\n", c.name.c_str(), splits, what.c_str());
  };
  for (int t = 0; t < T; ++t) {
    double num = 0.0, den = 0.0;
    for (int h = 0; h < H; ++h) {
      const int64_t th = int64_t(t) * H + h;
      uint32_t lbits;
      std::memcpy(&lbits, &r.lse[th], 4);
      bool written = lbits != kPoisonLse;
      for (int i = 0; i < D; ++i) written = written && r.out[th * D + i] != kPoisonOut;
      if (!written) {
        fail("unwritten output t=" + std::to_string(t) + " h=" + std::to_string(h));
        continue;
      }
      const float lse = r.lse[th];
      const int e = c.expect[th];
      if (e == 1) {  // empty: out 0, lse -inf
        bool zero = lse == -INFINITY;
        for (int i = 0; i < D; ++i) zero = zero && bf16_value(r.out[th * D + i]) == 0.0f;
        if (!zero) fail("empty head not 0/-inf t=" + std::to_string(t) + " h=" + std::to_string(h));
        continue;
      }
      if (e == 2) {  // non-finite referenced input: NaN in both
        bool nan = std::isnan(lse);
        for (int i = 0; i < D; ++i) nan = nan && std::isnan(bf16_value(r.out[th * D + i]));
        if (!nan) fail("expected NaN t=" + std::to_string(t) + " h=" + std::to_string(h));
        continue;
      }
      bool finite_out = true;
      for (int i = 0; i < D; ++i) finite_out = finite_out && !std::isnan(bf16_value(r.out[th * D + i]));
      if (!finite_out || std::isnan(lse)) {
        fail("NaN from finite input t=" + std::to_string(t) + " h=" + std::to_string(h));
        continue;
      }
      if (e == 3) {  // the true score overflows float32: lse +inf (or the true value)
        if (!(lse == INFINITY || std::fabs(lse - c.ref_lse[th]) <= 1e-2 * std::fabs(c.ref_lse[th])))
          fail("overflowing score: lse " + std::to_string(lse));
        continue;
      }
      const double dl = std::fabs(double(lse) - c.ref_lse[th]);
      const double bound = 1e-2 * std::max(1.0, std::fabs(c.ref_lse[th]));
      *worst_lse = std::max(*worst_lse, dl / bound * 1e-2);
      if (!(dl <= bound))
        fail("lse t=" + std::to_string(t) + " h=" + std::to_string(h) + " got " +
             std::to_string(lse) + " ref " + std::to_string(c.ref_lse[th]));
      for (int i = 0; i < D; ++i) {
        const double ref = c.ref_out[th * D + i];
        const double got = bf16_value(r.out[th * D + i]);
        num += (got - ref) * (got - ref);
        den += ref * ref;
      }
    }
    const double rel = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
    worst = std::max(worst, rel);
    if (!(rel <= 5e-3)) fail("rel L2 t=" + std::to_string(t) + " = " + std::to_string(rel));
  }
  return worst;
}

bool same_bits(const Result& a, const Result& b) {
  return a.out == b.out &&
         std::memcmp(a.lse.data(), b.lse.data(), a.lse.size() * 4) == 0;
}

void correctness_case(Case& c, int sm_count) {
  if (g_candidate && c.heads <= sm90::kGroupHeads) return;  // the pass is about 33-128 heads
  reference(c);
  const int blocks = sm90::num_blocks(c.topk);
  std::vector<int> splits = {1, sm90::invariant_num_splits(c.heads, c.topk),
                             sm90::batch_num_splits(c.tokens, c.heads, c.topk, sm_count), blocks,
                             sm90::splits_of(c.topk, 3)};
  std::sort(splits.begin(), splits.end());
  splits.erase(std::unique(splits.begin(), splits.end()), splits.end());
  DeviceCase d;
  upload(c, d, splits.back());
  for (int s : splits) {
    const Result r = run(c, d, s);
    double worst_lse;
    const double worst = check(c, r, s, &worst_lse);
    const Result again = run(c, d, s);
    const bool det = same_bits(r, again);
    if (!det) {
      ++g_failures;
      std::printf("  FAIL %s S=%d: bits differ on repeat\n", c.name.c_str(), s);
    }
    if (g_same_bits && g_candidate && !same_bits(r, run(c, d, s, true))) {
      ++g_failures;
      std::printf("  FAIL %s S=%d: bits differ from the product kernel's\n", c.name.c_str(), s);
    }
    std::printf("%s%-30s T=%-3d H=%-2d K=%-4d row=%d S=%-2d  max rel L2 %.2e  max |dlse|/bound %.2e"
                "  spread %.0f nats  repeat %s\n",
                g_candidate ? "[pipelined] " : (g_block_shared ? "[block-shared] " : (g_up_to_32 == lab::kCandidatesMajor ? "[wgmma always] " : (g_above_32 ? "[no wgmma, groups of 32] " : ""))), c.name.c_str(), c.tokens, c.heads, c.topk, c.row_bytes, s, worst,
                worst_lse * 100, c.max_spread, det ? "same bits" : "DIFFERENT");
  }
  release(d);
}

}  // namespace
