#pragma once
#include <type_traits>

#include "runtime/reference/math_dtype_dispatch.h"
#include "runtime/reference/reference_kernel.h"

namespace nee {

// y[i] = op(x[i]) over a dense tensor of element type T.
template <typename T, typename Op>
ReferenceFn unary_kernel(Op op) {
  return [op](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const T* x = in[0]->data_as<T>();
    T* y = out[0]->data_as<T>();
    for (int64_t i = 0, n = out[0]->elements(); i < n; ++i) y[i] = static_cast<T>(op(x[i]));
  };
}

// A kernel for f32 inputs only; other dtypes stay unbound.
template <typename Op>
ReferenceFn float_unary(const Graph& graph, const Node& node, Op op) {
  if (graph.type_of(node.inputs[0]).dtype != DType::f32) return nullptr;
  return unary_kernel<float>(op);
}

// A kernel for every numeric dtype (not bool): make_op(T{}) gives the op for T.
template <typename MakeOp>
ReferenceFn numeric_unary(const Graph& graph, const Node& node, MakeOp make_op) {
  return visit_dtype(graph.type_of(node.inputs[0]).dtype, [&](auto tag) -> ReferenceFn {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      return nullptr;
    } else {
      return unary_kernel<T>(make_op(tag));
    }
  });
}

}  // namespace nee
