#include <type_traits>

#include "runtime/reference/broadcast.h"
#include "runtime/reference/math_dtype_dispatch.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

// out = op(a, b) as bool, a and b of type T, broadcast.
template <typename T, typename Op>
ReferenceFn predicate_kernel(Op op) {
  return [op](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const T* a = in[0]->data_as<T>();
    const T* b = in[1]->data_as<T>();
    bool* o = out[0]->data_as<bool>();
    for_each_broadcast(out[0]->shape(), in[0]->shape(), in[1]->shape(),
                       [&](int64_t i, int64_t ia, int64_t ib) { o[i] = op(a[ia], b[ib]); });
  };
}

template <typename Op>
ReferenceFn make_comparison(const Graph& graph, const Node& node, Op op) {
  return visit_dtype(graph.type_of(node.inputs[0]).dtype,
                     [op](auto tag) -> ReferenceFn { return predicate_kernel<decltype(tag)>(op); });
}

}  // namespace

ReferenceFn make_reference_equal(const Graph& g, const Node& n) {
  return make_comparison(g, n, [](auto a, auto b) { return a == b; });
}
ReferenceFn make_reference_less(const Graph& g, const Node& n) {
  return make_comparison(g, n, [](auto a, auto b) { return a < b; });
}
ReferenceFn make_reference_less_or_equal(const Graph& g, const Node& n) {
  return make_comparison(g, n, [](auto a, auto b) { return a <= b; });
}
ReferenceFn make_reference_greater(const Graph& g, const Node& n) {
  return make_comparison(g, n, [](auto a, auto b) { return a > b; });
}
ReferenceFn make_reference_greater_or_equal(const Graph& g, const Node& n) {
  return make_comparison(g, n, [](auto a, auto b) { return a >= b; });
}

namespace {

// The bitwise operators on an integer type of T's width: signed and unsigned types share
// the unsigned one's kernel, as the bits are the same (libnee's size is bounded).
template <typename T>
ReferenceFn bitwise_kernel(const std::string& op) {
  if (op == "BitwiseNot") {
    return [](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      const T* x = static_cast<const T*>(in[0]->data());
      T* y = static_cast<T*>(out[0]->data());
      for (int64_t i = 0, n = out[0]->elements(); i < n; ++i) y[i] = static_cast<T>(~x[i]);
    };
  }
  const int which = op == "BitwiseAnd" ? 0 : op == "BitwiseOr" ? 1 : 2;
  return [which](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const T* a = static_cast<const T*>(in[0]->data());
    const T* b = static_cast<const T*>(in[1]->data());
    T* o = static_cast<T*>(out[0]->data());
    for_each_broadcast(out[0]->shape(), in[0]->shape(), in[1]->shape(), [&](int64_t i, int64_t ia, int64_t ib) {
      o[i] = static_cast<T>(which == 0 ? (a[ia] & b[ib]) : which == 1 ? (a[ia] | b[ib]) : (a[ia] ^ b[ib]));
    });
  };
}

}  // namespace

// The bitwise operators on the integer types (the importer admits no others).
ReferenceFn make_reference_bitwise(const Graph& graph, const Node& node) {
  switch (dtype_size(graph.type_of(node.inputs[0]).dtype)) {
    case 1: return bitwise_kernel<uint8_t>(node.op);
    case 2: return bitwise_kernel<uint16_t>(node.op);
    case 4: return bitwise_kernel<uint32_t>(node.op);
    default: return bitwise_kernel<uint64_t>(node.op);
  }
}

ReferenceFn make_reference_and(const Graph&, const Node&) {
  return predicate_kernel<bool>([](bool a, bool b) { return a && b; });
}
ReferenceFn make_reference_or(const Graph&, const Node&) {
  return predicate_kernel<bool>([](bool a, bool b) { return a || b; });
}
ReferenceFn make_reference_xor(const Graph&, const Node&) {
  return predicate_kernel<bool>([](bool a, bool b) { return a != b; });
}

ReferenceFn make_reference_not(const Graph&, const Node&) {
  return [](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const bool* x = in[0]->data_as<bool>();
    bool* y = out[0]->data_as<bool>();
    for (int64_t i = 0, n = out[0]->elements(); i < n; ++i) y[i] = !x[i];
  };
}

ReferenceFn make_reference_where(const Graph& graph, const Node& node) {
  return visit_dtype(graph.type_of(node.inputs[1]).dtype, [](auto tag) -> ReferenceFn {
    using T = decltype(tag);
    return [](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
      const bool* condition = in[0]->data_as<bool>();
      const T* x = in[1]->data_as<T>();
      const T* y = in[2]->data_as<T>();
      T* o = out[0]->data_as<T>();
      for_each_broadcast_n(out[0]->shape(), {in[0]->shape(), in[1]->shape(), in[2]->shape()},
                           [&](int64_t i, const std::vector<int64_t>& at) {
                             o[i] = condition[at[0]] ? x[at[1]] : y[at[2]];
                           });
    };
  });
}

}  // namespace nee
