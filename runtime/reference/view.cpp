#include "runtime/reference/reference_ops.h"

namespace nee {

// Reshape, Flatten and Identity change only the shape, so the output shares the input's
// storage instead of copying it.
ReferenceFn make_reference_view(const Graph& graph, const Node& node) {
  const std::vector<int64_t> shape = graph.type_of(node.outputs[0]).shape;
  return [shape](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    *out[0] = in[0]->reshaped(shape);
  };
}

}  // namespace nee
