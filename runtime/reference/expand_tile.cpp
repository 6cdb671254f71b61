#include "runtime/reference/broadcast.h"
#include "runtime/reference/reference_ops.h"
#include "runtime/reference/strided_copy.h"

namespace nee {

// Expand: a copy with stride 0 along broadcast dims; any dtype.
ReferenceFn make_reference_expand(const Graph& graph, const Node& node) {
  const std::vector<int64_t> out_shape = graph.type_of(node.outputs[0]).shape;
  const std::vector<int64_t> strides = broadcast_strides(graph.type_of(node.inputs[0]).shape, out_shape);
  return [out_shape, strides](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    strided_copy(static_cast<const uint8_t*>(in[0]->data()), static_cast<uint8_t*>(out[0]->data()),
                 dtype_size(in[0]->dtype()), out_shape, strides, 0);
  };
}

// Tile: the output, read as dims (repeat_0, dim_0, repeat_1, dim_1, ...), copies the
// input with stride 0 along each repeat dim.
ReferenceFn make_reference_tile(const Graph& graph, const Node& node) {
  const std::vector<int64_t> in_shape = graph.type_of(node.inputs[0]).shape;
  const std::vector<int64_t> out_shape = graph.type_of(node.outputs[0]).shape;
  const std::vector<int64_t> in_strides = dense_strides(in_shape);
  std::vector<int64_t> shape, strides;
  for (size_t d = 0; d < in_shape.size(); ++d) {
    shape.push_back(in_shape[d] == 0 ? 0 : out_shape[d] / in_shape[d]);
    strides.push_back(0);
    shape.push_back(in_shape[d]);
    strides.push_back(in_strides[d]);
  }
  return [shape, strides](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    strided_copy(static_cast<const uint8_t*>(in[0]->data()), static_cast<uint8_t*>(out[0]->data()),
                 dtype_size(in[0]->dtype()), shape, strides, 0);
  };
}

}  // namespace nee
