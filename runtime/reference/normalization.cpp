#include <cmath>

#include "core/layernorm_workload.h"
#include "runtime/reference/broadcast.h"
#include "runtime/reference/family_reference.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

// Layer normalization of `outer` rows of `n` elements: mean and variance per row in f32,
// then Y = (X - mean) * InvStdDev, times Scale and plus B (in[2], optional), both
// broadcast to X. Mean and InvStdDev are written when asked.
static ReferenceFn layer_norm_kernel(int64_t outer, int64_t n, float epsilon) {
  return [outer, n, epsilon](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const float* x = in[0]->data_as<float>();
    float* y = out[0]->data_as<float>();
    float* mean_out = out.size() > 1 && out[1] ? out[1]->data_as<float>() : nullptr;
    float* inv_std_dev_out = out.size() > 2 && out[2] ? out[2]->data_as<float>() : nullptr;
    for (int64_t o = 0; o < outer; ++o) {
      const float* xs = x + o * n;
      float* ys = y + o * n;
      float sum = 0.0f;
      for (int64_t j = 0; j < n; ++j) sum += xs[j];
      const float mean = sum / static_cast<float>(n);
      float squares = 0.0f;
      for (int64_t j = 0; j < n; ++j) squares += (xs[j] - mean) * (xs[j] - mean);
      const float inv_std_dev = 1.0f / std::sqrt(squares / static_cast<float>(n) + epsilon);
      for (int64_t j = 0; j < n; ++j) ys[j] = (xs[j] - mean) * inv_std_dev;
      if (mean_out) mean_out[o] = mean;
      if (inv_std_dev_out) inv_std_dev_out[o] = inv_std_dev;
    }
    const std::vector<int64_t>& shape = out[0]->shape();
    const float* scale = in[1]->data_as<float>();
    for_each_broadcast(shape, shape, in[1]->shape(), [&](int64_t i, int64_t, int64_t is) { y[i] *= scale[is]; });
    if (in.size() > 2 && in[2]) {
      const float* bias = in[2]->data_as<float>();
      for_each_broadcast(shape, shape, in[2]->shape(), [&](int64_t i, int64_t, int64_t ib) { y[i] += bias[ib]; });
    }
  };
}

// LayerNormalization (and NeeLayerNorm, which keeps its inputs and attributes with Y
// only) over the dims from `axis` on; the importer stores axis and epsilon explicitly.
ReferenceFn make_reference_layer_normalization(const Graph& graph, const Node& node) {
  const TensorType& type = graph.type_of(node.inputs[0]);
  if (type.dtype != DType::f32) return nullptr;
  const size_t axis = static_cast<size_t>(node.attrs.get_int("axis"));
  int64_t outer = 1, n = 1;
  for (size_t d = 0; d < axis; ++d) outer *= type.shape[d];
  for (size_t d = axis; d < type.shape.size(); ++d) n *= type.shape[d];
  return layer_norm_kernel(outer, n, node.attrs.get_float("epsilon"));
}

ReferenceFn make_layernorm_reference(const Workload& w) {
  const int64_t n = layernorm_row_length(w);
  return layer_norm_kernel(w.inputs[0].elements() / n, n, static_cast<float>(layernorm_epsilon(w)));
}

}  // namespace nee
