// The selftest's host side: e4m3/bf16 numerics, the test cases and the float64 reference.
#pragma once

#include "common.cuh"

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

}  // namespace
