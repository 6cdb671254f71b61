#include <cmath>
#include <functional>
#include <type_traits>

#include "core/error.h"
#include "runtime/reference/broadcast.h"
#include "runtime/reference/math_dtype_dispatch.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

template <typename T, typename E, typename Op>
ReferenceFn binary_kernel(Op op) {
  return [op](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const T* a = in[0]->data_as<T>();
    const E* b = in[1]->data_as<E>();
    T* o = out[0]->data_as<T>();
    for_each_broadcast(out[0]->shape(), in[0]->shape(), in[1]->shape(),
                       [&](int64_t i, int64_t ia, int64_t ib) { o[i] = static_cast<T>(op(a[ia], b[ib])); });
  };
}

// Arithmetic on every numeric dtype; bool stays unbound. Integer results wrap.
template <template <typename> class Op>
ReferenceFn make_binary(const Graph& graph, const Node& node) {
  return visit_dtype(graph.type_of(node.inputs[0]).dtype, [](auto tag) -> ReferenceFn {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      return nullptr;
    } else {
      return binary_kernel<T, T>(Op<T>{});
    }
  });
}

template <typename T> struct Divides {
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (b == 0) throw Error("integer division by zero in Div");
    }
    return static_cast<T>(a / b);
  }
};

// NaN in any operand gives NaN, as in numpy's minimum and maximum.
template <typename T> struct Minimum {
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(b)) return b;
    }
    return b < a ? b : a;
  }
};
template <typename T> struct Maximum {
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(b)) return b;
    }
    return b > a ? b : a;
  }
};

// Out = op(...op(op(in0, in1), in2)..., inK), every input broadcast to the output.
template <typename T, typename Op>
ReferenceFn variadic_kernel(Op op) {
  return [op](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    T* o = out[0]->data_as<T>();
    const std::vector<int64_t>& shape = out[0]->shape();
    const T* first = in[0]->data_as<T>();
    for_each_broadcast(shape, shape, in[0]->shape(), [&](int64_t i, int64_t, int64_t ia) { o[i] = first[ia]; });
    for (size_t k = 1; k < in.size(); ++k) {
      const T* x = in[k]->data_as<T>();
      for_each_broadcast(shape, shape, in[k]->shape(), [&](int64_t i, int64_t, int64_t ix) { o[i] = op(o[i], x[ix]); });
    }
  };
}

template <template <typename> class Op>
ReferenceFn make_variadic(const Graph& graph, const Node& node) {
  return visit_dtype(graph.type_of(node.inputs[0]).dtype, [](auto tag) -> ReferenceFn {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      return nullptr;
    } else {
      return variadic_kernel<T>(Op<T>{});
    }
  });
}

// Computed in double and converted to the base's dtype, so integer powers are exact
// while they fit in 53 bits.
struct Power {
  template <typename T, typename E> double operator()(T base, E exponent) const {
    return std::pow(static_cast<double>(base), static_cast<double>(exponent));
  }
};

}  // namespace

ReferenceFn make_reference_add(const Graph& g, const Node& n) { return make_binary<std::plus>(g, n); }
ReferenceFn make_reference_sub(const Graph& g, const Node& n) { return make_binary<std::minus>(g, n); }
ReferenceFn make_reference_mul(const Graph& g, const Node& n) { return make_binary<std::multiplies>(g, n); }
ReferenceFn make_reference_div(const Graph& g, const Node& n) { return make_binary<Divides>(g, n); }
ReferenceFn make_reference_min(const Graph& g, const Node& n) { return make_variadic<Minimum>(g, n); }
ReferenceFn make_reference_max(const Graph& g, const Node& n) { return make_variadic<Maximum>(g, n); }
ReferenceFn make_reference_sum(const Graph& g, const Node& n) { return make_variadic<std::plus>(g, n); }

ReferenceFn make_reference_pow(const Graph& graph, const Node& node) {
  const DType exponent_dtype = graph.type_of(node.inputs[1]).dtype;
  return visit_dtype(graph.type_of(node.inputs[0]).dtype, [exponent_dtype](auto base_tag) -> ReferenceFn {
    using T = decltype(base_tag);
    return visit_dtype(exponent_dtype, [](auto exponent_tag) -> ReferenceFn {
      using E = decltype(exponent_tag);
      if constexpr (std::is_same_v<T, bool> || std::is_same_v<E, bool>) {
        return nullptr;
      } else {
        return binary_kernel<T, E>(Power{});
      }
    });
  });
}

}  // namespace nee
