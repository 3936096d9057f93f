// Standalone check and benchmark of our sm_90a sparse-MLA kernels (no JAX), the product's
// (ffi/ours/sm90/, through its own launcher) and the lab's variants (lab_launch.cuh):
//   1. correctness against a float64 CPU reference on the dequantized values, SPEC
//      bounds (per-token rel. L2 of out <= 5e-3, |dlse| <= 1e-2 max(1, |ref|)), tame and
//      wide-range data, holes, topk_lens, 528/656-byte rows, NaN-poisoned unreferenced
//      rows (slot 0 included), non-finite referenced input, every split count kind;
//   2. bit determinism on repeat and batch invariance (T=1 vs T=128);
//   3. timings with CUDA graphs over a pool larger than L2.
// Build and run: research/sm90_selftest.sh. Exit code 0 only when every check passes.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "lab_launch.cuh"

namespace sm90 = jax_glm_nope::sm90;
namespace lab = jax_glm_nope::lab;
namespace L = jax_glm_nope::layout;

#define CHECK_CUDA(x)                                                                   \
  do {                                                                                  \
    cudaError_t err_ = (x);                                                             \
    if (err_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #x, __FILE__, __LINE__,      \
                   cudaGetErrorString(err_));                                           \
      std::exit(2);                                                                     \
    }                                                                                   \
  } while (0)

namespace {

// ---------------------------------------------------------------- host numerics
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }
  double normal() {
    const double u1 = std::max(uniform(), 1e-300), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  int range(int lo, int hi) { return lo + int(next() % uint64_t(hi - lo)); }  // [lo, hi)
};

float e4m3_value(uint8_t code) {
  const int sign = code >> 7, exp = (code >> 3) & 15, man = code & 7;
  if (exp == 15 && man == 7) return std::numeric_limits<float>::quiet_NaN();
  const float mag = exp == 0 ? std::ldexp(man / 8.0f, -6) : std::ldexp(1.0f + man / 8.0f, exp - 7);
  return sign ? -mag : mag;
}

// Round to nearest even, saturating at +-448 (x already divided by the scale).
uint8_t e4m3_code(float x) {
  static std::vector<float> table = [] {
    std::vector<float> t(127);
    for (int c = 0; c < 127; ++c) t[c] = e4m3_value(uint8_t(c));
    return t;
  }();
  const uint8_t sign = std::signbit(x) ? 0x80 : 0;
  const float a = std::min(std::fabs(x), 448.0f);
  int hi = int(std::lower_bound(table.begin(), table.end(), a) - table.begin());
  if (hi >= 127) hi = 126;
  int best = hi;
  if (hi > 0) {
    const float dl = a - table[hi - 1], dh = table[hi] - a;
    if (dl < dh || (dl == dh && ((hi - 1) & 1) == 0)) best = hi - 1;
  }
  return uint8_t(best) | sign;
}

uint16_t bf16_bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  if (std::isnan(x)) return 0x7fc0;
  u += 0x7fff + ((u >> 16) & 1);
  return uint16_t(u >> 16);
}
float bf16_value(uint16_t b) {
  uint32_t u = uint32_t(b) << 16;
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}

// One row from a latent, as SPEC 1 quantizes: s_t = amax_t / 448, codes = e4m3(x / s_t).
void quantize_row(const float* x, uint8_t* row) {
  for (int t = 0; t < L::kNumTiles; ++t) {
    float amax = 0.0f;
    for (int i = 0; i < L::kTile; ++i) amax = std::max(amax, std::fabs(x[t * L::kTile + i]));
    const float s = amax / L::kFp8Max;
    for (int i = 0; i < L::kTile; ++i)
      row[t * L::kTile + i] = s == 0.0f ? 0 : e4m3_code(x[t * L::kTile + i] / s);
    std::memcpy(row + L::kScalesOffset + 4 * t, &s, 4);
  }
}

// ---------------------------------------------------------------- a test case
struct Case {
  std::string name;
  int tokens, heads, topk, row_bytes;
  int64_t num_slots;
  float sm_scale;
  std::vector<uint16_t> q;      // [T, H, 512] bf16 bits
  std::vector<uint8_t> pool;    // [num_slots, row_bytes]
  std::vector<int32_t> indices; // [T, K]
  std::vector<int32_t> lens;    // [T]
  // Expectations from the reference.
  std::vector<double> ref_out;  // [T, H, 512]
  std::vector<double> ref_lse;  // [T, H]
  std::vector<uint8_t> expect;  // [T, H]: 0 normal, 1 empty, 2 NaN, 3 +inf lse
  double max_spread = 0;        // largest score spread (nats) of a head
};

enum Data { kTame, kWideTiles, kWideRows };

bool active(const Case& c, int t, int j) {
  const int len = std::clamp(c.lens[t], 0, c.topk);
  const int32_t idx = c.indices[int64_t(t) * c.topk + j];
  return j < len && idx >= 0 && idx < c.num_slots;
}

