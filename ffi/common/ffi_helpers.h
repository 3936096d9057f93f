// Helpers shared by every handler of the native library: argument checks that return
// InvalidArgument, the device-architecture query, and CUDA errors as ffi::Error.
//
// Handlers never throw: every failure is an ffi::Error returned to XLA, which
// raises it in Python as an XlaRuntimeError and leaves the process usable.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
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

// A device's architecture never changes while the process runs, so it is queried once per
// device ordinal and kept: each CUDA runtime call a handler makes before its launch is host
// time between the kernel before ours and ours, with the GPU idle when XLA launches without
// command buffers (a host trace showed these queries and the function-attribute set as most
// of the time before the launch). cudaDeviceGetAttribute does not touch the stream, so
// the first query is safe while XLA records a command buffer. Threads racing on the first
// query store the same values.
constexpr int kMaxDevices = 64;

inline ffi::Error query_device(int32_t device, DeviceArch* arch) {
  struct Cached {
    std::atomic<bool> ready{false};
    DeviceArch arch;
  };
  static Cached cache[kMaxDevices];
  const bool cacheable = device >= 0 && device < kMaxDevices;
  if (cacheable && cache[device].ready.load(std::memory_order_acquire)) {
    *arch = cache[device].arch;
    return ffi::Error::Success();
  }
  cudaError_t status =
      cudaDeviceGetAttribute(&arch->major, cudaDevAttrComputeCapabilityMajor, device);
  if (status == cudaSuccess)
    status = cudaDeviceGetAttribute(&arch->minor, cudaDevAttrComputeCapabilityMinor, device);
  if (status == cudaSuccess)
    status = cudaDeviceGetAttribute(&arch->sm_count, cudaDevAttrMultiProcessorCount, device);
  if (status == cudaSuccess && cacheable) {
    cache[device].arch = *arch;
    cache[device].ready.store(true, std::memory_order_release);
  }
  return cuda_error(status, "cudaDeviceGetAttribute");
}

}  // namespace jax_glm_nope
