#include <cstring>

#include "runtime/reference/reference_ops.h"

namespace nee {

// Cuts the input along the importer-normalized `axis` into parts of `split` sizes; any
// dtype, copied as bytes. Omitted outputs are skipped.
ReferenceFn make_reference_split(const Graph& graph, const Node& node) {
  const std::vector<int64_t> shape = graph.type_of(node.inputs[0]).shape;
  const size_t axis = static_cast<size_t>(node.attrs.get_int("axis"));
  const std::vector<int64_t> split = node.attrs.get_ints("split");
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  const int64_t axis_dim = shape[axis];
  return [outer, inner, axis_dim, split](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const size_t size = dtype_size(in[0]->dtype());
    const auto* src = static_cast<const uint8_t*>(in[0]->data());
    for (int64_t o = 0; o < outer; ++o) {
      int64_t begin = 0;
      for (size_t p = 0; p < split.size(); ++p) {
        const size_t chunk = static_cast<size_t>(split[p] * inner) * size;
        if (out[p] && chunk) {
          std::memcpy(static_cast<uint8_t*>(out[p]->data()) + o * chunk, src + (o * axis_dim + begin) * inner * size,
                      chunk);
        }
        begin += split[p];
      }
    }
  };
}

}  // namespace nee
