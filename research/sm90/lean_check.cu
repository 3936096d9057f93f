// The pipelined heads-major kernel with the lean softmax against the same kernel with
// today's two-exponential softmax (heads_major_pipelined_kernel.cuh, hp_kernel_body<kLean>):
//   1. correctness of both on hostile data through the product's launcher shape (splits,
//      combine), against a float64 CPU reference: SPEC's bounds (out rel L2 <= 5e-3 per
//      token, |lse - ref| <= 1e-2 max(1, |ref|)), every element written, finite input never
//      NaN, empty heads 0 / -inf; the lean kernel deterministic; data kinds tame, wide,
//      shared offset, mixed magnitudes, holes, and rows 2^+-100 apart inside every block
//      (the lean softmax's slow path), at score spreads of 10 and 1000 nats;
//   2. timings: b=128 x K=2048 at 64 and 128 heads (the product's batch split rule), the two
//      kernels alternated, CUDA events over 20 launches, median of 5.
// Prints one "RESULT" line per case and a verdict; exit status 1 on any failure.
//
//   research/sm90_lean_check.sh $OUT      (build + run; needs an H100/H200)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "lab_launch.cuh"  // (lean_kernel.cuh: the two kernels)

namespace sm90 = jax_glm_nope::sm90;
namespace L = jax_glm_nope::layout;