// GLM-like candidate rows: [groups of 4 with missing groups as runs of -1 | tail | -1...],
// plus hostile holes (INT_MIN, INT_MAX, num_slots, -7), duplicates, and various topk_lens.
void make_indices(Case& c, Rng& rng, int len_kind) {
  c.indices.assign(int64_t(c.tokens) * c.topk, -1);
  c.lens.assign(c.tokens, c.topk);
  for (int t = 0; t < c.tokens; ++t) {
    int32_t* row = c.indices.data() + int64_t(t) * c.topk;
    const int valid = std::min(c.topk, c.topk >= 2176 ? 2051 : c.topk);
    for (int j = 0; j < valid; ++j) row[j] = int32_t(1 + rng.next() % uint64_t(c.num_slots - 1));
    for (int j = 0; j + 4 <= valid; j += 4)
      if (rng.uniform() < 0.04)
        for (int k = 0; k < 4; ++k) row[j + k] = -1;
    const int32_t hostile[4] = {std::numeric_limits<int32_t>::min(),
                                std::numeric_limits<int32_t>::max(), int32_t(c.num_slots), -7};
    for (int k = 0; k < 6 && valid > 0; ++k) row[rng.range(0, valid)] = hostile[k % 4];
    if (valid > 8) row[rng.range(0, valid)] = row[rng.range(0, valid)];  // duplicate
    if (valid > 0) row[0] = rng.uniform() < 0.3 ? -1 : row[0];           // hole at the start
    int len = valid;
    switch (len_kind) {
      case 0: len = valid; break;
      case 1: len = rng.range(0, c.topk + 1); break;
      default: {
        const int kinds[5] = {0, -3, c.topk + 5, 1, valid};
        len = kinds[t % 5];
      }
    }
    c.lens[t] = len;
  }
  if (c.tokens > 2) {  // one token of only holes
    int32_t* row = c.indices.data() + int64_t(c.tokens - 1) * c.topk;
    for (int j = 0; j < c.topk; ++j) row[j] = (j % 2) ? -1 : std::numeric_limits<int32_t>::min();
  }
}

void make_case(Case& c, uint64_t seed, Data data, int len_kind) {
  Rng rng(seed);
  c.q.resize(int64_t(c.tokens) * c.heads * L::kHeadDim);
  const double q_std = data == kTame ? 0.3 : 1.0;
  for (auto& v : c.q) v = bf16_bits(float(rng.normal() * q_std));
  make_indices(c, rng, len_kind);
  // Unreferenced rows (slot 0 included) hold NaN codes and NaN scales.
  c.pool.assign(size_t(c.num_slots) * c.row_bytes, 0xff);
  std::vector<char> used(c.num_slots, 0);
  for (int t = 0; t < c.tokens; ++t)
    for (int j = 0; j < c.topk; ++j)
      if (active(c, t, j)) used[c.indices[int64_t(t) * c.topk + j]] = 1;
  std::vector<float> x(L::kHeadDim);
  for (int64_t s = 0; s < c.num_slots; ++s) {
    if (!used[s]) continue;
    const double row_mag = data == kTame ? 1.0 : std::exp(rng.uniform() * 8.0 - 4.0);
    for (int tile = 0; tile < L::kNumTiles; ++tile) {
      double tile_mag = 1.0;
      if (data == kWideTiles) tile_mag = std::ldexp(1.0, rng.range(-12, 13));
      if (data == kWideRows) tile_mag = std::ldexp(1.0, rng.range(-3, 4));
      const bool zero = data != kTame && rng.uniform() < 0.03;
      for (int i = 0; i < L::kTile; ++i)
        x[tile * L::kTile + i] = zero ? 0.0f : float(rng.normal() * row_mag * tile_mag);
    }
    uint8_t* row = c.pool.data() + s * c.row_bytes;
    quantize_row(x.data(), row);
    if (data != kTame)
      for (int tile = 0; tile < L::kNumTiles; ++tile)
        if (rng.uniform() < 0.1) {  // negative scale
          float sc;
          std::memcpy(&sc, row + L::kScalesOffset + 4 * tile, 4);
          sc = -sc;
          std::memcpy(row + L::kScalesOffset + 4 * tile, &sc, 4);
        }
    if (c.row_bytes > L::kCompactRowBytes)
      std::memset(row + L::kReservedOffset, 0, c.row_bytes - L::kReservedOffset);
  }
}

double dequant(const Case& c, int64_t slot, int i) {
  const uint8_t* row = c.pool.data() + slot * c.row_bytes;
  float s;
  std::memcpy(&s, row + L::kScalesOffset + 4 * (i / L::kTile), 4);
  return double(e4m3_value(row[i]) * s);  // the value is an fp32 product (SPEC 1)
}

void reference(Case& c) {
  const int T = c.tokens, H = c.heads, D = L::kHeadDim;
  c.ref_out.assign(int64_t(T) * H * D, 0.0);
  c.ref_lse.assign(int64_t(T) * H, -INFINITY);
  c.expect.assign(int64_t(T) * H, 0);
  std::vector<double> spread(T, 0.0);
  auto work = [&](int t0, int t1) {
    std::vector<double> v, s, k(D);
    for (int t = t0; t < t1; ++t) {
      std::vector<int64_t> act;
      for (int j = 0; j < c.topk; ++j)
        if (active(c, t, j)) act.push_back(c.indices[int64_t(t) * c.topk + j]);
      const size_t n = act.size();
      v.assign(n * D, 0.0);
      bool row_bad = false;
      for (size_t a = 0; a < n; ++a)
        for (int i = 0; i < D; ++i) {
          v[a * D + i] = dequant(c, act[a], i);
          row_bad = row_bad || !std::isfinite(v[a * D + i]);
        }
      for (int h = 0; h < H; ++h) {
        const int64_t th = int64_t(t) * H + h;
        if (n == 0) {
          c.expect[th] = 1;
          continue;
        }
        bool q_bad = false;
        for (int i = 0; i < D; ++i) {
          k[i] = bf16_value(c.q[th * D + i]);
          q_bad = q_bad || !std::isfinite(k[i]);
        }
        if (q_bad || row_bad) {
          c.expect[th] = 2;
          continue;
        }
        s.assign(n, 0.0);
        double mx = -INFINITY, mn = INFINITY;
        for (size_t a = 0; a < n; ++a) {
          double dot = 0.0;
          for (int i = 0; i < D; ++i) dot += k[i] * v[a * D + i];
          s[a] = double(c.sm_scale) * dot;
          mx = std::max(mx, s[a]);
          mn = std::min(mn, s[a]);
        }
        spread[t] = std::max(spread[t], mx - mn);
        double sum = 0.0;
        for (size_t a = 0; a < n; ++a) sum += std::exp(s[a] - mx);
        c.ref_lse[th] = mx + std::log(sum);
        if (std::fabs(mx * 1.4426950408889634) > double(FLT_MAX)) c.expect[th] = 3;
        for (size_t a = 0; a < n; ++a) {
          const double p = std::exp(s[a] - mx) / sum;
          for (int i = 0; i < D; ++i) c.ref_out[th * D + i] += p * v[a * D + i];
        }
      }
    }
  };
  const int threads = std::max(1, std::min<int>(T, int(std::thread::hardware_concurrency())));
  std::vector<std::thread> pool;
  for (int w = 0; w < threads; ++w)
    pool.emplace_back(work, T * w / threads, T * (w + 1) / threads);
  for (auto& th : pool) th.join();
  for (double x : spread) c.max_spread = std::max(c.max_spread, x);
}

