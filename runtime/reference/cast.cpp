#include <cmath>
#include <limits>
#include <type_traits>

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

ReferenceFn make_reference_cast(const Graph& graph, const Node& node) {
  const DType to = graph.type_of(node.outputs[0]).dtype;
  return visit_dtype(graph.type_of(node.inputs[0]).dtype, [to](auto from_tag) -> ReferenceFn {
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
