// Our arch-generic KV-row targets: quantize latents into cached rows in place, and read rows
// back as float32. Built for sm_90a, sm_120a and PTX, so they prove the native library
// (loading, registration, aliasing, command buffers) on any recent NVIDIA GPU.
//
// Bit-exactness with jax_glm_nope.quant.quantize_rows rests on doing the same
// IEEE operations in the same order: amax in fp32, s = amax / 448 with a true
// division (no --use_fast_math anywhere in this build), codes = e4m3fn(x / s)
// rounded to nearest even and saturated at +-448, zero tiles stored as scale 0
// and code 0x00.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "common/ffi_helpers.h"
#include "common/row_layout.h"

namespace jax_glm_nope {
namespace {

namespace L = layout;

// One block per row, one warp per 128-value tile, four values per lane.
constexpr int kThreads = L::kHeadDim / 4;
static_assert(kThreads == L::kNumTiles * 32, "one warp per tile");

__device__ __forceinline__ float4 load4(const float* p) {
  return *reinterpret_cast<const float4*>(p);
}
__device__ __forceinline__ float4 load4(const __nv_bfloat16* p) {
  const uint2 raw = *reinterpret_cast<const uint2*>(p);
  const float2 lo = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&raw.x));
  const float2 hi = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&raw.y));
  return make_float4(lo.x, lo.y, hi.x, hi.y);
}
__device__ __forceinline__ float4 load4(const __half* p) {
  const uint2 raw = *reinterpret_cast<const uint2*>(p);
  const float2 lo = __half22float2(*reinterpret_cast<const __half2*>(&raw.x));
  const float2 hi = __half22float2(*reinterpret_cast<const __half2*>(&raw.y));
  return make_float4(lo.x, lo.y, hi.x, hi.y);
}

// max that keeps NaN, as XLA's reduce-max does (fmaxf would drop it).
__device__ __forceinline__ float nan_max(float a, float b) { return (a > b || a != a) ? a : b; }

