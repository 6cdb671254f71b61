#include <fmt/format.h>

#include "core/error.h"
#include "runtime/reference/broadcast.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

template <typename T, typename Op>
ReferenceFn binary_kernel(Op op) {
  return [op](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const T* a = in[0]->data_as<T>();
    const T* b = in[1]->data_as<T>();
    T* o = out[0]->data_as<T>();
    for_each_broadcast(out[0]->shape(), in[0]->shape(), in[1]->shape(),
                       [&](int64_t i, int64_t ia, int64_t ib) { o[i] = op(a[ia], b[ib]); });
  };
}

// Arithmetic on f32, i64 and i32; other dtypes stay unbound.
template <template <typename> class Op>
ReferenceFn make_binary(const Graph& graph, const Node& node) {
  switch (graph.type_of(node.inputs[0]).dtype) {
    case DType::f32: return binary_kernel<float>(Op<float>{});
    case DType::i64: return binary_kernel<int64_t>(Op<int64_t>{});
    case DType::i32: return binary_kernel<int32_t>(Op<int32_t>{});
    default: return nullptr;
  }
}

template <typename T> struct Divides {
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (b == 0) throw Error("integer division by zero in Div");
    }
    return a / b;
  }
};

}  // namespace

ReferenceFn make_reference_add(const Graph& g, const Node& n) { return make_binary<std::plus>(g, n); }
ReferenceFn make_reference_sub(const Graph& g, const Node& n) { return make_binary<std::minus>(g, n); }
ReferenceFn make_reference_mul(const Graph& g, const Node& n) { return make_binary<std::multiplies>(g, n); }
ReferenceFn make_reference_div(const Graph& g, const Node& n) { return make_binary<Divides>(g, n); }

}  // namespace nee
