// The selftest's timings: CUDA graphs over a pool larger than L2, one row per case and kernel.
#pragma once

#include "runs.cuh"

namespace {

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

// The targets and the H200 run-3 numbers (research/notes/sm90_first_kernels.md, run 3:
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
          r.row_bytes != 528 || r.wgmma != (g_up_to_32 == lab::kCandidatesMajor) || r.groups32 || r.pipelined != g_candidate)
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
    p.up_to_8_heads = r.block_shared ? lab::kBlockShared : nullptr;
    // wgmma rows force the wgmma kernel; default rows take the launcher's defaults; the
    // others run the kernels of run 11 (the block-shared kernel up to 32 heads).
    if (!r.defaults) p.up_to_32_heads = r.wgmma ? lab::kCandidatesMajor : lab::kBlockShared;
    p.above_32_heads = r.groups32 ? lab::kCandidatesMajor : nullptr;
    p.candidate = r.pipelined;
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
