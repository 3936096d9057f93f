// Copyright (c) 2026 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
// SPDX-License-Identifier: BSD-3-Clause
//
// Redistribution and use in source and binary forms, with or without
// modification, are permitted provided that the following conditions are met:
//
// 1. Redistributions of source code must retain the above copyright notice, this
// list of conditions and the following disclaimer.
//
// 2. Redistributions in binary form must reproduce the above copyright notice,
// this list of conditions and the following disclaimer in the documentation
// and/or other materials provided with the distribution.
//
// 3. Neither the name of the copyright holder nor the names of its
// contributors may be used to endorse or promote products derived from
// this software without specific prior written permission.
//
// THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"
// AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
// IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE
// DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE
// FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
// DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR
// SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER
// CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY,
// OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE
// OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.

#pragma once

#include <cuda_bf16.h>

#include "dsv41_layout.cuh"
#include "dsv4_geometry.cuh"
#include "kv_storage.cuh"
#include "model_type.h"

using bf16 = __nv_bfloat16;

// KVCacheTraits<ModelType>: compile-time constants for KV cache layout.
//
// These determine smem strides, MMA loop counts, IO gather sizes,
// and all dimension-dependent kernel parameters.
//
// Each model composes a ScaleSpec (format / group size / inline-vs-footer
// placement) and forwards the derived constants; consumers read the forwarded
// members (QUANT_TILE, NUM_SCALES, SCALE_FORMAT, SCALE_INLINE, ...) and never
// the spec directly.
//
// The DeepSeek-family model types share D_V=512. GLM53_NOPE and DSV4_1
// have no separate RoPE segment; DOTS3_SWA instead has D_V=1024.
// Kernel resources own candidate tiles and warp configuration.

template <ModelType MT>
struct KVCacheTraits;

template <>
struct KVCacheTraits<ModelType::DSV3_2> {
  // Dimensions
  static constexpr int D_NOPE = 512;
  static constexpr int D_ROPE = 64;
  static constexpr int D_QK = D_NOPE + D_ROPE;  // 576
  static constexpr int D_V = 512;

  // FP8 quantization: power-of-2 FP32 scales, inline, 128-wide groups.
  using Scales = ScaleSpec<ScaleFormat::POW2_FP32, 128, true>;
  static constexpr int QUANT_TILE = Scales::GROUP;
  static constexpr int NUM_SCALES = Scales::count(D_NOPE);  // 4
  static constexpr ScaleFormat SCALE_FORMAT = Scales::FORMAT;

  // KV cache layout (FlashMLA ABI): INLINE, 656 bytes per token
  //   [0:512)   FP8 E4M3 nope (4 tiles × 128)
  //   [512:528) 4 × FP32 scale
  //   [528:656) BF16 rope (64 elements × 2B)
  static constexpr bool SCALE_INLINE = Scales::INLINE;
  static constexpr int SCALE_BYTES_PER_TOKEN = Scales::bytes_per_token(D_NOPE);  // 16
  static constexpr int BYTES_PER_TOKEN =
      D_NOPE + SCALE_BYTES_PER_TOKEN + D_ROPE * sizeof(bf16);                           // 656
  static constexpr int SCALE_DATA_PREFIX_BYTES = Scales::data_prefix_bytes(D_NOPE, 0);  // 512
  static constexpr int KV_ROPE_GMEM_OFFSET = D_NOPE + SCALE_BYTES_PER_TOKEN;            // 528

  // Smem layout: bulk copy includes nope + scales (528B)
  // stride=528: 528/4=132, 132%32=4 → 4-way bank conflict (acceptable)
  static constexpr int KV_SMEM_STRIDE = D_NOPE + SCALE_BYTES_PER_TOKEN;  // 528
  static constexpr int KV_SMEM_COPY_BYTES = KV_SMEM_STRIDE;              // copy 528B per entry
  // DSV3_2: scales are within the bulk-copied region → accessible from kv_smem
  static constexpr bool SCALE_IN_KV_SMEM = true;

  // Q nope stride (padded for ldmatrix alignment + bank conflict avoidance)
  static constexpr int Q_NOPE_STRIDE = D_NOPE + 16;  // 528
  // Unused for DSV3_2 prefill; declared so SmemLayout<DSV3_2, BF16> compiles.
  static constexpr int Q_NOPE_BF16_STRIDE = D_NOPE + 8;  // 520

  // V = pure nope (no rope component)
  static constexpr bool V_HAS_ROPE = false;

