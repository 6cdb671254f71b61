#include <cstring>

#include "runtime/reference/reference_ops.h"

namespace nee {

// Shape writes dims [start, end) of the input's static shape; it never reads the data
// (constant folding runs it with the input absent).
ReferenceFn make_reference_shape(const Graph& graph, const Node& node) {
  const std::vector<int64_t> shape = graph.type_of(node.inputs[0]).shape;
  const std::vector<int64_t> dims(shape.begin() + node.attrs.get_int("start"), shape.begin() + node.attrs.get_int("end"));
  return [dims](const std::vector<const Tensor*>&, const std::vector<Tensor*>& out) {
    std::copy(dims.begin(), dims.end(), out[0]->data_as<int64_t>());
  };
}

ReferenceFn make_reference_size(const Graph& graph, const Node& node) {
  const int64_t elements = graph.type_of(node.inputs[0]).elements();
  return [elements](const std::vector<const Tensor*>&, const std::vector<Tensor*>& out) {
    *out[0]->data_as<int64_t>() = elements;
  };
}

// Fills the output with the one-element `value` tensor.
ReferenceFn make_reference_constant_of_shape(const Graph&, const Node& node) {
  const Tensor value = node.attrs.get_tensor("value");
  return [value](const std::vector<const Tensor*>&, const std::vector<Tensor*>& out) {
    const size_t size = dtype_size(value.dtype());
    auto* dst = static_cast<uint8_t*>(out[0]->data());
    for (int64_t i = 0; i < out[0]->elements(); ++i) std::memcpy(dst + i * size, value.data(), size);
  };
}

namespace {

template <typename T>
void fill_range(const std::vector<const Tensor*>& in, Tensor& out) {
  const T start = *in[0]->data_as<T>(), delta = *in[2]->data_as<T>();
  T* dst = out.data_as<T>();
  for (int64_t i = 0; i < out.elements(); ++i) dst[i] = static_cast<T>(start + static_cast<T>(i) * delta);
}

}  // namespace

// Range: start + i * delta for each of the output's elements (count set at import).
ReferenceFn make_reference_range(const Graph& graph, const Node& node) {
  const DType dtype = graph.type_of(node.outputs[0]).dtype;
  return [dtype](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    switch (dtype) {
      case DType::f32: fill_range<float>(in, *out[0]); break;
      case DType::i64: fill_range<int64_t>(in, *out[0]); break;
      default: fill_range<int32_t>(in, *out[0]); break;
    }
  };
}

}  // namespace nee