// ---------------------------------------------------------------- device runs
bool g_block_shared = false;  // H <= 8: the block-shared kernel instead of the warp-private one
// The kernel choice for the correctness runs (the product's, LabParams' defaults, unless a
// pass overrides them).
const lab::LabParams kDefaultParams{};
int g_wgmma_from = kDefaultParams.wgmma_from_heads;
int g_wgmma_min = kDefaultParams.wgmma_min_blocks;
bool g_heads_major = kDefaultParams.heads_major;  // 33-128 heads: the heads-major kernel
bool g_hm_pipelined = kDefaultParams.hm_pipelined;  // 33-128 heads: the slot's candidate
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
  p.warp_private = !g_block_shared;
  p.wgmma_from_heads = g_wgmma_from;
  p.wgmma_min_blocks = g_wgmma_min;
  p.heads_major = g_heads_major;
  p.hm_pipelined = g_hm_pipelined;
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
  if (product) p.hm_pipelined = false;
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
  if (g_hm_pipelined && c.heads <= sm90::kGroupHeads) return;  // the pass is about 33-128 heads
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
    if (g_same_bits && g_hm_pipelined && !same_bits(r, run(c, d, s, true))) {
      ++g_failures;
      std::printf("  FAIL %s S=%d: bits differ from the product kernel's\n", c.name.c_str(), s);
    }
    std::printf("%s%-30s T=%-3d H=%-2d K=%-4d row=%d S=%-2d  max rel L2 %.2e  max |dlse|/bound %.2e"
                "  spread %.0f nats  repeat %s\n",
                g_hm_pipelined ? "[pipelined] " : (g_block_shared ? "[block-shared] " : (g_wgmma_min == 1 ? "[wgmma always] " : (g_wgmma_from > 32 ? "[no wgmma, groups of 32] " : ""))), c.name.c_str(), c.tokens, c.heads, c.topk, c.row_bytes, s, worst,
                worst_lse * 100, c.max_spread, det ? "same bits" : "DIFFERENT");
  }
  release(d);
}

// ---------------------------------------------------------------- timing
__device__ uint64_t hash64(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__global__ void fill_pool(uint8_t* pool, int64_t slots, int row_bytes, uint64_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < slots * (row_bytes / 4);
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t slot = i / (row_bytes / 4);
    const int word = int(i % (row_bytes / 4));
    uint32_t v;
    const uint64_t h = hash64(seed ^ (uint64_t(i) * 0x9E3779B97F4A7C15ull));
    if (word < 128) {
      v = uint32_t(h) & 0xf6f6f6f6u;  // no NaN codes (0x7f/0xff need bits 0 and 3)
    } else if (word < 132) {
      const float s = 0.01f * (1.0f + float(h & 0xff) / 256.0f);
      v = __float_as_uint(s);
    } else {
      v = 0;
    }
    (void)slot;
    reinterpret_cast<uint32_t*>(pool)[i] = v;
  }
}

__global__ void fill_q(__nv_bfloat16* q, int64_t n, uint64_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    const uint64_t h = hash64(seed ^ (uint64_t(i) * 0x9E3779B97F4A7C15ull));
    q[i] = __float2bfloat16((float(h & 0xffff) / 65536.0f - 0.5f) * 2.0f);
  }
}

// K = 2048: all valid. K = 2176: 2051 valid with missing groups of 4, then -1.
__global__ void fill_indices(int32_t* idx, int32_t* lens, int tokens, int topk, int64_t slots,
                             uint64_t seed) {
  const int64_t n = int64_t(tokens) * topk;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int j = int(i % topk);
    const uint64_t h = hash64(seed ^ (uint64_t(i) * 0x9E3779B97F4A7C15ull));
    int32_t v = int32_t(1 + h % uint64_t(slots - 1));
    if (topk == 2176) {
      if (j >= 2051) v = -1;
      if ((hash64(seed + (i / 4)) & 31) == 0) v = -1;  // a missing pool group
    }
    idx[i] = v;
    if (j == 0) lens[i / topk] = topk == 2176 ? 2051 : topk;
  }
}

