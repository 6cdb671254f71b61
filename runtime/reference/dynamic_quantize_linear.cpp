#include <algorithm>
#include <cmath>

#include "runtime/reference/float_lanes.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

// The lowest and highest of x[0, n), starting from 0 (a NaN is passed over, as std::min
// and std::max pass it over).
NEE_VECTOR_CLONES void widened_range(const float* x, int64_t n, float& low, float& high) {
  FloatLanes lo = {}, hi = {};
  int64_t i = 0;
  for (; i + kFloatLanes <= n; i += kFloatLanes) {
    const FloatLanes v = *reinterpret_cast<const FloatLanes*>(x + i);
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
  low = high = 0.0f;
  for (int64_t l = 0; l < kFloatLanes; ++l) {
    low = std::min(low, lo[l]);
    high = std::max(high, hi[l]);
  }
  for (; i < n; ++i) {
    low = std::min(low, x[i]);
    high = std::max(high, x[i]);
  }
}

// y = saturate(round_half_even(x / scale) + zero) onto 0..255. |x / scale| <= 255 here, where
// adding and subtracting 1.5 * 2^23 rounds to the nearest integer, ties to even, as
// std::nearbyint does in the default rounding mode.
NEE_VECTOR_CLONES void quantize_to_bytes(const float* x, int64_t n, float scale, float zero, uint8_t* y) {
  constexpr float kRounder = 12582912.0f;
  int64_t i = 0;
  for (; i + kFloatLanes <= n; i += kFloatLanes) {
    const FloatLanes q = *reinterpret_cast<const FloatLanes*>(x + i) / scale;
    FloatLanes r = (q + kRounder) - kRounder + zero;
    r = r < 0.0f ? FloatLanes{} : r;
    r = r > 255.0f ? FloatLanes{} + 255.0f : r;
    for (int64_t l = 0; l < kFloatLanes; ++l) y[i + l] = static_cast<uint8_t>(r[l]);
  }
  for (; i < n; ++i) y[i] = static_cast<uint8_t>(std::clamp(std::nearbyint(x[i] / scale) + zero, 0.0f, 255.0f));
}

}  // namespace

// DynamicQuantizeLinear, as its function body: the range [min(0, min x), max(0, max x)]
// maps onto 0..255; scale = range / 255, zero point = saturate(round(-min / scale)). A
// tensor of zeros gets scale 0 and zero point 0, and quantizes to zeros. Vectorized: BERT's
// dynamically quantized layers ran it 0.75 ms a call on the scalar loops.
ReferenceFn make_reference_dynamic_quantize_linear(const Graph&, const Node&) {
  return [](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const float* x = in[0]->data_as<float>();
    const int64_t n = in[0]->elements();
    float low = 0.0f, high = 0.0f;
    widened_range(x, n, low, high);
    const float scale = (high - low) / 255.0f;
    const uint8_t zero =
        scale > 0 ? static_cast<uint8_t>(std::clamp(std::nearbyint(-low / scale), 0.0f, 255.0f)) : 0;
    // Without y (passes.h: integer_products_as_float reads x instead), only the parameters.
    if (out[0]) {
      uint8_t* y = out[0]->data_as<uint8_t>();
      if (scale > 0) {
        quantize_to_bytes(x, n, scale, zero, y);
      } else {
        std::fill_n(y, n, uint8_t{0});
      }
    }
    if (out.size() > 1 && out[1]) *out[1]->data_as<float>() = scale;
    if (out.size() > 2 && out[2]) *out[2]->data_as<uint8_t>() = zero;
  };
}

}  // namespace nee
