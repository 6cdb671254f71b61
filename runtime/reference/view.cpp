#include <algorithm>

#include "runtime/reference/reference_ops.h"

namespace nee {

// Reshape, Flatten, Identity, Squeeze and Unsqueeze change only the shape, so the output
// shares the input's storage instead of copying it.
ReferenceFn make_reference_view(const Graph& graph, const Node& node) {
  const std::vector<int64_t> shape = graph.type_of(node.outputs[0]).shape;
  return [shape](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    *out[0] = in[0]->reshaped(shape);
  };
}

// Dropout at inference: output 0 shares the input's storage; the optional mask is all
// true (ones in the input's dtype before opset 10, whose mask has the data's type).
ReferenceFn make_reference_dropout(const Graph& graph, const Node& node) {
  const bool float_mask = node.outputs.size() == 2 && !node.outputs[1].empty() &&
                          graph.type_of(node.outputs[1]).dtype == DType::f32;
  return [float_mask](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    *out[0] = *in[0];
    if (out.size() < 2 || !out[1]) return;
    if (float_mask) {
      std::fill(out[1]->data_as<float>(), out[1]->data_as<float>() + out[1]->elements(), 1.0f);
    } else {
      std::fill(out[1]->data_as<uint8_t>(), out[1]->data_as<uint8_t>() + out[1]->elements(), uint8_t{1});
    }
  };
}

}  // namespace nee