// The floor: a plain gather of the same rows, 16-byte loads, one warp per row.
__global__ void gather_floor(const uint8_t* pool, int row_bytes, const int32_t* idx, int64_t n,
                             uint32_t* sink) {
  const int lane = threadIdx.x % 32;
  uint32_t acc = 0;
  for (int64_t r = (blockIdx.x * int64_t(blockDim.x) + threadIdx.x) / 32; r < n;
       r += int64_t(gridDim.x) * blockDim.x / 32) {
    const int32_t s = idx[r];
    if (s < 0) continue;
    const uint4* row = reinterpret_cast<const uint4*>(pool + int64_t(s) * row_bytes);
    uint4 v = __ldg(row + lane);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
    if (lane == 0) {
      v = __ldg(row + 32);
      acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
  }
  if (acc == 0x12345678u) sink[0] = acc;
}

template <typename F>
float time_graph(F launch, int reps = 20, int trials = 7) {
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
  for (int i = 0; i < reps; ++i) CHECK_CUDA(launch(stream));
  CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  CHECK_CUDA(cudaGraphLaunch(exec, stream));  // warm-up
  CHECK_CUDA(cudaStreamSynchronize(stream));
  cudaEvent_t a, b;
  CHECK_CUDA(cudaEventCreate(&a));
  CHECK_CUDA(cudaEventCreate(&b));
  std::vector<float> ms;
  for (int i = 0; i < trials; ++i) {
    CHECK_CUDA(cudaEventRecord(a, stream));
    CHECK_CUDA(cudaGraphLaunch(exec, stream));
    CHECK_CUDA(cudaEventRecord(b, stream));
    CHECK_CUDA(cudaEventSynchronize(b));
    float t;
    CHECK_CUDA(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
  CHECK_CUDA(cudaEventDestroy(a));
  CHECK_CUDA(cudaEventDestroy(b));
  CHECK_CUDA(cudaStreamDestroy(stream));
  return ms[ms.size() / 2] * 1000.0f / reps;  // us per call
}

// The targets (research/notebook.md) and the H200 run-3 numbers (research/notebook.md, run 3:
// ours and FlashMLA through JAX, CUDA graph) for the summary lines; 0 = none.
struct Reference {
  double bar, run3, flashmla;
};
Reference reference_for(int tokens, int heads, int topk, const char* rule) {
  if (std::string(rule) != "batch" && std::string(rule) != "default") return {0, 0, 0};
  if (heads == 64 || heads == 128) {  // issue 12's bars and FlashMLA (same harness)
    const int i = heads == 64 ? 0 : 1;
    if (topk != 2048) return {0, 0, 0};
    if (tokens == 128) return {i ? 135.0 : 70.0, 0, i ? 174.7 : 104.8};
    if (tokens == 32) return {i ? 36.0 : 20.0, 0, i ? 55.2 : 42.1};
    if (tokens == 1) return {10, 0, i ? 16.8 : 16.6};
    return {0, 0, 0};
  }
  if (heads > 32 || heads % 8) return {0, 0, 0};
  if (topk == 2048) {
    const int i = heads / 8 - 1;  // H = 8, 16, 24, 32
    if (tokens == 128) {
      const double bar[4] = {45, 45, 0, 55}, run3[4] = {68.4, 93.7, 158.4, 205.4},
                   fm[4] = {99.6, 99.1, 100.0, 99.8};
      return {bar[i], run3[i], fm[i]};
    }
    if (tokens == 32) {
      const double bar[4] = {13, 13, 0, 0}, run3[4] = {30.5, 38.3, 0, 68.8},
                   fm[4] = {42.4, 0, 0, 42.5};
      return {bar[i], run3[i], fm[i]};
    }
    if (tokens == 1) {
      const double run3[4] = {21.9, 0, 0, 30.2}, fm[4] = {17.4, 0, 0, 17.7};
      return {10, run3[i], fm[i]};
    }
  }
  if (topk == 2176 && tokens == 4096) return {heads == 32 ? 1400.0 : 0, heads == 32 ? 6055.0 : 2352.0, 0};
  return {0, 0, 0};
}

// profile != nullptr ("T:H:K"): only that batch-rule case, three plain launches and no
// timing (for ncu: `ncu -k regex:sparse_mla ... sm90_selftest --profile 128:8:2048`).
void benchmark(int sm_count, FILE* csv, const char* profile = nullptr) {
  const int64_t slots = 1 << 20;  // 554 MB of 528-byte rows, ~9x the L2
  const int max_tokens = 4096, max_topk = 2176;
  uint8_t* pool;
  __nv_bfloat16* q;
  int32_t *idx, *lens;
  __nv_bfloat16* out;
  float *lse, *part_out, *part_lse;
  const int max_part = 4096 * 6;  // token-splits the scratch holds at H = 128
  CHECK_CUDA(cudaMalloc(&pool, slots * 656));
  CHECK_CUDA(cudaMalloc(&q, int64_t(max_tokens) * 128 * 512 * 2));
  CHECK_CUDA(cudaMalloc(&idx, int64_t(max_tokens) * max_topk * 4));
  CHECK_CUDA(cudaMalloc(&lens, max_tokens * 4));
  CHECK_CUDA(cudaMalloc(&out, int64_t(max_tokens) * 128 * 512 * 2));
  CHECK_CUDA(cudaMalloc(&lse, int64_t(max_tokens) * 128 * 4));
  CHECK_CUDA(cudaMalloc(&part_out, int64_t(max_part) * 128 * 512 * 4));
  CHECK_CUDA(cudaMalloc(&part_lse, int64_t(max_part) * 128 * 4));
  uint32_t* sink;
  CHECK_CUDA(cudaMalloc(&sink, 4));
  fill_q<<<1024, 256>>>(q, int64_t(max_tokens) * 128 * 512, 7);
  CHECK_CUDA(cudaGetLastError());

  struct Row {
    int tokens, heads, topk, row_bytes;
    bool invariant;
    bool pdl = true;
    bool block_shared = false;  // H <= 8: the block-shared kernel (comparison)
    bool wgmma = false;         // the wgmma kernel from 9 heads (else from 33: the old kernels)
    bool defaults = false;      // the launcher's default kernel choice (33-128 heads: heads-major)
    bool groups32 = false;      // 33-128 heads: the wgmma kernel over groups of 32 (run 15's)
    bool pipelined = false;     // 33-128 heads: the pipelined heads-major kernel
  };
  std::vector<Row> rows;
  for (int topk : {2048, 2176})
    for (int tokens : {1, 8, 32, 128})
      for (int heads : {8, 16, 24, 32}) rows.push_back({tokens, heads, topk, 528, false});
  for (int heads : {8, 32})
    for (int tokens : {1, 128}) rows.push_back({tokens, heads, 2048, 528, true});
  rows.push_back({128, 16, 2048, 656, false});
  for (int heads : {8, 16, 32})
    for (int tokens : {1, 32, 128}) rows.push_back({tokens, heads, 2048, 528, false, false});
  for (int tokens : {1, 8, 32, 128}) rows.push_back({tokens, 8, 2048, 528, false, true, true});
  rows.push_back({4096, 8, 2176, 528, false, true, true});
  rows.push_back({4096, 8, 2176, 528, false});
  for (int heads : {16, 32}) {
    rows.push_back({4096, heads, 2176, 528, false});
    rows.push_back({4096, heads, 2176, 528, true});
  }
  // The wgmma kernel, same cases.
  for (int topk : {2048, 2176})
    for (int tokens : {1, 8, 32, 128})
      for (int heads : {16, 24, 32}) rows.push_back({tokens, heads, topk, 528, false, true, false, true});
  for (int heads : {16, 32}) rows.push_back({4096, heads, 2176, 528, false, true, false, true});
  rows.push_back({128, 32, 2048, 528, true, true, false, true});
  // 33-128 heads: the wgmma kernel over head groups of 32.
  for (int topk : {2048, 2176})
    for (int tokens : {1, 8, 32, 128})
      for (int heads : {64, 128}) rows.push_back({tokens, heads, topk, 528, false, true, false, false, true});
  rows.push_back({4096, 64, 2176, 528, false, true, false, false, true});
  rows.push_back({4096, 128, 2176, 528, false, true, false, false, true});
  rows.push_back({4096, 32, 2176, 528, false, true, false, false, true});
  rows.push_back({128, 40, 2048, 528, false, true, false, false, true});
  rows.push_back({128, 96, 2048, 528, false, true, false, false, true});
  rows.push_back({128, 64, 2048, 528, true, true, false, false, true});
  // The same 33-128-head cases on run 15's kernel (the wgmma kernel over groups of 32).
  for (int tokens : {1, 8, 32, 128})
    for (int heads : {64, 128}) rows.push_back({tokens, heads, 2048, 528, false, true, false, false, true, true});
  rows.push_back({4096, 64, 2176, 528, false, true, false, false, true, true});
  // The pipelined heads-major kernel, same cases.
  for (int tokens : {1, 8, 32, 128})
    for (int heads : {64, 128})
      rows.push_back({tokens, heads, 2048, 528, false, true, false, false, true, false, true});
  for (int heads : {64, 128}) rows.push_back({4096, heads, 2176, 528, false, true, false, false, true, false, true});
  rows.push_back({128, 40, 2048, 528, false, true, false, false, true, false, true});
  rows.push_back({128, 64, 2048, 528, true, true, false, false, true, false, true});
  // T = 16 (4 blocks per split at K = 2048): the default choice at the threshold.
  for (int heads : {24, 32, 64}) {
    rows.push_back({16, heads, 2048, 528, false, true, false, false, true});
    if (heads <= 32) rows.push_back({16, heads, 2048, 528, false});
  }

  std::printf("\n");
  int cur_row_bytes = 0, cur_topk = 0;
  for (const Row& r : rows) {
    if (r.heads < g_bench_min_heads || (g_skip_pipelined && r.pipelined)) continue;
    if (r.row_bytes != cur_row_bytes) {
      fill_pool<<<4096, 256>>>(pool, slots, r.row_bytes, 11);
      CHECK_CUDA(cudaGetLastError());
      cur_row_bytes = r.row_bytes;
    }
    if (r.topk != cur_topk) {
      fill_indices<<<4096, 256>>>(idx, lens, max_tokens, r.topk, slots, 13);
      CHECK_CUDA(cudaGetLastError());
      cur_topk = r.topk;
    }
    if (profile) {
      char name[64];
      std::snprintf(name, sizeof(name), "%d:%d:%d", r.tokens, r.heads, r.topk);
      if (std::string(name) != profile || r.invariant || !r.pdl || r.block_shared ||
          r.row_bytes != 528 || r.wgmma != (g_wgmma_min == 1) || r.groups32 || r.pipelined != g_hm_pipelined)
        continue;
    }
    CHECK_CUDA(cudaDeviceSynchronize());
    // (the block-shared kernel runs two CTAs per SM: a wave of 2 x SMs)
    // (groups of 32: the batch rule of run 15, a wave of SMs / ceil(H / 32) CTAs per token)
    const int wave = (r.block_shared ? 2 : 1) * sm_count *
                     (r.groups32 ? sm90::head_groups(r.heads) : 1) /
                     (r.groups32 ? (r.heads + 31) / 32 : 1);
    const int splits = r.invariant ? sm90::invariant_num_splits(r.heads, r.topk)
                                   : sm90::batch_num_splits(r.tokens, r.heads, r.topk, wave);
    if (int64_t(r.tokens) * splits > max_part) continue;
    lab::LabParams p;
    p.q = q;
    p.pool = pool;
    p.indices = idx;
    p.topk_lens = lens;
    p.out = out;
    p.lse = lse;
    p.part_out = part_out;
    p.part_lse = part_lse;
    p.num_slots = slots;
    p.row_bytes = r.row_bytes;
    p.tokens = r.tokens;
    p.heads = r.heads;
    p.topk = r.topk;
    p.num_splits = splits;
    p.blocks_per_split = sm90::blocks_per_split_of(r.topk, splits);
    p.sm_scale = 0.0625f;
    p.pdl = r.pdl;
    p.warp_private = !r.block_shared;
    // wgmma rows force the wgmma kernel; default rows take the launcher's defaults; the
    // others run the kernels of run 11 (the wgmma kernel only above 32 heads).
    if (!r.defaults) {
      p.wgmma_from_heads = r.wgmma ? 9 : 33;
      p.wgmma_min_blocks = r.wgmma ? 1 : kDefaultParams.wgmma_min_blocks;
    }
    p.heads_major = !r.groups32;
    p.hm_pipelined = r.pipelined;
    if (profile) {
      for (int i = 0; i < 3; ++i) CHECK_CUDA(lab::lab_launch(p, nullptr));
      CHECK_CUDA(cudaDeviceSynchronize());
      std::printf("profiled T=%d H=%d K=%d S=%d\n", r.tokens, r.heads, r.topk, splits);
      continue;
    }
    const float us = time_graph([&](cudaStream_t s) { return lab::lab_launch(p, s); },
                                r.tokens >= 4096 ? 5 : 20);
    const double rows_bytes = double(r.tokens) * r.topk * L::kCompactRowBytes;
    const double flops = double(r.tokens) * r.topk * r.heads * 2048.0;
    const char* rule =
        r.pipelined ? (r.invariant ? "inv,pipe" : "pipelined")
        : r.groups32 ? (r.invariant ? "inv,g32" : "groups32")
        : r.defaults ? (r.invariant ? "inv,dflt" : "default")
        : r.wgmma ? (r.invariant ? "inv,wgmma" : "batch,wgmma")
                     : (r.invariant ? "invariant"
                                    : (r.block_shared ? "batch,shared" : (r.pdl ? "batch" : "batch,nopdl")));
    // One compact line per case: the time, then run 3, FlashMLA and the bar where known.
    const Reference ref = reference_for(r.tokens, r.heads, r.topk, rule);
    char extra[160] = "";
    int n = 0;
    if (ref.run3 > 0) n += std::snprintf(extra + n, sizeof(extra) - n, "  run3 %.1f (x%.2f)", ref.run3, ref.run3 / us);
    if (ref.flashmla > 0) n += std::snprintf(extra + n, sizeof(extra) - n, "  FlashMLA %.1f", ref.flashmla);
    if (ref.bar > 0)
      std::snprintf(extra + n, sizeof(extra) - n, "  bar %.0f %s", ref.bar, us <= ref.bar ? "MET" : "missed");
    std::printf("bench T=%-4d H=%-2d K=%-4d row=%d %-10s S=%-2d %9.2f us %5.2f TB/s%s\n", r.tokens,
                r.heads, r.topk, r.row_bytes, rule, splits, us, rows_bytes / us * 1e-6, extra);
    if (csv)
      std::fprintf(csv, "%d,%d,%d,%d,%s,%d,%.3f,%.3f,%.2f\n", r.tokens, r.heads, r.topk,
                   r.row_bytes, rule, splits, us,
                   rows_bytes / us * 1e-6, flops / us * 1e-6);
  }
  if (profile) return;
  // The floor, same rows: b = 128 and T = 4096, K = 2048.
  fill_pool<<<4096, 256>>>(pool, slots, 528, 11);
  fill_indices<<<4096, 256>>>(idx, lens, max_tokens, 2048, slots, 13);
  CHECK_CUDA(cudaDeviceSynchronize());
  for (int tokens : {1, 32, 128, 4096}) {
    const int64_t n = int64_t(tokens) * 2048;
    const float us = time_graph(
        [&](cudaStream_t s) {
          gather_floor<<<sm_count * 16, 256, 0, s>>>(pool, 528, idx, n, sink);
          return cudaGetLastError();
        },
        tokens >= 4096 ? 5 : 20);
    std::printf("floor: plain 16-B gather of T=%d x 2048 rows: %.2f us, %.2f TB/s\n", tokens, us,
                n * 528.0 / us * 1e-6);
    if (csv) std::fprintf(csv, "floor,%d,2048,528,gather,0,%.3f,%.3f,0\n", tokens, us, n * 528.0 / us * 1e-6);
  }
  for (void* ptr : {(void*)pool, (void*)q, (void*)idx, (void*)lens, (void*)out, (void*)lse,
                    (void*)part_out, (void*)part_lse, (void*)sink})
    CHECK_CUDA(cudaFree(ptr));
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // line-buffered: a log survives a timeout
  bool bench = true;
  const char* csv_path = nullptr;
  const char* profile = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--no-bench")
      bench = false;
    else if (std::string(argv[i]) == "--profile" && i + 1 < argc)
      profile = argv[++i];
    else if (std::string(argv[i]) == "--wgmma")  // --profile: the wgmma kernel's case
      g_wgmma_min = 1;
    else if (std::string(argv[i]) == "--pipelined")  // --profile: the pipelined kernel's case
      g_hm_pipelined = true, g_skip_pipelined = false;
    else if (std::string(argv[i]) == "--pipelined-check")
      g_only_pipelined = true, g_skip_pipelined = false, bench = false;
    else if (std::string(argv[i]) == "--with-pipelined")
      g_skip_pipelined = false;
    else if (std::string(argv[i]) == "--same-bits")
      g_same_bits = true;
    else if (std::string(argv[i]) == "--bench-only")
      g_bench_only = true;
    else if (std::string(argv[i]) == "--bench-min-heads" && i + 1 < argc)
      g_bench_min_heads = std::atoi(argv[++i]);
    else if (std::string(argv[i]) != "--host-only")
      csv_path = argv[i];
  }
  if (!g_skip_pipelined && lab::kCandidate == nullptr) {
    std::fprintf(stderr, "the pipelined slot is empty: put a candidate in lab::kCandidate "
                         "(research/sm90/lab_launch.cuh)\n");
    return 2;
  }
  if (argc > 1 && std::string(argv[1]) == "--host-only") {  // the CPU side alone
    Case c;
    c.name = "host";
    c.tokens = 4;
    c.heads = 8;
    c.topk = 2176;
    c.row_bytes = 528;
    c.num_slots = 40000;
    for (int kind = 0; kind < 3; ++kind) {
      c.sm_scale = kind == 0 ? 1.0f / 4096.0f : (kind == 1 ? 1.0f : 0.125f);
      make_case(c, 5 + kind, kind == 0 ? kWideTiles : kWideRows, 0);
      reference(c);
      int counts[4] = {0, 0, 0, 0};
      for (auto e : c.expect) counts[e]++;
      std::printf("kind %d spread %.1f nats, expect %d/%d/%d/%d lse0 %f\n", kind, c.max_spread,
                  counts[0], counts[1], counts[2], counts[3], c.ref_lse[0]);
    }
    return 0;
  }
  int device = 0, major = 0, minor = 0, sm_count = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  CHECK_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CHECK_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  CHECK_CUDA(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, device));
  std::printf("device %s, cc %d.%d, %d SMs, L2 %d MB\n", prop.name, major, minor, sm_count,
              prop.l2CacheSize >> 20);
  if (major != 9 || minor != 0) {
    std::printf("needs sm_90a (compute capability 9.0)\n");
    return 2;
  }

  if (profile) {  // one case's launches for a profiler, nothing checked
    benchmark(sm_count, nullptr, profile);
    return 0;
  }

  // ---- correctness ----
  uint64_t seed = 1000;
  auto make = [&](const char* name, int T, int H, int K, int row_bytes, int64_t slots,
                  float sm_scale, Data data, int len_kind) {
    Case c;
    c.name = name;
    c.tokens = T;
    c.heads = H;
    c.topk = K;
    c.row_bytes = row_bytes;
    c.num_slots = slots;
    c.sm_scale = sm_scale;
    make_case(c, seed++, data, len_kind);
    return c;
  };
  const float tame_scale = 1.0f / std::sqrt(512.0f);
  // Pass 0: the kernels the launcher picks by default (wgmma from 9 heads and 4 blocks per
  // split, heads-major above 32); pass 1: the wgmma kernel from 9 heads at any split; pass
  // 2: the block-shared kernels up to 32 heads, and above 32 the wgmma kernel over groups
  // of 32 (at most 8 heads, the same kernels again).
  // Pass 3: 33-128 heads on the candidate in the pipelined slot (lab::kCandidate).
  for (int pass = g_only_pipelined ? 3 : 0; pass < (g_bench_only ? 0 : g_skip_pipelined ? 3 : 4); ++pass) {
  g_hm_pipelined = pass == 3;
  g_wgmma_from = pass == 2 ? 33 : kDefaultParams.wgmma_from_heads;
  g_wgmma_min = pass == 1 ? 1 : kDefaultParams.wgmma_min_blocks;
  g_heads_major = pass != 2;  // pass 2: 33-128 heads on the wgmma kernel over groups of 32
  std::printf("---- correctness pass %d (wgmma kernel from %d heads, %d blocks per split)\n", pass,
              g_wgmma_from, g_wgmma_min);
  {
    const int heads[] = {1, 8, 16, 24, 32, 40, 64, 128};
    for (int h : heads) {
      Case c = make("tame glm-kpool", 6, h, 2176, 528, 50000, tame_scale, kTame, 0);
      correctness_case(c, sm_count);
    }
  }
  {
    Case c = make("tame 656-B rows, K=2051", 5, 16, 2051, 656, 30000, tame_scale, kTame, 1);
    correctness_case(c, sm_count);
  }
  for (int h : {8, 32, 64}) {  // 32: two consumer groups, one of them often idle or short
    Case c = make("tame topk_lens kinds, K=2048", 10, h, 2048, 528, 40000, tame_scale, kTame, 2);
    correctness_case(c, sm_count);
  }
  {
    Case c = make("tame 656-B rows, K=2051", 5, 96, 2051, 656, 30000, tame_scale, kTame, 1);
    correctness_case(c, sm_count);
  }
  {
    Case c = make("K=1", 4, 8, 1, 528, 100, tame_scale, kTame, 0);
    correctness_case(c, sm_count);
    Case d = make("K=100, H=5", 4, 5, 100, 656, 1000, tame_scale, kTame, 1);
    correctness_case(d, sm_count);
  }
  for (int h : {8, 16, 32, 64, 128}) {
    Case c = make("wide tiles 2^+-12, rows e^+-4", 4, h, 2176, 528, 40000, 1.0f / 4096.0f,
                  kWideTiles, 0);
    correctness_case(c, sm_count);
    Case d = make("wide rows e^+-4, sm_scale 1/64", 4, h, 2176, 528, 40000, 1.0f / 64.0f,
                  kWideRows, 0);
    correctness_case(d, sm_count);
    Case e = make("wide rows e^+-4, sm_scale 1/8", 4, h, 2176, 528, 40000, 0.125f, kWideRows, 0);
    correctness_case(e, sm_count);
  }
  // Non-finite referenced input and extremes, one token each: 8 heads (the warp-private
  // kernel), 16 heads (one consumer group) and 32 heads (two groups merged in the CTA),
  // K = 256 (4 blocks) and 2048.
  for (const int rh : {8, 16, 32, 96})
  for (const int rk : {256, 2048}) {
    const std::string name = "robustness H=" + std::to_string(rh) + (rk == 2048 ? " K=2048" : "");
    Case c = make(name.c_str(), 6, rh, rk, 528, 5000, tame_scale, kTame, 0);
    // Private slots past every slot make_case referenced (the pool grows by K + 8 NaN
    // rows; the hostile index `num_slots` moves with it, so it stays out of range).
    const int64_t s0 = c.num_slots;
    c.num_slots += rk + 8;
    c.pool.resize(size_t(c.num_slots) * c.row_bytes, 0xff);
    for (auto& v : c.indices)
      if (v == int32_t(s0)) v = int32_t(c.num_slots);
    // t0: NaN in q of head 3 (only head 3 NaN).
    c.q[(0 * rh + 3) * 512 + 77] = 0x7fc0;
    // t1: a NaN code in an active row: every head NaN. Use a fresh slot only t1 references.
    auto own_slot = [&](int t, int j, int64_t slot) {
      const int64_t src = c.indices[int64_t(t) * c.topk + j];
      std::memcpy(c.pool.data() + slot * c.row_bytes, c.pool.data() + src * c.row_bytes,
                  c.row_bytes);
      c.indices[int64_t(t) * c.topk + j] = int32_t(slot);
    };
    // (the NaN code and the Inf scale sit in the second half of K when K = 2048: the
    // second consumer group's blocks)
    int j1 = rk == 256 ? 5 : 1100;
    while (!active(c, 1, j1)) ++j1;
    own_slot(1, j1, s0 + rk);
    c.pool[(s0 + rk) * c.row_bytes + 200] = 0x7f;
    // t2: an Inf scale in an active row.
    int j2 = rk == 256 ? 9 : 1500;
    while (!active(c, 2, j2)) ++j2;
    own_slot(2, j2, s0 + rk + 1);
    const float inf = INFINITY;
    std::memcpy(c.pool.data() + (s0 + rk + 1) * c.row_bytes + L::kScalesOffset + 8, &inf, 4);
    // t3: q at the bf16 maximum in head 0 with large rows: float32 scores overflow to +inf.
    for (int i = 0; i < 512; ++i) c.q[(3 * rh + 0) * 512 + i] = (i % 3) ? 0x7f7f : 0x0000;
    // t4: values up to ~8.5e37 (scales FLT_MAX / 448 / 4) with tiny q, so scores stay
    // moderate and the running mean must not overflow.
    Rng qr(99);
    for (int i = 0; i < rh * 512; ++i) c.q[4 * rh * 512 + i] = bf16_bits(float(qr.normal() * 1e-37));
    for (int j = 0; j < c.topk; ++j) {
      if (!active(c, 4, j)) continue;
      own_slot(4, j, s0 + j);
      for (int t = 0; t < 4; ++t) {
        const float big = FLT_MAX / 448.0f / 4.0f;
        std::memcpy(c.pool.data() + (s0 + j) * c.row_bytes + L::kScalesOffset + 4 * t, &big, 4);
      }
    }
    correctness_case(c, sm_count);
  }
  for (const int bh : {8, 16, 32, 64, 128}) {
    // Batch invariance: a token's bits at T = 1 equal its bits inside T = 128.
    Case c = make("batch invariance", 128, bh, 2176, 528, 200000, tame_scale, kTame, 0);
    DeviceCase d;
    const int inv = sm90::invariant_num_splits(c.heads, c.topk);
    upload(c, d, sm90::num_blocks(c.topk));
    for (int rule = 0; rule < 2; ++rule) {
      const int s_batch = rule == 0 ? inv : sm90::batch_num_splits(128, c.heads, c.topk, sm_count);
      const int s_single = rule == 0 ? inv : sm90::batch_num_splits(1, c.heads, c.topk, sm_count);
      const Result all = run(c, d, s_batch);
      bool same = true;
      for (int t : {0, 37, 126}) {
        poison(c, d);
        CHECK_CUDA(lab::lab_launch(params_for(c, d, s_single, t, 1), 0));
        CHECK_CUDA(cudaDeviceSynchronize());
        std::vector<uint16_t> o(bh * 512);
        std::vector<float> l(bh);
        CHECK_CUDA(cudaMemcpy(o.data(), d.out + int64_t(t) * bh * 512, o.size() * 2,
                              cudaMemcpyDeviceToHost));
        CHECK_CUDA(cudaMemcpy(l.data(), d.lse + t * bh, bh * 4, cudaMemcpyDeviceToHost));
        same = same && std::memcmp(o.data(), all.out.data() + int64_t(t) * bh * 512, o.size() * 2) == 0 &&
               std::memcmp(l.data(), all.lse.data() + t * bh, bh * 4) == 0;
      }
      std::printf("batch invariance H=%d, %s rule (S=%d at T=128, S=%d at T=1): %s\n", bh,
                  rule == 0 ? "invariant" : "batch", s_batch, s_single,
                  same ? "same bits" : "bits differ");
      if (rule == 0 && !same) ++g_failures;
    }
    release(d);
  }
  {
    g_block_shared = true;  // the block-shared kernel at 8 heads (one block per split takes it)
    Case c = make("tame glm-kpool", 6, 8, 2176, 528, 50000, tame_scale, kTame, 1);
    correctness_case(c, sm_count);
    Case d = make("wide tiles 2^+-12, rows e^+-4", 4, 8, 2176, 528, 40000, 1.0f / 4096.0f,
                  kWideTiles, 0);
    correctness_case(d, sm_count);
    g_block_shared = false;
  }
  }  // pass
  g_wgmma_from = kDefaultParams.wgmma_from_heads;
  g_wgmma_min = kDefaultParams.wgmma_min_blocks;
  g_heads_major = kDefaultParams.heads_major;
  g_hm_pipelined = kDefaultParams.hm_pipelined;
  std::printf("correctness: %s (%d failures)\n", g_failures ? "FAILED" : "passed", g_failures);

  if (bench) {
    FILE* csv = csv_path ? std::fopen(csv_path, "w") : nullptr;
    if (csv) std::fprintf(csv, "tokens,heads,topk,row_bytes,rule,splits,us,tb_per_s,tflop_per_s\n");
    benchmark(sm_count, csv);
    if (csv) std::fclose(csv);
  }
  return g_failures ? 1 : 0;
}