  // FP32→UE8M0 scale conversion for block-scaled MMA
  // FlashMLA stores power-of-2 FP32 scales → bit-shift gives exact UE8M0
  __device__ static __forceinline__ uint8_t scale_to_ue8m0(float scale);
};

template <>
struct KVCacheTraits<ModelType::GLM_NSA> : KVCacheTraits<ModelType::DSV3_2> {
  // Same geometry and inline layout as DSV3_2, with arbitrary FP32 scales.
  using Scales = ScaleSpec<ScaleFormat::ARBITRARY_FP32, 128, true>;
  static constexpr ScaleFormat SCALE_FORMAT = Scales::FORMAT;
};

template <>
struct KVCacheTraits<ModelType::GLM53_NOPE> {
  // GLM-5.3-Flash is a native NoPE model. The absorbed query and latent KV
  // dimensions are both 512; no positional-key lane exists.
  static constexpr int D_NOPE = 512;
  static constexpr int D_ROPE = 0;
  static constexpr int D_QK = D_NOPE;
  static constexpr int D_V = 512;

  // FP8 quantization: arbitrary FP32 scales, inline, 128-wide groups.
  using Scales = ScaleSpec<ScaleFormat::ARBITRARY_FP32, 128, true>;
  static constexpr int QUANT_TILE = Scales::GROUP;
  static constexpr int NUM_SCALES = Scales::count(D_NOPE);
  static constexpr ScaleFormat SCALE_FORMAT = Scales::FORMAT;

  // The packed payload is 528 bytes/token: 512 FP8 latent values plus four
  // inline FP32 scales. vLLM's fp8_ds_mla ABI pads the gmem row to 656B with
  // reserved bytes that must never be treated as RoPE data; the kernels take
  // the gmem row advance as a runtime stride, so BYTES_PER_TOKEN below is only
  // the payload (== smem copy size), not the gmem advance.
  static constexpr bool SCALE_INLINE = Scales::INLINE;
  static constexpr int SCALE_BYTES_PER_TOKEN = Scales::bytes_per_token(D_NOPE);
  static constexpr int BYTES_PER_TOKEN = D_NOPE + SCALE_BYTES_PER_TOKEN;  // 528
  static constexpr int SCALE_DATA_PREFIX_BYTES = Scales::data_prefix_bytes(D_NOPE, 0);
  static constexpr int KV_ROPE_GMEM_OFFSET = D_NOPE + SCALE_BYTES_PER_TOKEN;
  static constexpr int KV_SMEM_STRIDE = D_NOPE + SCALE_BYTES_PER_TOKEN;
  static constexpr int KV_SMEM_COPY_BYTES = KV_SMEM_STRIDE;
  static constexpr bool SCALE_IN_KV_SMEM = true;

  static constexpr int Q_NOPE_STRIDE = D_NOPE + 16;
  static constexpr int Q_NOPE_BF16_STRIDE = D_NOPE + 8;
  static constexpr bool V_HAS_ROPE = false;

  __device__ static __forceinline__ uint8_t scale_to_ue8m0(float scale);
};

template <>
struct KVCacheTraits<ModelType::DOTS3_SWA> {
  static constexpr int WINDOW = 513;
  // Sliding-window MLA: 1024-wide latent + 64-wide rope. First model with
  // D_V != 512 — see the assert block below.
  static constexpr int D_NOPE = 1024;
  static constexpr int D_ROPE = 64;
  static constexpr int D_QK = D_NOPE + D_ROPE;  // 1088
  static constexpr int D_V = D_NOPE;            // 1024, rope excluded (V_HAS_ROPE=false)

  // FP8 quantization: UE8M0 scales, footer, 128-wide groups (not DSV4's 64),
  // keeping NUM_SCALES a power of two so the footer is 8B with no pad —
  // unlike DSV4's 7+1.
  using Scales = ScaleSpec<ScaleFormat::UE8M0_BYTE, 128, false>;
  static constexpr int QUANT_TILE = Scales::GROUP;
  static constexpr int NUM_SCALES = Scales::count(D_NOPE);  // 8
  static constexpr ScaleFormat SCALE_FORMAT = Scales::FORMAT;

