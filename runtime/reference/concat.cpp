#include <cstring>

#include "runtime/reference/reference_ops.h"

namespace nee {

// Concatenates along the importer-normalized `axis`; any dtype, copied as bytes. An input
// whose producer wrote it in place (the memory plan's copy-free concatenation) is not
// copied onto itself.
ReferenceFn make_reference_concat(const Graph& graph, const Node& node) {
  const size_t axis = static_cast<size_t>(node.attrs.get_int("axis"));
  const std::vector<int64_t> out_shape = graph.type_of(node.outputs[0]).shape;
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= out_shape[d];
  for (size_t d = axis + 1; d < out_shape.size(); ++d) inner *= out_shape[d];
  return [outer, inner, axis](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const size_t size = dtype_size(out[0]->dtype());
    auto* dst = static_cast<uint8_t*>(out[0]->data());
    for (int64_t o = 0; o < outer; ++o) {
      for (const Tensor* t : in) {
        const size_t chunk = static_cast<size_t>(t->shape()[axis] * inner) * size;
        const uint8_t* src = static_cast<const uint8_t*>(t->data()) + o * chunk;
        if (src != dst) std::memcpy(dst, src, chunk);
        dst += chunk;
      }
    }
  };
}

}  // namespace nee
