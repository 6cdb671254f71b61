#pragma once
#include <cstdint>

#include "runtime/tensor.h"

namespace nee::test {

// What an integer kernel's reference is held to, computed by loops of the tests' own: `x`
// quantized as QuantizeLinear does and centred, saturate(round(x / scale) + zero) - zero in
// f32, into `out` (x's shape); returns how many elements saturated.
int64_t quantize_centred(const Tensor& x, float scale, int zero, Tensor& out);

// Expects `want`'s peak magnitude above 0 and every element of `got` within `rtol` of it.
void expect_near_peak(const Tensor& got, const Tensor& want, double rtol);

}  // namespace nee::test
