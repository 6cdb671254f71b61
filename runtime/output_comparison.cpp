#include "runtime/output_comparison.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "core/half_float.h"

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
    } else if (!std::isnan(w) && g != w && !(diff <= atol + rtol * std::fabs(w))) {  // g == w: equal infinities too
      c.ok = false;
    }
    if (!std::isnan(diff)) {
      c.max_abs_error = std::max(c.max_abs_error, diff);
      c.max_rel_error = std::max(c.max_rel_error, rtol > 0 ? diff / std::max(std::fabs(w), atol / rtol) : diff);
    }
  }
  c.peak_rel_error = peak > 0 ? c.max_abs_error / peak : c.max_abs_error;
}

// f16 and bf16 compare as the f32 values they hold.
static void compare_half(const Tensor& got, const Tensor& want, float (*widen)(uint16_t), double rtol, double atol,
                         Comparison& c) {
  std::vector<float> g(static_cast<size_t>(got.elements())), w(g.size());
  for (size_t i = 0; i < g.size(); ++i) {
    g[i] = widen(got.data_as<uint16_t>()[i]);
    w[i] = widen(want.data_as<uint16_t>()[i]);
  }
  compare_values(g.data(), w.data(), got.elements(), rtol, atol, c);
}

// Strings match exactly or not at all; the problem names the first that differs.
static void compare_strings(const Tensor& got, const Tensor& want, Comparison& c) {
  const std::string* g = got.data_as<std::string>();
  const std::string* w = want.data_as<std::string>();
  for (int64_t i = 0; i < got.elements(); ++i) {
    if (g[i] != w[i]) {
      c.ok = false;
      c.problem = fmt::format("element {} is \"{}\", expected \"{}\"", i, g[i], w[i]);
      return;
    }
  }
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
    case DType::f16: compare_half(got, want, f16_to_f32, rtol, atol, c); break;
    case DType::bf16: compare_half(got, want, bf16_to_f32, rtol, atol, c); break;
    case DType::string: compare_strings(got, want, c); break;
    default:
      if (got.bytes() && std::memcmp(got.data(), want.data(), got.bytes()) != 0) c.ok = false;
  }
  if (!c.ok && c.problem.empty()) c.problem = "values differ";
  return c;
}

}  // namespace nee
