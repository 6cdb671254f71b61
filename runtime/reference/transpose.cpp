#include "runtime/reference/reference_ops.h"
#include "runtime/reference/strided_copy.h"

namespace nee {

// Permutes dims by the importer-normalized `perm`; works on any dtype by copying bytes.
ReferenceFn make_reference_transpose(const Graph& graph, const Node& node) {
  const std::vector<int64_t> in_shape = graph.type_of(node.inputs[0]).shape;
  const std::vector<int64_t> perm = node.attrs.get_ints("perm");
  const size_t rank = in_shape.size();
  const std::vector<int64_t> in_strides = dense_strides(in_shape);
  std::vector<int64_t> out_shape(rank), strides_by_out_dim(rank);
  for (size_t d = 0; d < rank; ++d) {
    out_shape[d] = in_shape[perm[d]];
    strides_by_out_dim[d] = in_strides[perm[d]];
  }
  return [out_shape, strides_by_out_dim](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    strided_copy(static_cast<const uint8_t*>(in[0]->data()), static_cast<uint8_t*>(out[0]->data()),
                 dtype_size(in[0]->dtype()), out_shape, strides_by_out_dim, 0);
  };
}

}  // namespace nee
