#include <algorithm>
#include <cmath>
#include <vector>

#include "runtime/reference/reference_ops.h"

namespace nee {

// Inference-mode BatchNormalization folded per parameter into y = x * a + b with
// a = scale / sqrt(var + epsilon) and b = B - mean * a. The parameters hold one value
// per channel, or (opset 7, spatial=0) one per element of a sample. A training_mode=1
// node normalizes by batch statistics instead (batch_norm_training.cpp).
ReferenceFn make_reference_batch_norm(const Graph& graph, const Node& node) {
  if (node.attrs.get_int("training_mode", 0) == 1) return make_reference_batch_norm_training(graph, node);
  const TensorType& x = graph.type_of(node.inputs[0]);
  if (x.dtype != DType::f32) return nullptr;
  const int64_t batch = x.shape[0];
  const int64_t params = graph.type_of(node.inputs[1]).elements();
  const int64_t sample = x.elements() / std::max<int64_t>(batch, 1);
  const int64_t repeat = sample / params;  // elements that share one parameter value
  const float epsilon = node.attrs.get_float("epsilon");
  return [batch, params, repeat, epsilon](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const float* scale = in[1]->data_as<float>();
    const float* bias = in[2]->data_as<float>();
    const float* mean = in[3]->data_as<float>();
    const float* var = in[4]->data_as<float>();
    std::vector<float> a(params), b(params);
    for (int64_t i = 0; i < params; ++i) {
      a[i] = scale[i] / std::sqrt(var[i] + epsilon);
      b[i] = bias[i] - mean[i] * a[i];
    }
    const float* x = in[0]->data_as<float>();
    float* y = out[0]->data_as<float>();
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t i = 0; i < params; ++i) {
        for (int64_t r = 0; r < repeat; ++r, ++x, ++y) *y = *x * a[i] + b[i];
      }
    }
  };
}

}  // namespace nee
