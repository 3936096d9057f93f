// What every attention kernel of the library shares, host and device: the operation's head
// limit (validate.MAX_HEADS in Python) and the two logarithm constants of base-2 softmax.
#pragma once

namespace jax_glm_nope {

constexpr int kMaxHeads = 128;
constexpr float kLog2e = 1.4426950408889634f;  // log2(e): natural-log scores to base 2
constexpr float kLn2 = 0.6931471805599453f;    // ln(2): base-2 LSEs to natural log

}  // namespace jax_glm_nope
