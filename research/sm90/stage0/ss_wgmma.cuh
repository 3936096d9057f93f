// M6, M8, M9 and M12's shared-operand wgmmas and core layout.
#pragma once

#include "harness.cuh"
#include "ours/sm90/pipeline.cuh"  // core_offset

// ============================================================================ M6-M8
// The next heads-major design's microbenchmarks (research/notes/anchors.md, 5.0 (iii), which
// names them M5-M7; M5 here was already the N-major descriptor probe, so they are M6-M8).
// Shared operands, K-major, no swizzle, in the product's core layout (core_offset<NP>):
// cores along K NP x 16 bytes apart (LBO), along M/N 128 bytes apart (SBO); k-step s of an
// NP-row operand starts NP x 32 bytes further on.

// wgmma m64nNk16 f32 <- f16 x f16, both operands from shared memory; D zeroed first
// unless `accumulate`.
template <int N>
struct Ss;
template <>
struct Ss<32> {
  __device__ __forceinline__ static void mma(float (&d)[16], uint64_t a, uint64_t b, int accumulate) {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %18, 0;\n"
        " wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, %16, %17, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
        : "l"(a), "l"(b), "r"(accumulate));
  }
};
template <>
struct Ss<64> {
  __device__ __forceinline__ static void mma(float (&d)[32], uint64_t a, uint64_t b, int accumulate) {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %34, 0;\n"
        " wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "l"(a), "l"(b), "r"(accumulate));
  }
};
template <>
struct Ss<128> {
  __device__ __forceinline__ static void mma(float (&d)[64], uint64_t a, uint64_t b, int accumulate) {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %66, 0;\n"
        " wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(a), "l"(b), "r"(accumulate));
  }
};

// NP x K (K-major) fp16 values from global (row-major) into shared memory, core layout.
template <int NP>
__device__ __forceinline__ void to_cores(uint8_t* dst, const __half* src, int k_dims, int tid,
                                         int nthreads) {
  for (int i = tid; i < NP * k_dims; i += nthreads)
    *reinterpret_cast<__half*>(dst + sm90::core_offset<NP>(i / k_dims, i % k_dims)) = src[i];
}
template <int NP>
__device__ __forceinline__ uint64_t kstep_desc(const uint8_t* base, int s) {
  return ptx::smem_desc(base + s * NP * 32, NP * 16, 128);
}
// Values in {-1, 0, 1}: every product below is exact in fp32.
static std::vector<__half> small_ints(size_t n, uint64_t seed, std::vector<float>& f) {
  std::vector<__half> h(n);
  f.resize(n);
  for (size_t i = 0; i < n; ++i) {
    f[i] = float(int(hash32(i + seed) % 3) - 1);
    h[i] = __float2half(f[i]);
  }
  return h;
}
// One warpgroup's m64nN accumulator fragment (thread `t` of 128, element e) -> (row, col).
__host__ __device__ inline void frag_rc(int t, int e, int& row, int& col) {
  const int w = t / 32, lane = t % 32, g = lane / 4, q = lane % 4;
  row = 16 * w + g + 8 * ((e / 2) % 2);
  col = 8 * (e / 4) + 2 * q + (e % 2);
}

