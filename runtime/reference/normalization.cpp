#include <algorithm>
#include <cmath>
#include <vector>

#include "core/layernorm_workload.h"
#include "runtime/reference/axis_slices.h"
#include "runtime/reference/broadcast.h"
#include "runtime/reference/family_reference.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

// Layer normalization of `outer` rows of `n` elements: mean and variance per row in f32,
// then Y = (X - mean) * InvStdDev, times Scale and plus B (in[2], optional), both
// broadcast to X. Mean and InvStdDev are written when asked. With `rms` the mean is 0
// (RMSNorm).
static ReferenceFn layer_norm_kernel(int64_t outer, int64_t n, float epsilon, bool rms) {
  return [outer, n, epsilon, rms](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const float* x = in[0]->data_as<float>();
    float* y = out[0]->data_as<float>();
    float* mean_out = out.size() > 1 && out[1] ? out[1]->data_as<float>() : nullptr;
    float* inv_std_dev_out = out.size() > 2 && out[2] ? out[2]->data_as<float>() : nullptr;
    for (int64_t o = 0; o < outer; ++o) {
      const float* xs = x + o * n;
      float* ys = y + o * n;
      float sum = 0.0f;
      for (int64_t j = 0; j < n && !rms; ++j) sum += xs[j];
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
// only, and with `rms` 1 is an RMSNorm) and RMSNormalization (opset 23) over the dims
// from `axis` on; the importer stores axis and epsilon explicitly.
ReferenceFn make_reference_layer_normalization(const Graph& graph, const Node& node) {
  const TensorType& type = graph.type_of(node.inputs[0]);
  if (type.dtype != DType::f32) return nullptr;
  const size_t axis = static_cast<size_t>(node.attrs.get_int("axis"));
  int64_t outer = 1, n = 1;
  for (size_t d = 0; d < axis; ++d) outer *= type.shape[d];
  for (size_t d = axis; d < type.shape.size(); ++d) n *= type.shape[d];
  const bool rms = node.op == "RMSNormalization" || node.attrs.get_int("rms", 0) != 0;
  return layer_norm_kernel(outer, n, node.attrs.get_float("epsilon"), rms);
}

ReferenceFn make_layernorm_reference(const Workload& w) {
  const int64_t n = layernorm_row_length(w);
  return layer_norm_kernel(w.inputs[0].elements() / n, n, static_cast<float>(layernorm_epsilon(w)),
                           layernorm_is_rms(w));
}

namespace {

// Mean and (population) variance of the elements of X of `shape` that map to one
// element of `kept` (X's shape with the normalized dims set to 1), accumulated in double.
struct Moments {
  std::vector<double> mean, variance;
};

Moments moments(const float* x, const std::vector<int64_t>& shape, const std::vector<int64_t>& kept) {
  int64_t groups = 1, elements = 1;
  for (int64_t d : kept) groups *= d;
  for (int64_t d : shape) elements *= d;
  const double count = groups == 0 ? 1.0 : static_cast<double>(elements / groups);
  Moments m{std::vector<double>(static_cast<size_t>(groups)), std::vector<double>(static_cast<size_t>(groups))};
  for_each_broadcast(shape, shape, kept, [&](int64_t i, int64_t, int64_t g) { m.mean[g] += x[i]; });
  for (double& mean : m.mean) mean /= count;
  for_each_broadcast(shape, shape, kept, [&](int64_t i, int64_t, int64_t g) {
    m.variance[g] += (x[i] - m.mean[g]) * (x[i] - m.mean[g]);
  });
  for (double& variance : m.variance) variance /= count;
  return m;
}

}  // namespace

// InstanceNormalization: per sample and channel, y = scale * (x - mean) / sqrt(var + epsilon) + B.
ReferenceFn make_reference_instance_normalization(const Graph& graph, const Node& node) {
  const std::vector<int64_t> shape = graph.type_of(node.inputs[0]).shape;
  std::vector<int64_t> kept(shape.size(), 1);
  kept[0] = shape[0];
  kept[1] = shape[1];
  const int64_t channels = shape[1];
  const double epsilon = node.attrs.get_float("epsilon");
  return [shape, kept, channels, epsilon](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const float* x = in[0]->data_as<float>();
    const float* scale = in[1]->data_as<float>();
    const float* bias = in[2]->data_as<float>();
    float* y = out[0]->data_as<float>();
    const Moments m = moments(x, shape, kept);
    for_each_broadcast(shape, shape, kept, [&](int64_t i, int64_t, int64_t g) {
      const int64_t c = g % channels;
      y[i] = static_cast<float>(scale[c] * (x[i] - m.mean[g]) / std::sqrt(m.variance[g] + epsilon) + bias[c]);
    });
  };
}

// MeanVarianceNormalization, as its ONNX function body computes it:
// (X - E[X]) / (sqrt(E[X^2] - E[X]^2) + 1e-9) over the stored axes.
ReferenceFn make_reference_mean_variance_normalization(const Graph& graph, const Node& node) {
  const std::vector<int64_t> shape = graph.type_of(node.inputs[0]).shape;
  std::vector<int64_t> kept = shape;
  for (int64_t axis : node.attrs.get_ints("axes")) kept[axis] = 1;
  return [shape, kept](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const float* x = in[0]->data_as<float>();
    float* y = out[0]->data_as<float>();
    const Moments m = moments(x, shape, kept);
    for_each_broadcast(shape, shape, kept, [&](int64_t i, int64_t, int64_t g) {
      y[i] = static_cast<float>((x[i] - m.mean[g]) / (std::sqrt(m.variance[g]) + 1e-9));
    });
  };
}

// LRN: y = x / (bias + alpha / size * sum of x^2 over the channels c - floor((size-1)/2)
// to c + ceil((size-1)/2), clipped to the tensor)^beta.
ReferenceFn make_reference_lrn(const Graph& graph, const Node& node) {
  const AxisSlices s = axis_slices(graph.type_of(node.inputs[0]).shape, 1);
  const int64_t size = node.attrs.get_int("size");
  const double alpha = node.attrs.get_float("alpha"), beta = node.attrs.get_float("beta");
  const double bias = node.attrs.get_float("bias");
  return [s, size, alpha, beta, bias](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const float* x = in[0]->data_as<float>();
    float* y = out[0]->data_as<float>();
    const int64_t below = (size - 1) / 2, above = size - 1 - below;
    for (int64_t o = 0; o < s.outer; ++o) {
      for (int64_t c = 0; c < s.n; ++c) {
        for (int64_t i = 0; i < s.inner; ++i) {
          double square_sum = 0.0;
          for (int64_t k = std::max<int64_t>(0, c - below); k <= std::min(s.n - 1, c + above); ++k) {
            const double v = x[(o * s.n + k) * s.inner + i];
            square_sum += v * v;
          }
          const int64_t at = (o * s.n + c) * s.inner + i;
          y[at] = static_cast<float>(x[at] / std::pow(bias + alpha / static_cast<double>(size) * square_sum, beta));
        }
      }
    }
  };
}

}  // namespace nee
