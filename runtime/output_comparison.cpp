#include "runtime/output_comparison.h"

#include <cmath>
#include <cstring>

namespace nee {

template <typename T>
static void compare_values(const T* got, const T* want, int64_t n, double rtol, double atol, Comparison& c) {
  double peak = 0;
  for (int64_t i = 0; i < n; ++i) {
    peak = std::max(peak, std::fabs(static_cast<double>(want[i])));
    const double g = static_cast<double>(got[i]), w = static_cast<double>(want[i]);
    const double diff = std::fabs(g - w);
    if (std::isnan(g) != std::isnan(w)) {
      c.ok = false;
      c.problem = "NaN where the expected output has a number, or the reverse";
    } else if (!std::isnan(w) && !(diff <= atol + rtol * std::fabs(w))) {
      c.ok = false;
    }
    if (!std::isnan(diff)) {
      c.max_abs_error = std::max(c.max_abs_error, diff);
      c.max_rel_error = std::max(c.max_rel_error, rtol > 0 ? diff / std::max(std::fabs(w), atol / rtol) : diff);
    }
  }
  c.peak_rel_error = peak > 0 ? c.max_abs_error / peak : c.max_abs_error;
}

Comparison compare_tensors(const Tensor& got, const Tensor& want, double rtol, double atol) {
  Comparison c;
  if (got.dtype() != want.dtype() || got.shape() != want.shape()) {
    c.ok = false;
    c.problem = "expected " + want.type().to_string() + ", got " + got.type().to_string();
    return c;
  }
  switch (got.dtype()) {
    case DType::f32: compare_values(got.data_as<float>(), want.data_as<float>(), got.elements(), rtol, atol, c); break;
    case DType::f64: compare_values(got.data_as<double>(), want.data_as<double>(), got.elements(), rtol, atol, c); break;
    case DType::i64: compare_values(got.data_as<int64_t>(), want.data_as<int64_t>(), got.elements(), 0, 0, c); break;
    case DType::i32: compare_values(got.data_as<int32_t>(), want.data_as<int32_t>(), got.elements(), 0, 0, c); break;
    default:
      if (got.bytes() && std::memcmp(got.data(), want.data(), got.bytes()) != 0) c.ok = false;
  }
  if (!c.ok && c.problem.empty()) c.problem = "values differ";
  return c;
}

}  // namespace nee
