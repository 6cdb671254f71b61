#include <cstring>

#include "runtime/reference/reference_ops.h"

namespace nee {

// Permutes dims by the importer-normalized `perm`; works on any dtype by copying bytes.
ReferenceFn make_reference_transpose(const Graph& graph, const Node& node) {
  const std::vector<int64_t> in_shape = graph.type_of(node.inputs[0]).shape;
  const std::vector<int64_t> perm = node.attrs.get_ints("perm");
  const size_t rank = in_shape.size();
  std::vector<int64_t> in_strides(rank, 1);
  for (size_t d = rank; d-- > 1;) in_strides[d - 1] = in_strides[d] * in_shape[d];
  std::vector<int64_t> out_shape(rank), strides_by_out_dim(rank);
  for (size_t d = 0; d < rank; ++d) {
    out_shape[d] = in_shape[perm[d]];
    strides_by_out_dim[d] = in_strides[perm[d]];
  }
  return [out_shape, strides_by_out_dim, rank](const std::vector<const Tensor*>& in,
                                               const std::vector<Tensor*>& out) {
    const size_t size = dtype_size(in[0]->dtype());
    const auto* src = static_cast<const uint8_t*>(in[0]->data());
    auto* dst = static_cast<uint8_t*>(out[0]->data());
    std::vector<int64_t> index(rank, 0);
    int64_t source = 0;
    for (int64_t o = 0, n = out[0]->elements(); o < n; ++o) {
      std::memcpy(dst + o * size, src + source * size, size);
      for (size_t d = rank; d-- > 0;) {
        if (++index[d] < out_shape[d]) {
          source += strides_by_out_dim[d];
          break;
        }
        source -= strides_by_out_dim[d] * (out_shape[d] - 1);
        index[d] = 0;
      }
    }
  };
}

}  // namespace nee
