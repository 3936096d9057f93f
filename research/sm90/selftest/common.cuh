// The selftest's includes, names and error check (research/sm90/selftest/selftest.cu is the
// program; cases.cuh, runs.cuh and bench.cuh its parts, one translation unit).
#pragma once

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
