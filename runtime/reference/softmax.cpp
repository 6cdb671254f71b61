#include <algorithm>
#include <cmath>

#include "runtime/reference/reference_ops.h"

namespace nee {

// Softmax along one axis (opset 13 semantics; the importer stores a non-negative axis),
// shifted by the maximum for stability.
ReferenceFn make_reference_softmax(const Graph& graph, const Node& node) {
  const TensorType& type = graph.type_of(node.inputs[0]);
  if (type.dtype != DType::f32) return nullptr;
  const size_t axis = static_cast<size_t>(node.attrs.get_int("axis"));
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < axis; ++d) outer *= type.shape[d];
  for (size_t d = axis + 1; d < type.shape.size(); ++d) inner *= type.shape[d];
  const int64_t n = type.shape[axis];
  return [outer, inner, n](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const float* x = in[0]->data_as<float>();
    float* y = out[0]->data_as<float>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t base = o * n * inner + i;
        float max = x[base];
        for (int64_t j = 1; j < n; ++j) max = std::max(max, x[base + j * inner]);
        float sum = 0.0f;
        for (int64_t j = 0; j < n; ++j) {
          y[base + j * inner] = std::exp(x[base + j * inner] - max);
          sum += y[base + j * inner];
        }
        for (int64_t j = 0; j < n; ++j) y[base + j * inner] /= sum;
      }
    }
  };
}

}  // namespace nee
