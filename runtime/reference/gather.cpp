#include <fmt/format.h>

#include <cstring>

#include "core/error.h"
#include "runtime/reference/index_tensor.h"
#include "runtime/reference/reference_ops.h"
#include "runtime/reference/strided_copy.h"

namespace nee {

namespace {

template <typename Index>
void gather(const Tensor& data, const Tensor& indices, Tensor& out, int64_t outer, int64_t axis_dim, int64_t inner) {
  const size_t chunk = static_cast<size_t>(inner) * dtype_size(data.dtype());
  const auto* src = static_cast<const uint8_t*>(data.data());
  auto* dst = static_cast<uint8_t*>(out.data());
  const Index* idx = indices.data_as<Index>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < indices.elements(); ++i) {
      int64_t k = static_cast<int64_t>(idx[i]);
      if (k < -axis_dim || k >= axis_dim) {
        throw Error(fmt::format("Gather index {} is out of range for an axis of {}", k, axis_dim));
      }
      if (k < 0) k += axis_dim;
      std::memcpy(dst, src + (o * axis_dim + k) * chunk, chunk);
      dst += chunk;
    }
  }
}

}  // namespace

// Gathers slices along the importer-normalized `axis`; any data dtype, int32 or int64
// indices, negative ones counting from the end.
ReferenceFn make_reference_gather(const Graph& graph, const Node& node) {
  const std::vector<int64_t> shape = graph.type_of(node.inputs[0]).shape;
  const size_t axis = static_cast<size_t>(node.attrs.get_int("axis"));
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  const int64_t axis_dim = shape[axis];
  return [outer, axis_dim, inner](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    if (in[1]->dtype() == DType::i64) {
      gather<int64_t>(*in[0], *in[1], *out[0], outer, axis_dim, inner);
    } else {
      gather<int32_t>(*in[0], *in[1], *out[0], outer, axis_dim, inner);
    }
  };
}

// GatherElements: out[i] = data[i with its `axis` coordinate replaced by indices[i]];
// negative indices count from the end, and one out of range is an error.
ReferenceFn make_reference_gather_elements(const Graph& graph, const Node& node) {
  const std::vector<int64_t> data_shape = graph.type_of(node.inputs[0]).shape;
  const std::vector<int64_t> out_shape = graph.type_of(node.outputs[0]).shape;
  const size_t axis = static_cast<size_t>(node.attrs.get_int("axis"));
  const std::vector<int64_t> data_strides = dense_strides(data_shape);
  const size_t size = dtype_size(graph.type_of(node.inputs[0]).dtype);
  return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const auto* src = static_cast<const uint8_t*>(in[0]->data());
    auto* dst = static_cast<uint8_t*>(out[0]->data());
    const int64_t axis_dim = data_shape[axis];
    for (int64_t e = 0, n = out[0]->elements(); e < n; ++e) {
      int64_t k = index_at(*in[1], e);
      if (k < -axis_dim || k >= axis_dim) {
        throw Error(fmt::format("GatherElements index {} is out of range for an axis of {}", k, axis_dim));
      }
      if (k < 0) k += axis_dim;
      int64_t rest = e, offset = 0;
      for (size_t d = out_shape.size(); d-- > 0;) {
        const int64_t coord = rest % out_shape[d];
        rest /= out_shape[d];
        offset += (d == axis ? k : coord) * data_strides[d];
      }
      std::memcpy(dst + e * size, src + offset * size, size);
    }
  };
}

}  // namespace nee
