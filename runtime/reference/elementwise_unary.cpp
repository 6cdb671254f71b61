#include <cmath>

#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

template <typename T, typename Op>
ReferenceFn unary_kernel(Op op) {
  return [op](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const T* x = in[0]->data_as<T>();
    T* y = out[0]->data_as<T>();
    for (int64_t i = 0, n = out[0]->elements(); i < n; ++i) y[i] = op(x[i]);
  };
}

}  // namespace

ReferenceFn make_reference_relu(const Graph& graph, const Node& node) {
  switch (graph.type_of(node.inputs[0]).dtype) {
    case DType::f32: return unary_kernel<float>([](float x) { return x > 0.0f ? x : 0.0f; });
    case DType::i64: return unary_kernel<int64_t>([](int64_t x) { return x > 0 ? x : int64_t{0}; });
    case DType::i32: return unary_kernel<int32_t>([](int32_t x) { return x > 0 ? x : 0; });
    default: return nullptr;
  }
}

ReferenceFn make_reference_sigmoid(const Graph& graph, const Node& node) {
  if (graph.type_of(node.inputs[0]).dtype != DType::f32) return nullptr;
  return unary_kernel<float>([](float x) { return 1.0f / (1.0f + std::exp(-x)); });
}

ReferenceFn make_reference_tanh(const Graph& graph, const Node& node) {
  if (graph.type_of(node.inputs[0]).dtype != DType::f32) return nullptr;
  return unary_kernel<float>([](float x) { return std::tanh(x); });
}

}  // namespace nee
