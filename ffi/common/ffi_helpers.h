// Helpers shared by every handler of the native library: argument checks that return
// InvalidArgument, the device-architecture query, and CUDA errors as ffi::Error.
//
// Handlers never throw: every failure is an ffi::Error returned to XLA, which
// raises it in Python as an XlaRuntimeError and leaves the process usable.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "xla/ffi/api/ffi.h"

namespace jax_glm_nope {

namespace ffi = xla::ffi;

// 16 bytes: the widest vector access any kernel of the library makes.
constexpr uintptr_t kBufferAlignment = 16;

inline std::string shape_string(ffi::Span<const int64_t> dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) text += ", ";
    text += std::to_string(dims[i]);
  }
  return text + "]";
}

template <typename Buffer>
ffi::Error check_aligned(const Buffer& buffer, const char* name) {
  const auto address = reinterpret_cast<uintptr_t>(buffer.untyped_data());
  if (address % kBufferAlignment != 0) {
    return ffi::Error::InvalidArgument(std::string(name) + ": buffer must be " +
                                       std::to_string(kBufferAlignment) +
                                       "-byte aligned, got address " + std::to_string(address));
  }
  return ffi::Error::Success();
}

template <typename Buffer>
ffi::Error check_shape(const Buffer& buffer, const char* name,
                       std::initializer_list<int64_t> expected) {
  const auto dims = buffer.dimensions();
  bool same = dims.size() == expected.size();
  size_t i = 0;
  for (int64_t want : expected) {
    if (!same) break;
    same = dims[i++] == want;
  }
  if (same) return ffi::Error::Success();
  std::string want = "[";
  i = 0;
  for (int64_t value : expected) want += (i++ ? ", " : "") + std::to_string(value);
  return ffi::Error::InvalidArgument(std::string(name) + ": expected shape " + want + "], got " +
                                     shape_string(dims));
}

inline ffi::Error cuda_error(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return ffi::Error::Success();
  return ffi::Error::Internal(std::string(what) + ": " + cudaGetErrorString(status));
}

struct DeviceArch {
  int major = 0;
  int minor = 0;
  int sm_count = 0;
};

// One query per call: cudaDeviceGetAttribute reads a driver-side cache, costs
// well under a microsecond and does not touch the stream, so it is safe while
// XLA records a command buffer.
inline ffi::Error query_device(int32_t device, DeviceArch* arch) {
  cudaError_t status =
      cudaDeviceGetAttribute(&arch->major, cudaDevAttrComputeCapabilityMajor, device);
  if (status == cudaSuccess)
    status = cudaDeviceGetAttribute(&arch->minor, cudaDevAttrComputeCapabilityMinor, device);
  if (status == cudaSuccess)
    status = cudaDeviceGetAttribute(&arch->sm_count, cudaDevAttrMultiProcessorCount, device);
  return cuda_error(status, "cudaDeviceGetAttribute");
}

}  // namespace jax_glm_nope