  // KV cache layout (FlashMLA ABI): FOOTER, 1160 logical bytes per token.
  // Physical layout per block (page_block_size tokens):
  //   [0 : block_size*1152)                 nope+rope data (1152B each)
  //     per token: [0:1024) FP8 nope, [1024:1152) BF16 rope
  //   [block_size*1152 : block_size*1160)   scale footer (8B each: 8×UE8M0)
  //
  // IO stride = 1152 (data only), 1152 % 16 = 0 ✓ for cp.async.bulk.
  static constexpr bool SCALE_INLINE = Scales::INLINE;
  static constexpr int SCALE_BYTES_PER_TOKEN = Scales::bytes_per_token(D_NOPE);  // 8
  static constexpr int BYTES_PER_TOKEN =
      D_NOPE + D_ROPE * sizeof(bf16) + SCALE_BYTES_PER_TOKEN;  // 1160
  static constexpr int KV_ROPE_GMEM_OFFSET = D_NOPE;           // 1024
  static constexpr int SCALE_DATA_PREFIX_BYTES =
      Scales::data_prefix_bytes(D_NOPE, D_ROPE*(int)sizeof(bf16));  // 1152

  // Smem layout (nope only + padding, no rope, no inline scales).
  // stride=1040: 1040/4=260, 260%32=4 → same 4-way conflict class as DSV3_2's
  // 528, not DSV4's conflict-free 464. UNMEASURED — the M4b-equivalent
  // benchmark has not been run for this stride.
  // Must be 16B aligned for cp.async.bulk: 1040%16=0 ✓
  static constexpr int KV_SMEM_STRIDE = D_NOPE + 16;  // 1040
  static constexpr int KV_SMEM_COPY_BYTES = D_NOPE;   // copy 1024B nope per entry
  static constexpr bool SCALE_IN_KV_SMEM = false;

  // Q nope stride
  static constexpr int Q_NOPE_STRIDE = D_NOPE + 16;      // 1040
  static constexpr int Q_NOPE_BF16_STRIDE = D_NOPE + 8;  // 1032 bf16 (2064 B)

  // V = pure nope. In this family's reference implementation the scores bmm
  // uses the full 1088-wide head dim, but the output bmm reads only the
  // 1024-wide latent (rope excluded).
  static constexpr bool V_HAS_ROPE = false;

  // UE8M0 scales are native — no conversion needed
  __device__ static __forceinline__ uint8_t scale_to_ue8m0(uint8_t scale);
};

template <>
struct KVCacheTraits<ModelType::DSV4> : Dsv4Geometry {
  using Geometry = Dsv4Geometry;

  // FP8 quantization: UE8M0 scales, footer, 64-wide groups.
  using Scales = ScaleSpec<ScaleFormat::UE8M0_BYTE, 64, false>;
  static constexpr int QUANT_TILE = Scales::GROUP;
  static constexpr int NUM_SCALES = Scales::count(D_NOPE);  // 7 = 448/64
  static constexpr ScaleFormat SCALE_FORMAT = Scales::FORMAT;

  // KV cache layout (FlashMLA ABI): FOOTER, 584 logical bytes per token
  // Physical layout per block (page_block_size tokens):
  //   [0 : block_size*576)                nope+rope data (576B each)
  //     per token: [0:448) FP8 nope, [448:576) BF16 rope
  //   [block_size*576 : block_size*584)   scale footer (8B each: 7×UE8M0 + 1 pad)
  //
  // stride_kv_row = 584 = logical bytes_per_token (PyTorch API stride, NOT IO stride)
  // IO stride = 576 (data only, 16B aligned for cp.async.bulk)
  static constexpr bool SCALE_INLINE = Scales::INLINE;  // scales in footer, not inline
  static constexpr int SCALE_BYTES_PER_TOKEN = Scales::bytes_per_token(D_NOPE);  // 8
  static constexpr int BYTES_PER_TOKEN =
      D_NOPE + D_ROPE * sizeof(bf16) + SCALE_BYTES_PER_TOKEN;  // 584
  static constexpr int KV_ROPE_GMEM_OFFSET = D_NOPE;           // 448
  static constexpr int SCALE_DATA_PREFIX_BYTES =
      Scales::data_prefix_bytes(D_NOPE, D_ROPE*(int)sizeof(bf16));  // 576

  // Smem layout (nope only + padding, no rope, no inline scales)
  // stride=464: 464/4=116, 116%32=20 → clean (M4b benchmark verified: 12.9 ns/MMA)
  // Must be 16B aligned for cp.async.bulk: 464%16=0 ✓
  static constexpr int KV_SMEM_STRIDE = D_NOPE + 16;  // 464
  static constexpr int KV_SMEM_COPY_BYTES = D_NOPE;   // copy 448B nope per entry
  // DSV4: scales NOT in the bulk-copied region → loaded separately to kv_scale_bufs
  static constexpr bool SCALE_IN_KV_SMEM = false;

