#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "runtime/reference/math_dtype_dispatch.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

// Float to integer truncates toward zero. The spec leaves values outside the target's
// range undefined; here they saturate and NaN becomes 0, so the result is never C++
// undefined behavior. Anything to bool is x != 0; integer narrowing wraps.
template <typename To, typename From>
To convert(From x) {
  if constexpr (std::is_same_v<To, bool>) {
    return x != From{0};
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    if (std::isnan(x)) return To{0};
    const double t = std::trunc(static_cast<double>(x));
    if (t <= static_cast<double>(std::numeric_limits<To>::lowest())) return std::numeric_limits<To>::lowest();
    if (t >= static_cast<double>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    return static_cast<To>(t);
  } else {
    return static_cast<To>(x);
  }
}

}  // namespace

// Cast and CastLike: the output's dtype is the target. f16 and bf16 convert through f32
// (f64 to f16 rounds once, directly), every other pair directly.
ReferenceFn make_reference_cast(const Graph& graph, const Node& node) {
  const DType from = graph.type_of(node.inputs[0]).dtype, to = graph.type_of(node.outputs[0]).dtype;
  const bool half_from = from == DType::f16 || from == DType::bf16, half_to = to == DType::f16 || to == DType::bf16;
  if (half_from || half_to) {
    return [from, to](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      const int64_t n = out[0]->elements();
      std::vector<float> wide(static_cast<size_t>(n));
      if (from == DType::f16 || from == DType::bf16) {
        const uint16_t* x = in[0]->data_as<uint16_t>();
        for (int64_t i = 0; i < n; ++i) wide[i] = from == DType::f16 ? f16_to_f32(x[i]) : bf16_to_f32(x[i]);
      } else if (from == DType::f64 && to == DType::f16) {
        const double* x = in[0]->data_as<double>();
        uint16_t* y = out[0]->data_as<uint16_t>();
        for (int64_t i = 0; i < n; ++i) y[i] = f64_to_f16(x[i]);
        return;
      } else {
        visit_dtype(from, [&](auto tag) {
          const auto* x = in[0]->data_as<decltype(tag)>();
          for (int64_t i = 0; i < n; ++i) wide[i] = convert<float>(x[i]);
        });
      }
      if (to == DType::f16 || to == DType::bf16) {
        uint16_t* y = out[0]->data_as<uint16_t>();
        for (int64_t i = 0; i < n; ++i) y[i] = to == DType::f16 ? f32_to_f16(wide[i]) : f32_to_bf16(wide[i]);
      } else {
        visit_dtype(to, [&](auto tag) {
          auto* y = out[0]->data_as<decltype(tag)>();
          for (int64_t i = 0; i < n; ++i) y[i] = convert<decltype(tag)>(wide[i]);
        });
      }
    };
  }
  return visit_dtype(from, [to](auto from_tag) -> ReferenceFn {
    using From = decltype(from_tag);
    return visit_dtype(to, [](auto to_tag) -> ReferenceFn {
      using To = decltype(to_tag);
      return [](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
        const From* x = in[0]->data_as<From>();
        To* y = out[0]->data_as<To>();
        for (int64_t i = 0, n = out[0]->elements(); i < n; ++i) y[i] = convert<To>(x[i]);
      };
    });
  });
}

}  // namespace nee
