#include "tests/kernels/quantized_operands.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace nee::test {

int64_t quantize_centred(const Tensor& x, float scale, int zero, Tensor& out) {
  int64_t saturated = 0;
  for (int64_t i = 0; i < x.elements(); ++i) {
    const float q = std::nearbyint(x.data_as<float>()[i] / scale) + static_cast<float>(zero);
    saturated += q < 0 || q > 255;
    out.data_as<float>()[i] = std::clamp(q, 0.0f, 255.0f) - static_cast<float>(zero);
  }
  return saturated;
}

void expect_near_peak(const Tensor& got, const Tensor& want, double rtol) {
  double peak = 0;
  for (int64_t i = 0; i < want.elements(); ++i) {
    peak = std::max(peak, std::fabs(static_cast<double>(want.data_as<float>()[i])));
  }
  EXPECT_GT(peak, 0);
  for (int64_t i = 0; i < want.elements(); ++i) {
    EXPECT_NEAR(got.data_as<float>()[i], want.data_as<float>()[i], rtol * peak) << i;
  }
}

}  // namespace nee::test