  // Q nope stride
  static constexpr int Q_NOPE_STRIDE = D_NOPE + 16;      // 464
  static constexpr int Q_NOPE_BF16_STRIDE = D_NOPE + 8;  // 456 bf16 (912 B)

  // UE8M0 scales are native — no conversion needed
  __device__ static __forceinline__ uint8_t scale_to_ue8m0(uint8_t scale);
};

template <>
struct KVCacheTraits<ModelType::DSV4_1> : Dsv41Fp8Layout {
  static constexpr int KV_SMEM_STRIDE = D_NOPE + 16;
  static constexpr int KV_SMEM_COPY_BYTES = D_NOPE;
  static constexpr bool SCALE_IN_KV_SMEM = false;
  static constexpr int Q_NOPE_STRIDE = D_NOPE + 16;
  static constexpr int Q_NOPE_BF16_STRIDE = D_NOPE + 8;
  __device__ static __forceinline__ uint8_t scale_to_ue8m0(uint8_t scale);
};

// FlashMLA's DeepSeek-V4.1 inline-scale records: DSV4_1's geometry and scales
// with each token's 16 scale bytes after its 512 data bytes. The 528B record is
// the smem row (DSV4_1 already pads that row to 528B), so one bulk copy brings
// data and scales, and the kernels read the scales at +512 in smem. Rows are
// addressed flat with the validated runtime row stride, like GLM53_NOPE.
template <>
struct KVCacheTraits<ModelType::DSV4_1_INLINE> : Dsv41Fp8InlineLayout {
  static constexpr int KV_SMEM_STRIDE = D_NOPE + SCALE_BYTES_PER_TOKEN;  // 528
  static constexpr int KV_SMEM_COPY_BYTES = KV_SMEM_STRIDE;
  static constexpr bool SCALE_IN_KV_SMEM = true;
  static constexpr int Q_NOPE_STRIDE = D_NOPE + 16;
  static constexpr int Q_NOPE_BF16_STRIDE = D_NOPE + 8;
  __device__ static __forceinline__ uint8_t scale_to_ue8m0(uint8_t scale);
};

struct CacheFormatInfo {
  int query_dim;
  int value_dim;
  int bytes_per_token;
  bool inline_scale;
  int nope_dim;
  int rope_dim;
  int num_scales;
  int scale_bytes;
  int data_bytes;
  int rope_offset;
};

template <ModelType MT>
constexpr CacheFormatInfo cache_format_info() {
  using KV = KVCacheTraits<MT>;
  return {KV::D_QK,
          KV::D_V,
          KV::BYTES_PER_TOKEN,
          KV::SCALE_INLINE,
          KV::D_NOPE,
          KV::D_ROPE,
          KV::NUM_SCALES,
          KV::SCALE_BYTES_PER_TOKEN,
          KV::SCALE_DATA_PREFIX_BYTES,
          KV::KV_ROPE_GMEM_OFFSET};
}

constexpr CacheFormatInfo cache_format_info(ModelType mt) {
#define FORMAT(M)    \
  case ModelType::M: \
    return cache_format_info<ModelType::M>()
  switch (mt) {
    FORMAT(DSV3_2);
    FORMAT(DSV4);
    FORMAT(GLM_NSA);
    FORMAT(GLM53_NOPE);
    FORMAT(DOTS3_SWA);
    FORMAT(DSV4_1);
    FORMAT(DSV4_1_INLINE);
  }
#undef FORMAT
  return {};
}

constexpr int bytes_per_token(ModelType mt) { return cache_format_info(mt).bytes_per_token; }

// ============================================================================
// Shared constants across all model types
// ============================================================================

