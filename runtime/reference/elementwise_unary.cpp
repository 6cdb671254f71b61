#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "runtime/reference/math_dtype_dispatch.h"
#include "runtime/reference/reference_ops.h"
#include "runtime/reference/unary_kernel.h"

namespace nee {

ReferenceFn make_reference_relu(const Graph& graph, const Node& node) {
  return numeric_unary(graph, node, [](auto tag) {
    using T = decltype(tag);
    return [](T x) { return x > T{0} ? x : T{0}; };
  });
}

ReferenceFn make_reference_neg(const Graph& graph, const Node& node) {
  return numeric_unary(graph, node, [](auto tag) {
    using T = decltype(tag);
    return [](T x) { return static_cast<T>(-x); };
  });
}

ReferenceFn make_reference_abs(const Graph& graph, const Node& node) {
  return numeric_unary(graph, node, [](auto tag) {
    using T = decltype(tag);
    return [](T x) { return x < T{0} ? static_cast<T>(-x) : x; };
  });
}

ReferenceFn make_reference_sign(const Graph& graph, const Node& node) {
  return numeric_unary(graph, node, [](auto tag) {
    using T = decltype(tag);
    return [](T x) { return static_cast<T>((T{0} < x) - (x < T{0})); };
  });
}

// Shrink: x + bias below -lambd, x - bias above lambd, 0 between (the importer stores
// both); computed in float and converted back, as the integer dtypes take it.
ReferenceFn make_reference_shrink(const Graph& graph, const Node& node) {
  const float lambd = node.attrs.get_float("lambd"), bias = node.attrs.get_float("bias");
  return numeric_unary(graph, node, [lambd, bias](auto) {
    return [lambd, bias](auto x) {
      const float v = static_cast<float>(x);
      return v < -lambd ? v + bias : v > lambd ? v - bias : 0.0f;
    };
  });
}

ReferenceFn make_reference_sigmoid(const Graph& graph, const Node& node) {
  return float_unary(graph, node, [](float x) { return 1.0f / (1.0f + std::exp(-x)); });
}

ReferenceFn make_reference_tanh(const Graph& graph, const Node& node) {
  return float_unary(graph, node, [](float x) { return std::tanh(x); });
}

ReferenceFn make_reference_sqrt(const Graph& graph, const Node& node) {
  return float_unary(graph, node, [](float x) { return std::sqrt(x); });
}

ReferenceFn make_reference_exp(const Graph& graph, const Node& node) {
  return float_unary(graph, node, [](float x) { return std::exp(x); });
}

ReferenceFn make_reference_log(const Graph& graph, const Node& node) {
  return float_unary(graph, node, [](float x) { return std::log(x); });
}

ReferenceFn make_reference_erf(const Graph& graph, const Node& node) {
  return float_unary(graph, node, [](float x) { return std::erf(x); });
}

ReferenceFn make_reference_reciprocal(const Graph& graph, const Node& node) {
  return float_unary(graph, node, [](float x) { return 1.0f / x; });
}

ReferenceFn make_reference_leaky_relu(const Graph& graph, const Node& node) {
  const float alpha = node.attrs.get_float("alpha");
  return float_unary(graph, node, [alpha](float x) { return x >= 0.0f ? x : alpha * x; });
}

ReferenceFn make_reference_hard_sigmoid(const Graph& graph, const Node& node) {
  const float alpha = node.attrs.get_float("alpha"), beta = node.attrs.get_float("beta");
  return float_unary(graph, node,
                     [alpha, beta](float x) { return std::max(0.0f, std::min(1.0f, alpha * x + beta)); });
}

// HardSwish is x * HardSigmoid(x) with alpha 1/6 and beta 0.5.
ReferenceFn make_reference_hard_swish(const Graph& graph, const Node& node) {
  return float_unary(graph, node,
                     [](float x) { return x * std::max(0.0f, std::min(1.0f, x / 6.0f + 0.5f)); });
}

// Bounds come from the optional inputs 1 and 2 (opset 11 on) or the attributes the
// importer filled (before 11); without either there is no bound on that side.
ReferenceFn make_reference_clip(const Graph& graph, const Node& node) {
  const bool has_min_attr = node.attrs.has("min"), has_max_attr = node.attrs.has("max");
  const float min_attr = node.attrs.get_float("min", 0.0f), max_attr = node.attrs.get_float("max", 0.0f);
  return visit_dtype(graph.type_of(node.inputs[0]).dtype, [=](auto tag) -> ReferenceFn {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      return nullptr;
    } else {
      return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
        T lo = std::numeric_limits<T>::lowest(), hi = std::numeric_limits<T>::max();
        if (in.size() > 1 && in[1]) {
          lo = *in[1]->data_as<T>();
        } else if (has_min_attr) {
          lo = static_cast<T>(min_attr);
        }
        if (in.size() > 2 && in[2]) {
          hi = *in[2]->data_as<T>();
        } else if (has_max_attr) {
          hi = static_cast<T>(max_attr);
        }
        const T* x = in[0]->data_as<T>();
        T* y = out[0]->data_as<T>();
        // min > max gives max everywhere, as numpy.clip does; NaN stays NaN.
        for (int64_t i = 0, n = out[0]->elements(); i < n; ++i) y[i] = std::min(std::max(x[i], lo), hi);
      };
    }
  });
}

}  // namespace nee
