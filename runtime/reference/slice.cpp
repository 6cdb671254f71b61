#include "runtime/reference/reference_ops.h"
#include "runtime/reference/strided_copy.h"

namespace nee {

// Reads the importer-resolved per-dim `starts` and `steps`; any dtype, copied as bytes.
ReferenceFn make_reference_slice(const Graph& graph, const Node& node) {
  const std::vector<int64_t> in_strides = dense_strides(graph.type_of(node.inputs[0]).shape);
  const std::vector<int64_t> out_shape = graph.type_of(node.outputs[0]).shape;
  const std::vector<int64_t> starts = node.attrs.get_ints("starts"), steps = node.attrs.get_ints("steps");
  int64_t offset = 0;
  std::vector<int64_t> strides(out_shape.size());
  for (size_t d = 0; d < out_shape.size(); ++d) {
    offset += starts[d] * in_strides[d];
    strides[d] = steps[d] * in_strides[d];
  }
  return [out_shape, strides, offset](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    strided_copy(static_cast<const uint8_t*>(in[0]->data()), static_cast<uint8_t*>(out[0]->data()),
                 dtype_size(in[0]->dtype()), out_shape, strides, offset);
  };
}

}  // namespace nee