#define CK(x)                                                                              \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                               \
      std::printf("FAIL: CUDA %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

static const sm90::KernelLaunch& kOld = jax_glm_nope::lab::kHpOldLaunch;
static const sm90::KernelLaunch& kLean = jax_glm_nope::lab::kHpLeanLaunch;

static float e4m3_value(uint8_t c) {
  __nv_fp8_e4m3 v;
  v.__x = c;
  return float(v);
}
static uint8_t e4m3_code(float x) { return __nv_fp8_e4m3(x).__x; }
static uint16_t bf16_bits(float x) {
  const __nv_bfloat16 b = __float2bfloat16_rn(x);
  uint16_t u;
  std::memcpy(&u, &b, 2);
  return u;
}
static float bf16_value(uint16_t u) {
  uint32_t w = uint32_t(u) << 16;
  float f;
  std::memcpy(&f, &w, 4);
  return f;
}

// One token's inputs: rows in the pool (528 bytes), q, the indices and topk_lens.
struct Case {
  const char* name;
  int tokens, heads, topk, splits;
  int64_t slots;
  std::vector<uint8_t> pool;
  std::vector<uint16_t> q;
  std::vector<int32_t> idx, lens;
  float sm = 1.0f;
};

// A row from a latent: per tile s = amax / 448, codes = e4m3(x / s), then the tile scales
// times 2^shift (the writer's scale exponent moved, codes unchanged).
static void write_row(uint8_t* row, const float* x, float mul, const float* tile_mul) {
  float s4[4];
  for (int t = 0; t < 4; ++t) {
    float amax = 0;
    for (int i = 0; i < 128; ++i) amax = std::max(amax, std::fabs(x[128 * t + i]));
    const float s = amax / 448.0f;
    for (int i = 0; i < 128; ++i) row[128 * t + i] = s == 0 ? 0 : e4m3_code(x[128 * t + i] / s);
    s4[t] = s * mul * tile_mul[t];
  }
  std::memcpy(row + L::kScalesOffset, s4, 16);
}

static double row_value(const uint8_t* row, int i) {
  float s[4];
  std::memcpy(s, row + L::kScalesOffset, 16);
  return double(e4m3_value(row[i]) * s[i / 128]);
}

// kinds: tame, wide, offset, mixed, holes, slow (rows 2^-100, 1, 2^100 in every block),
// slowtop (the same, the 2^100 rows scored lowest: the small rows dominate)
static Case make_case(const char* name, const char* kind, int tokens, int heads, int topk, int splits, double spread,
                      uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::uniform_real_distribution<float> ud(0.0f, 1.0f);
  Case c;
  c.name = name;
  c.tokens = tokens, c.heads = heads, c.topk = topk, c.splits = splits;
  const bool wide = !std::strcmp(kind, "wide"), offset = !std::strcmp(kind, "offset"),
             mixed = !std::strcmp(kind, "mixed"), holes = !std::strcmp(kind, "holes"),
             slow = !std::strncmp(kind, "slow", 4), slowtop = !std::strcmp(kind, "slowtop");
  c.slots = int64_t(tokens) * topk + 7;
  c.pool.assign(size_t(c.slots) * 528, 0);
  std::vector<float> mu(512), dir(512);
  for (auto& v : mu) v = nd(rng);
  for (auto& v : dir) v = nd(rng) > 0 ? 1.0f : -1.0f;
  c.q.resize(size_t(tokens) * heads * 512);
  for (size_t i = 0; i < c.q.size(); ++i) {
    float v = nd(rng);
    if (wide) v *= 20.0f;
    if (offset) v = 3.0f * mu[i % 512] + v;
    if (mixed) v = std::fabs(v) * dir[i % 512] * 0.5f + nd(rng);
    if (slowtop) v = std::fabs(v) * dir[i % 512];
    c.q[i] = bf16_bits(v);
  }
  std::vector<float> x(512);
  for (int64_t r = 0; r < c.slots; ++r) {
    float mul = 1.0f, tm[4] = {1, 1, 1, 1};
    const int64_t j = r % topk;  // the candidate position this row takes (indices below)
    for (int i = 0; i < 512; ++i) x[i] = nd(rng);
    if (wide) {
      mul = std::exp(24.0f * ud(rng) - 12.0f);
      for (int t = 0; t < 4; ++t) {
        tm[t] = std::exp2(24.0f * ud(rng) - 12.0f);
        if (ud(rng) < 0.10f) tm[t] = -tm[t];
        if (ud(rng) < 0.03f) tm[t] = 0.0f;
      }
    } else if (offset) {
      for (int i = 0; i < 512; ++i) x[i] += 300.0f * mu[i];
    } else if (mixed) {
      mul = std::exp(-12.0f * ud(rng));
      if (j % 64 == 17) {  // one row per block e^12 larger, anti-aligned with the queries
        for (int i = 0; i < 512; ++i) x[i] = -std::fabs(x[i]) * dir[i];
        mul = std::exp(12.0f);
      }
    } else if (slow) {
      const int e = int(ud(rng) * 3.0f) - 1;  // -1, 0, 1
      mul = std::ldexp(1.0f, 100 * e);
      if (slowtop && e > 0)
        for (int i = 0; i < 512; ++i) x[i] = -std::fabs(x[i]) * dir[i];
    } else {
      mul = std::exp(nd(rng));
    }
    write_row(c.pool.data() + r * 528, x.data(), mul, tm);
  }
  c.idx.resize(size_t(tokens) * topk);
  c.lens.assign(tokens, topk);
  for (int t = 0; t < tokens; ++t)
    for (int j = 0; j < topk; ++j) {
      int32_t v = int32_t(int64_t(t) * topk + j);
      if (holes) {
        const float u = ud(rng);
        if (u < 0.2f) v = -1;
        else if (u < 0.25f) v = int32_t(c.slots + 5);  // out of range
        if (j >= 64 && j < 128) v = -1;           // a whole block of holes
      }
      c.idx[size_t(t) * topk + j] = v;
    }
  if (holes) {
    c.lens[0] = 0;              // an empty token
    if (tokens > 1) c.lens[1] = topk - 70;
  }
  // sm: the mean score spread (offset: the mean |score|) over the heads of token 0 = spread
  double acc = 0;
  for (int h = 0; h < heads; ++h) {
    double lo = 1e300, hi = -1e300, mag = 0;
    int n = 0;
    for (int j = 0; j < topk; ++j) {
      const int32_t r = c.idx[j];
      if (r < 0 || r >= c.slots) continue;
      double s = 0;
      for (int i = 0; i < 512; ++i) s += bf16_value(c.q[size_t(h) * 512 + i]) * row_value(&c.pool[size_t(r) * 528], i);
      lo = std::min(lo, s), hi = std::max(hi, s), mag += std::fabs(s), ++n;
    }
    acc += offset ? mag / std::max(n, 1) : hi - lo;
  }
  c.sm = float(spread / (acc / heads));
  return c;
}

struct Outputs {
  std::vector<uint16_t> out;
  std::vector<float> lse;
};

// Runs one kernel on the case through the product's launch shape (grid, combine).
static Outputs run(const Case& c, const sm90::KernelLaunch& k) {
  sm90::SparseMlaParams p{};
  uint8_t* pool;
  __nv_bfloat16 *q, *out;
  int32_t *idx, *lens;
  float *lse, *part_out = nullptr, *part_lse = nullptr;
  CK(cudaMalloc(&pool, c.pool.size()));
  CK(cudaMalloc(&q, c.q.size() * 2));
  CK(cudaMalloc(&out, c.q.size() * 2));
  CK(cudaMalloc(&idx, c.idx.size() * 4));
  CK(cudaMalloc(&lens, c.lens.size() * 4));
  CK(cudaMalloc(&lse, size_t(c.tokens) * c.heads * 4));
  if (c.splits > 1) {
    CK(cudaMalloc(&part_out, size_t(c.tokens) * c.splits * c.heads * 512 * 4));
    CK(cudaMalloc(&part_lse, size_t(c.tokens) * c.splits * c.heads * 4));
  }
  CK(cudaMemcpy(pool, c.pool.data(), c.pool.size(), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(q, c.q.data(), c.q.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(idx, c.idx.data(), c.idx.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(lens, c.lens.data(), c.lens.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemset(out, 0xff, c.q.size() * 2));  // poison: NaN
  CK(cudaMemset(lse, 0xff, size_t(c.tokens) * c.heads * 4));
  p.q = q, p.pool = pool, p.indices = idx, p.topk_lens = lens, p.out = out, p.lse = lse;
  p.part_out = part_out, p.part_lse = part_lse;
  p.num_slots = c.slots, p.row_bytes = 528, p.tokens = c.tokens, p.heads = c.heads, p.topk = c.topk;
  p.num_splits = c.splits, p.blocks_per_split = sm90::blocks_per_split_of(c.topk, c.splits), p.sm_scale = c.sm;
  if (!sm90::valid_launch(p) || p.blocks_per_split < sm90::kHpMinBlocks) {
    std::printf("FAIL: %s: not a pipelined-kernel launch\n", c.name);
    std::exit(1);
  }
  CK(jax_glm_nope::lab::lab_launch_kernel(k, p, 0, true));
  CK(cudaDeviceSynchronize());
  Outputs r;
  r.out.resize(c.q.size());
  r.lse.resize(size_t(c.tokens) * c.heads);
  CK(cudaMemcpy(r.out.data(), out, r.out.size() * 2, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(r.lse.data(), lse, r.lse.size() * 4, cudaMemcpyDeviceToHost));
  for (void* x : {(void*)pool, (void*)q, (void*)out, (void*)idx, (void*)lens, (void*)lse, (void*)part_out,
                  (void*)part_lse})
    if (x) CK(cudaFree(x));
  return r;
}

// Checks against the float64 reference; returns the number of failures; worst errors out.
static int check(const Case& c, const Outputs& r, const char* which, double& worst_out, double& worst_lse) {
  int fails = 0;
  worst_out = worst_lse = 0;
  std::vector<double> v(512), s;
  for (int t = 0; t < c.tokens; ++t) {
    const int n = std::clamp(c.lens[t], 0, c.topk);
    std::vector<const uint8_t*> rows;
    for (int j = 0; j < n; ++j) {
      const int32_t x = c.idx[size_t(t) * c.topk + j];
      if (x >= 0 && x < c.slots) rows.push_back(&c.pool[size_t(x) * 528]);
    }
    std::vector<double> vals(rows.size() * 512);
    for (size_t j = 0; j < rows.size(); ++j)
      for (int i = 0; i < 512; ++i) vals[j * 512 + i] = row_value(rows[j], i);
    double err2 = 0, ref2 = 0;
    for (int h = 0; h < c.heads; ++h) {
      const size_t th = size_t(t) * c.heads + h;
      const uint16_t* o = &r.out[th * 512];
      if (rows.empty()) {
        bool ok = r.lse[th] == -INFINITY;
        for (int i = 0; i < 512; ++i) ok = ok && bf16_value(o[i]) == 0.0f;
        if (!ok) ++fails;
        continue;
      }
      std::vector<double> qh(512);
      for (int i = 0; i < 512; ++i) qh[i] = bf16_value(c.q[th * 512 + i]);
      s.assign(rows.size(), 0);
      double mx = -1e300;
      for (size_t j = 0; j < rows.size(); ++j) {
        double d = 0;
        for (int i = 0; i < 512; ++i) d += qh[i] * vals[j * 512 + i];
        s[j] = double(c.sm) * d;
        mx = std::max(mx, s[j]);
      }
      double l = 0;
      std::fill(v.begin(), v.end(), 0.0);
      for (size_t j = 0; j < rows.size(); ++j) {
        const double p = std::exp(s[j] - mx);
        l += p;
        for (int i = 0; i < 512; ++i) v[i] += p * vals[j * 512 + i];
      }
      const double ref_lse = mx + std::log(l);
      for (int i = 0; i < 512; ++i) {
        const double got = bf16_value(o[i]), want = v[i] / l;
        if (std::isnan(got)) ++fails;
        err2 += (got - want) * (got - want), ref2 += want * want;
      }
      const double le = std::fabs(double(r.lse[th]) - ref_lse) / std::max(1.0, std::fabs(ref_lse));
      if (!(le <= 1e-2)) ++fails;
      worst_lse = std::max(worst_lse, std::isnan(le) ? 1e30 : le);
    }
    if (ref2 > 0) {
      const double rel = std::sqrt(err2 / ref2);
      worst_out = std::max(worst_out, std::isnan(rel) ? 1e30 : rel);
      if (!(rel <= 5e-3)) ++fails;
    }
  }
  std::printf("RESULT check %-22s %-5s out %.2e lse %.2e %s\n", c.name, which, worst_out, worst_lse,
              fails ? "FAIL" : "ok");
  return fails;
}

static int correctness() {
  struct Spec {
    const char* name;
    const char* kind;
    int tokens, heads, topk, splits;
    double spread;
  };
  const Spec specs[] = {
      {"tame-10", "tame", 3, 64, 2048, 1, 10},        {"tame-1000", "tame", 3, 64, 2048, 4, 1000},
      {"wide-1000", "wide", 3, 64, 2048, 1, 1000},    {"offset-1000", "offset", 3, 64, 2048, 2, 1000},
      {"mixed-10", "mixed", 3, 64, 2048, 1, 10},      {"mixed-1000", "mixed", 3, 128, 2048, 2, 1000},
      {"holes-100", "holes", 3, 40, 2176, 2, 100},    {"slow-10", "slow", 3, 64, 2048, 1, 10},
      {"slow-1000", "slow", 3, 64, 2048, 4, 1000},    {"slowtop-10", "slowtop", 3, 64, 2048, 1, 10},
      {"slowtop-100", "slowtop", 3, 96, 2048, 2, 100},
  };
  int fails = 0;
  double worst[2] = {0, 0};
  uint64_t seed = 1;
  for (const Spec& s : specs) {
    Case c = make_case(s.name, s.kind, s.tokens, s.heads, s.topk, s.splits, s.spread, seed++);
    const Outputs old = run(c, kOld), lean = run(c, kLean), again = run(c, kLean);
    double wo, wl;
    fails += check(c, old, "old", wo, wl);
    fails += check(c, lean, "lean", wo, wl);
    worst[1] = std::max(worst[1], wo);
    if (std::memcmp(lean.out.data(), again.out.data(), lean.out.size() * 2) ||
        std::memcmp(lean.lse.data(), again.lse.data(), lean.lse.size() * 4)) {
      std::printf("FAIL: %s: the lean kernel's bits differ between two calls\n", s.name);
      ++fails;
    }
    size_t differ = 0;
    for (size_t i = 0; i < old.out.size(); ++i) differ += old.out[i] != lean.out[i];
    std::printf("RESULT bits %-22s lean vs old: %.2f%% of out elements differ\n", s.name,
                100.0 * differ / old.out.size());
  }
  std::printf("RESULT correctness: %d failures; worst lean out rel L2 %.2e\n", fails, worst[1]);
  return fails;
}

// ---------------------------------------------------------------------------- timings
static void timings() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int64_t slots = 262144;  // 138 MB of rows: past L2
  std::vector<uint8_t> pool(size_t(slots) * 528);
  std::mt19937_64 rng(7);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> x(512);
  const float tm[4] = {1, 1, 1, 1};
  for (int64_t r = 0; r < slots; ++r) {
    for (int i = 0; i < 512; ++i) x[i] = nd(rng);
    write_row(&pool[size_t(r) * 528], x.data(), std::exp(nd(rng)), tm);
  }
  uint8_t* dpool;
  CK(cudaMalloc(&dpool, pool.size()));
  CK(cudaMemcpy(dpool, pool.data(), pool.size(), cudaMemcpyHostToDevice));
  for (int heads : {64, 128}) {
    const int tokens = 128, topk = 2048;
    const int splits = sm90::batch_num_splits(tokens, heads, topk, sms);
    std::vector<uint16_t> q(size_t(tokens) * heads * 512);
    for (auto& v : q) v = bf16_bits(nd(rng));
    std::vector<int32_t> idx(size_t(tokens) * topk);
    std::uniform_int_distribution<int64_t> ui(0, slots - 1);
    for (auto& v : idx) v = int32_t(ui(rng));
    __nv_bfloat16 *dq, *dout;
    int32_t* didx;
    float *dlse, *pout = nullptr, *plse = nullptr;
    CK(cudaMalloc(&dq, q.size() * 2));
    CK(cudaMalloc(&dout, q.size() * 2));
    CK(cudaMalloc(&didx, idx.size() * 4));
    CK(cudaMalloc(&dlse, size_t(tokens) * heads * 4));
    if (splits > 1) {
      CK(cudaMalloc(&pout, size_t(tokens) * splits * heads * 512 * 4));
      CK(cudaMalloc(&plse, size_t(tokens) * splits * heads * 4));
    }
    CK(cudaMemcpy(dq, q.data(), q.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(didx, idx.data(), idx.size() * 4, cudaMemcpyHostToDevice));
    sm90::SparseMlaParams p{};
    p.q = dq, p.pool = dpool, p.indices = didx, p.out = dout, p.lse = dlse, p.part_out = pout, p.part_lse = plse;
    p.num_slots = slots, p.row_bytes = 528, p.tokens = tokens, p.heads = heads, p.topk = topk;
    p.num_splits = splits, p.blocks_per_split = sm90::blocks_per_split_of(topk, splits), p.sm_scale = 0.0625f;
    if (p.blocks_per_split < sm90::kHpMinBlocks) {
      std::printf("FAIL: b=128 H=%d: %d blocks per split, not the pipelined kernel\n", heads, p.blocks_per_split);
      continue;
    }
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<double> us[2];
    const sm90::KernelLaunch* ks[2] = {&kOld, &kLean};
    for (int rep = 0; rep < 6; ++rep)
      for (int v = 0; v < 2; ++v) {
        for (int w = 0; w < 3; ++w) CK(jax_glm_nope::lab::lab_launch_kernel(*ks[v], p, 0, true));
        CK(cudaEventRecord(e0));
        for (int i = 0; i < 20; ++i) CK(jax_glm_nope::lab::lab_launch_kernel(*ks[v], p, 0, true));
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (rep > 0) us[v].push_back(1000.0 * ms / 20);
      }
    double med[2];
    for (int v = 0; v < 2; ++v) {
      std::sort(us[v].begin(), us[v].end());
      med[v] = us[v][us[v].size() / 2];
    }
    // the design note's calibration (b=128 H=64: 6 + 20.3 P us; H=128: 8 + 40.5 P) gives
    // the block period P in K trace-cycles
    const double a = heads == 64 ? 6.0 : 8.0, b = heads == 64 ? 20.3 : 40.5;
    std::printf("RESULT bench b=128 H=%d K=2048 splits=%d: old %.1f us (P %.2fK), lean %.1f us (P %.2fK), "
                "lean/old %.3f\n",
                heads, splits, med[0], (med[0] - a) / b, med[1], (med[1] - a) / b, med[1] / med[0]);
    for (void* x : {(void*)dq, (void*)dout, (void*)didx, (void*)dlse, (void*)pout, (void*)plse})
      if (x) CK(cudaFree(x));
  }
  CK(cudaFree(dpool));
}

int main(int argc, char** argv) {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s (cc %d.%d, %d SMs)\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
  bool bench = true, check_ = true;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--no-bench")) bench = false;
    if (!std::strcmp(argv[i], "--bench-only")) check_ = false;
  }
  const int fails = check_ ? correctness() : 0;
  if (bench) timings();
  std::printf("lean_check: %s\n", fails ? "FAIL" : "pass");
  return fails ? 1 : 0;
}
