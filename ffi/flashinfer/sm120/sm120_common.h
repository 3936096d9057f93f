// What FlashInfer's SM120 decode and prefill adapters share: the architecture gate
// and the FlashInfer facts the Python side mirrors (the decode scratch rule).
//
// FlashInfer's GLM53_NOPE kernels (flashinfer-python 0.7.4, header-only under
// flashinfer/attention/sparse_mla_sm120/, vendored in ffi/third_party/flashinfer/)
// assemble only for sm_120a / sm_121a,
// so these handlers first check the device and answer Unimplemented elsewhere.
#pragma once

#include <string>

#include "common/attention_operands.h"

namespace jax_glm_nope::flashinfer_sm120 {

// FlashInfer's split-K decode walks candidates in windows of 64
// (DSV32_CAND_WINDOW); prefill needs K to be a whole number of such windows.
constexpr int kCandidateWindow = 64;
constexpr int kMaxDecodeTokens = 64;  // FlashInfer routes T <= 64 to split-K decode

// Scratch of the split-K decode, mirrored by jax_glm_nope.native.targets.flashinfer_scratch_shapes:
// mid_out bf16 [T, scratch_heads(H), splits(K), 512], mid_lse f32 [T, scratch_heads(H),
// splits(K)]. The rule is FlashInfer's decode_scratch_heads: the dedicated H = 8
// kernel keeps 8 rows; every other head count is padded to the 16-row MMA tile.
constexpr int decode_scratch_heads(int heads) { return heads == 8 ? 8 : (heads + 15) / 16 * 16; }
constexpr int decode_splits(int topk) { return (topk + kCandidateWindow - 1) / kCandidateWindow; }

inline ffi::Error check_arch(int32_t device, DeviceArch* arch) {
  if (auto error = query_device(device, arch); error.failure()) return error;
  if (arch->major == 12 && (arch->minor == 0 || arch->minor == 1)) return ffi::Error::Success();
  return ffi::Error(ffi::ErrorCode::kUnimplemented,
                    "FlashInfer's GLM53_NOPE kernels need an SM120 or SM121 GPU (sm_120a / "
                    "sm_121a, compute capability 12.0 or 12.1); device " +
                        std::to_string(device) + " is sm_" + std::to_string(arch->major) +
                        std::to_string(arch->minor) + " (compute capability " +
                        std::to_string(arch->major) + "." + std::to_string(arch->minor) +
                        ")");
}

// What the FlashInfer targets answer on an SM120/SM121 GPU when the library was
// built without FlashInfer's units (--without-flashinfer, or no sm_120a/sm_121a).
constexpr const char* kBuiltWithoutFlashInfer =
    "this build of the jax_glm_nope native library has no FlashInfer GLM53_NOPE code (it was built "
    "without FlashInfer's units or without sm_120a/sm_121a in its arch list): run `jax-glm-nope "
    "build-ffi --force` (FlashInfer 0.7.4's headers ship with the sources), or install the "
    "prebuilt library: pip install jax-glm-nope[cuda13]";

}  // namespace jax_glm_nope::flashinfer_sm120