// D_V is shared across the DeepSeek-family models only; the asserts below pin
// the shared values to KVCacheTraits<...> so a new model with diverging values
// has to opt out explicitly (GLM53_NOPE and DSV4_1 opt out of D_ROPE).
//
// DOTS3_SWA is the D_V opt-out: D_V = 1024. Anything reading the bare `D_V`
// below is therefore DeepSeek-family-only and must not be reached from a
// DOTS3_SWA instantiation — use KVCacheTraits<MT>::D_V.
static constexpr int D_ROPE = 64;
static constexpr int D_V = 512;
static_assert(KVCacheTraits<ModelType::DSV3_2>::D_ROPE == D_ROPE);
static_assert(KVCacheTraits<ModelType::DSV3_2>::D_V == D_V);
static_assert(KVCacheTraits<ModelType::DSV4>::D_ROPE == D_ROPE);
static_assert(KVCacheTraits<ModelType::DSV4>::D_V == D_V);
static_assert(KVCacheTraits<ModelType::GLM_NSA>::D_ROPE == D_ROPE);
static_assert(KVCacheTraits<ModelType::GLM_NSA>::D_V == D_V);
static_assert(KVCacheTraits<ModelType::GLM53_NOPE>::D_ROPE == 0);
static_assert(KVCacheTraits<ModelType::GLM53_NOPE>::D_V == D_V);
static_assert(KVCacheTraits<ModelType::DSV4_1>::D_ROPE == 0);
static_assert(KVCacheTraits<ModelType::DSV4_1>::D_V == D_V);
static_assert(KVCacheTraits<ModelType::DSV4_1_INLINE>::D_ROPE == 0);
static_assert(KVCacheTraits<ModelType::DSV4_1_INLINE>::D_V == D_V);
static_assert(KVCacheTraits<ModelType::DOTS3_SWA>::D_ROPE == D_ROPE);
static_assert(KVCacheTraits<ModelType::DOTS3_SWA>::D_V != D_V,
              "DOTS3_SWA is the D_V opt-out; if it ever equals 512, fold it back "
              "into the shared assert above");

// ScaleSpec composition pins: the composed constants must keep the exact
// values the hand-written layouts had (FlashMLA ABI compatibility).
static_assert(KVCacheTraits<ModelType::DSV3_2>::NUM_SCALES == 4);
static_assert(KVCacheTraits<ModelType::DSV3_2>::SCALE_BYTES_PER_TOKEN == 16);
static_assert(KVCacheTraits<ModelType::DSV3_2>::BYTES_PER_TOKEN == 656);
static_assert(KVCacheTraits<ModelType::GLM_NSA>::BYTES_PER_TOKEN == 656);
static_assert(KVCacheTraits<ModelType::GLM_NSA>::SCALE_FORMAT == ScaleFormat::ARBITRARY_FP32);
static_assert(KVCacheTraits<ModelType::GLM53_NOPE>::NUM_SCALES == 4);
static_assert(KVCacheTraits<ModelType::GLM53_NOPE>::SCALE_BYTES_PER_TOKEN == 16);
static_assert(KVCacheTraits<ModelType::GLM53_NOPE>::BYTES_PER_TOKEN == 528);
static_assert(KVCacheTraits<ModelType::DSV4>::NUM_SCALES == 7);
static_assert(KVCacheTraits<ModelType::DSV4>::SCALE_BYTES_PER_TOKEN == 8);
static_assert(KVCacheTraits<ModelType::DSV4>::BYTES_PER_TOKEN == 584);
static_assert(KVCacheTraits<ModelType::DSV4>::SCALE_DATA_PREFIX_BYTES == 576);
static_assert(KVCacheTraits<ModelType::DOTS3_SWA>::NUM_SCALES == 8);
static_assert(KVCacheTraits<ModelType::DOTS3_SWA>::SCALE_BYTES_PER_TOKEN == 8);
static_assert(KVCacheTraits<ModelType::DOTS3_SWA>::BYTES_PER_TOKEN == 1160);
static_assert(KVCacheTraits<ModelType::DSV4_1>::NUM_SCALES == 16);
static_assert(KVCacheTraits<ModelType::DSV4_1>::SCALE_BYTES_PER_TOKEN == 16);
static_assert(KVCacheTraits<ModelType::DSV4_1>::BYTES_PER_TOKEN == 528);
static_assert(KVCacheTraits<ModelType::DSV4_1>::SCALE_DATA_PREFIX_BYTES == 512);
static_assert(KVCacheTraits<ModelType::DSV4_1_INLINE>::NUM_SCALES == 16);
static_assert(KVCacheTraits<ModelType::DSV4_1_INLINE>::SCALE_BYTES_PER_TOKEN == 16);
static_assert(KVCacheTraits<ModelType::DSV4_1_INLINE>::BYTES_PER_TOKEN == 528);
static_assert(KVCacheTraits<ModelType::DSV4_1_INLINE>::SCALE_DATA_PREFIX_BYTES == 512);
static_assert(KVCacheTraits<ModelType::DSV4_1_INLINE>::KV_SMEM_STRIDE ==
                  KVCacheTraits<ModelType::DSV4_1>::KV_SMEM_STRIDE,
              "both placements share the 528B smem row");
