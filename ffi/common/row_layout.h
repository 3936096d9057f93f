// The cached-token row layout, as the CUDA side needs it.
//
// jax_glm_nope/layout.py is the one home of this layout; these
// constants restate it for C++ and jax_glm_nope/native/build.py refuses to build
// when they disagree with layout.py (it compares the numbers before every build).
//
//   COMPACT (528 B)                       PADDED (656 B)
//   [0, 512)    512 float8_e4m3fn codes   same
//   [512, 528)  4 x float32 LE scales     same
//   [528, 656)  -                         reserved: zeros, never read
#pragma once

namespace jax_glm_nope::layout {

constexpr int kHeadDim = 512;       // latent width: q.k and value width
constexpr int kTile = 128;          // values sharing one scale
constexpr int kNumTiles = 4;        // kHeadDim / kTile scales per row
constexpr int kCodesOffset = 0;     // [0, 512): e4m3fn codes
constexpr int kScalesOffset = 512;  // [512, 528): float32 scales
constexpr int kReservedOffset = 528;
constexpr int kCompactRowBytes = 528;
constexpr int kPaddedRowBytes = 656;
constexpr float kFp8Max = 448.0f;  // largest finite float8_e4m3fn

static_assert(kHeadDim == kNumTiles * kTile, "a row holds whole tiles");
static_assert(kScalesOffset == kCodesOffset + kHeadDim, "scales follow the codes");
static_assert(kReservedOffset == kScalesOffset + kNumTiles * 4, "reserved follows the scales");
static_assert(kCompactRowBytes % 16 == 0 && kPaddedRowBytes % 16 == 0,
              "rows keep 16-byte alignment, which the kernels' vector loads need");

}  // namespace jax_glm_nope::layout
