// Standalone check and benchmark of our sm_90a sparse-MLA kernels (no JAX), the product's
// (ffi/ours/sm90/, through its own launcher) and the lab's variants (lab_launch.cuh):
//   1. correctness against a float64 CPU reference on the dequantized values, SPEC
//      bounds (per-token rel. L2 of out <= 5e-3, |dlse| <= 1e-2 max(1, |ref|)), tame and
//      wide-range data, holes, topk_lens, 528/656-byte rows, NaN-poisoned unreferenced
//      rows (slot 0 included), non-finite referenced input, every split count kind;
//   2. bit determinism on repeat and batch invariance (T=1 vs T=128);
//   3. timings with CUDA graphs over a pool larger than L2.
// Build and run: research/sm90_selftest.sh. Exit code 0 only when every check passes.
#include "bench.cuh"
#include "cases.cuh"
#include "common.cuh"
#include "runs.cuh"

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
      g_up_to_32 = lab::kCandidatesMajor;
    else if (std::string(argv[i]) == "--pipelined")  // --profile: the pipelined kernel's case
      g_candidate = true, g_skip_pipelined = false;
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
  g_candidate = pass == 3;
  g_up_to_32 = pass == 1 ? lab::kCandidatesMajor : pass == 2 ? lab::kBlockShared : nullptr;
  g_above_32 = pass == 2 ? lab::kCandidatesMajor : nullptr;  // pass 2: over groups of 32
  std::printf("---- correctness pass %d (9-32 heads: %s, 33-128 heads: %s)\n", pass,
              g_up_to_32 ? g_up_to_32 : "the product's kernels",
              g_candidate ? "the candidate" : g_above_32 ? g_above_32 : "the product's kernels");
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
  g_up_to_32 = g_above_32 = nullptr;
  g_candidate = false;
  std::printf("correctness: %s (%d failures)\n", g_failures ? "FAILED" : "passed", g_failures);

  if (bench) {
    FILE* csv = csv_path ? std::fopen(csv_path, "w") : nullptr;
    if (csv) std::fprintf(csv, "tokens,heads,topk,row_bytes,rule,splits,us,tb_per_s,tflop_per_s\n");
    benchmark(sm_count, csv);
    if (csv) std::fclose(csv);
  }
  return g_failures ? 1 : 0;
}