__device__ __forceinline__ uint32_t to_code(float x, float scale) {
  if (scale == 0.0f) return 0u;  // amax 0: +0 codes, never -0 or NaN
  return __nv_cvt_float_to_fp8(x / scale, __NV_SATFINITE, __NV_E4M3);
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    write_rows_kernel(uint8_t* __restrict__ pool, int64_t num_slots, int row_bytes,
                      const T* __restrict__ latent, const int32_t* __restrict__ slots) {
  const int64_t token = blockIdx.x;
  const int32_t slot = slots[token];
  if (slot < 0 || slot >= num_slots) return;  // dropped (docs/semantics.md)
  const int lane = threadIdx.x % 32;
  const int tile = threadIdx.x / 32;
  const float4 x = load4(latent + token * L::kHeadDim + threadIdx.x * 4);

  float amax = nan_max(nan_max(fabsf(x.x), fabsf(x.y)), nan_max(fabsf(x.z), fabsf(x.w)));
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    amax = nan_max(amax, __shfl_xor_sync(0xffffffffu, amax, offset));
  const float scale = amax / L::kFp8Max;  // a true fp32 division, never a power of two

  uint8_t* row = pool + int64_t(slot) * row_bytes;
  const uint32_t codes = to_code(x.x, scale) | to_code(x.y, scale) << 8 |
                         to_code(x.z, scale) << 16 | to_code(x.w, scale) << 24;
  *reinterpret_cast<uint32_t*>(row + L::kCodesOffset + threadIdx.x * 4) = codes;
  if (lane == 0) *reinterpret_cast<float*>(row + L::kScalesOffset + tile * 4) = scale;
  const int reserved_vectors = (row_bytes - L::kReservedOffset) / 16;
  if (threadIdx.x < reserved_vectors)
    reinterpret_cast<uint4*>(row + L::kReservedOffset)[threadIdx.x] = make_uint4(0, 0, 0, 0);
}

__global__ void __launch_bounds__(kThreads)
    dequantize_rows_kernel(const uint8_t* __restrict__ rows, int row_bytes,
                           float* __restrict__ out) {
  const int64_t index = blockIdx.x;
  const uint8_t* row = rows + index * row_bytes;
  const uint32_t codes =
      *reinterpret_cast<const uint32_t*>(row + L::kCodesOffset + threadIdx.x * 4);
  const float scale =
      *reinterpret_cast<const float*>(row + L::kScalesOffset + (threadIdx.x / 32) * 4);
  float values[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    __nv_fp8_e4m3 code;
    code.__x = static_cast<__nv_fp8_storage_t>((codes >> (8 * i)) & 0xffu);
    values[i] = static_cast<float>(code) * scale;
  }
  *reinterpret_cast<float4*>(out + index * L::kHeadDim + threadIdx.x * 4) =
      make_float4(values[0], values[1], values[2], values[3]);
}

ffi::Error check_pool(ffi::Buffer<ffi::U8> pool, const char* name) {
  const auto dims = pool.dimensions();
  if (dims.size() != 2 || (dims[1] != L::kCompactRowBytes && dims[1] != L::kPaddedRowBytes)) {
    return ffi::Error::InvalidArgument(
        std::string(name) + ": expected uint8 [num_slots, 528 | 656], got " + shape_string(dims));
  }
  return check_aligned(pool, name);
}

ffi::Error write_kv_impl(cudaStream_t stream, [[maybe_unused]] int32_t device,
                         ffi::Buffer<ffi::U8> pool, ffi::AnyBuffer latent,
                         ffi::Buffer<ffi::S32> slots, ffi::ResultBuffer<ffi::U8> pool_out) {
  if (auto error = check_pool(pool, "pool"); error.failure()) return error;
  const auto latent_dims = latent.dimensions();
  if (latent_dims.size() != 2 || latent_dims[1] != L::kHeadDim) {
    return ffi::Error::InvalidArgument("latent: expected [T, 512], got " +
                                       shape_string(latent_dims));
  }
  const int64_t num_tokens = latent_dims[0];
  if (auto error = check_shape(slots, "slots", {num_tokens}); error.failure()) return error;
  if (auto error = check_aligned(latent, "latent"); error.failure()) return error;
  if (pool_out->dimensions().size() != 2 || pool_out->size_bytes() != pool.size_bytes()) {
    return ffi::Error::InvalidArgument("pool_out: must have the shape of pool");
  }
  const int64_t num_slots = pool.dimensions()[0];
  const int row_bytes = static_cast<int>(pool.dimensions()[1]);
  uint8_t* out = pool_out->typed_data();
  // input_output_aliases makes XLA hand the same buffer in and out (copying the
  // pool first when the caller did not donate it); keep a copy for any other caller.
  if (out != pool.typed_data()) {
    if (auto error = cuda_error(cudaMemcpyAsync(out, pool.typed_data(), pool.size_bytes(),
                                                cudaMemcpyDeviceToDevice, stream),
                                "cudaMemcpyAsync");
        error.failure())
      return error;
  }
  if (num_tokens == 0 || num_slots == 0) return ffi::Error::Success();
  const dim3 grid(static_cast<unsigned>(num_tokens));
  switch (latent.element_type()) {
    case ffi::DataType::F32:
      write_rows_kernel<<<grid, kThreads, 0, stream>>>(
          out, num_slots, row_bytes, static_cast<const float*>(latent.untyped_data()),
          slots.typed_data());
      break;
    case ffi::DataType::BF16:
      write_rows_kernel<<<grid, kThreads, 0, stream>>>(
          out, num_slots, row_bytes, static_cast<const __nv_bfloat16*>(latent.untyped_data()),
          slots.typed_data());
      break;
    case ffi::DataType::F16:
      write_rows_kernel<<<grid, kThreads, 0, stream>>>(
          out, num_slots, row_bytes, static_cast<const __half*>(latent.untyped_data()),
          slots.typed_data());
      break;
    default:
      return ffi::Error::InvalidArgument("latent: expected float32, bfloat16 or float16");
  }
  return cuda_error(cudaGetLastError(), "write_rows_kernel launch");
}

ffi::Error dequantize_impl(cudaStream_t stream, [[maybe_unused]] int32_t device,
                           ffi::Buffer<ffi::U8> rows, ffi::ResultBuffer<ffi::F32> out) {
  if (auto error = check_pool(rows, "rows"); error.failure()) return error;
  const int64_t num_rows = rows.dimensions()[0];
  if (auto error = check_shape(*out, "out", {num_rows, L::kHeadDim}); error.failure()) return error;
  if (auto error = check_aligned(*out, "out"); error.failure()) return error;
  if (num_rows == 0) return ffi::Error::Success();
  dequantize_rows_kernel<<<static_cast<unsigned>(num_rows), kThreads, 0, stream>>>(
      rows.typed_data(), static_cast<int>(rows.dimensions()[1]), out->typed_data());
  return cuda_error(cudaGetLastError(), "dequantize_rows_kernel launch");
}

}  // namespace
}  // namespace jax_glm_nope

XLA_FFI_DEFINE_HANDLER_SYMBOL(JaxGlmNopeWriteKv, jax_glm_nope::write_kv_impl,
                              xla::ffi::Ffi::Bind()
                                  .Ctx<xla::ffi::PlatformStream<cudaStream_t>>()
                                  .Ctx<xla::ffi::DeviceOrdinal>()
                                  .Arg<xla::ffi::Buffer<xla::ffi::U8>>()   // pool (aliased)
                                  .Arg<xla::ffi::AnyBuffer>()              // latent
                                  .Arg<xla::ffi::Buffer<xla::ffi::S32>>()  // slots
                                  .Ret<xla::ffi::Buffer<xla::ffi::U8>>(),  // pool, updated
                              {xla::ffi::Traits::kCmdBufferCompatible});

XLA_FFI_DEFINE_HANDLER_SYMBOL(JaxGlmNopeDequantize, jax_glm_nope::dequantize_impl,
                              xla::ffi::Ffi::Bind()
                                  .Ctx<xla::ffi::PlatformStream<cudaStream_t>>()
                                  .Ctx<xla::ffi::DeviceOrdinal>()
                                  .Arg<xla::ffi::Buffer<xla::ffi::U8>>()    // rows
                                  .Ret<xla::ffi::Buffer<xla::ffi::F32>>(),  // values
                              {xla::ffi::Traits::kCmdBufferCompatible});
