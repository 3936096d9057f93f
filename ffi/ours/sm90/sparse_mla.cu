// Our SM90 (Hopper, sm_90a) sparse-MLA kernels: implementation="cuda".
// Placeholder while the kernel is written: the handler binds the final operand
// list and answers Unimplemented, so the library, its registration and the
// lowering can be tested before the kernel lands.
#include <cuda_runtime.h>

#include "common/attention_operands.h"

namespace jax_glm_nope::sm90 {
namespace {

ffi::Error sparse_mla_impl(cudaStream_t, int32_t, ffi::Buffer<ffi::BF16>, ffi::Buffer<ffi::U8>,
                           ffi::Buffer<ffi::S32>, ffi::Buffer<ffi::S32>, float,
                           ffi::ResultBuffer<ffi::BF16>, ffi::ResultBuffer<ffi::F32>) {
  return ffi::Error(ffi::ErrorCode::kUnimplemented, "the sm_90a sparse-MLA kernel is not written yet");
}

}  // namespace
}  // namespace jax_glm_nope::sm90

XLA_FFI_DEFINE_HANDLER_SYMBOL(JaxGlmNopeSm90SparseMla, jax_glm_nope::sm90::sparse_mla_impl,
                              jax_glm_nope::bind_attention()
                                  .Ret<xla::ffi::Buffer<xla::ffi::BF16>>()  // out
                                  .Ret<xla::ffi::Buffer<xla::ffi::F32>>(),  // lse
                              {xla::ffi::Traits::kCmdBufferCompatible});
