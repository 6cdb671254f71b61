// BatchNormalization with training_mode=1 (opsets 14, 15): normalization by the batch's
// own statistics, and the running statistics updated with them.
#include <cmath>
#include <vector>

#include "runtime/reference/reference_ops.h"

namespace nee {

// Per channel c, over the N x spatial elements of X in that channel: mean and biased
// variance (dividing by their count, as ONNX's reference numpy.var does), summed in
// double. Y = (x - mean) / sqrt(var + epsilon) * scale + B; the optional outputs 1 and 2
// are input_mean * momentum + mean * (1 - momentum) and the same for the variance.
ReferenceFn make_reference_batch_norm_training(const Graph& graph, const Node& node) {
  const TensorType& x = graph.type_of(node.inputs[0]);
  if (x.dtype != DType::f32) return nullptr;
  const int64_t batch = x.shape[0];
  const int64_t channels = x.shape[1];
  int64_t spatial = 1;
  for (size_t d = 2; d < x.shape.size(); ++d) spatial *= x.shape[d];
  const double epsilon = node.attrs.get_float("epsilon");
  const double momentum = node.attrs.get_float("momentum");
  return [batch, channels, spatial, epsilon, momentum](const std::vector<const Tensor*>& in,
                                                       const std::vector<Tensor*>& out) {
    const float* x = in[0]->data_as<float>();
    const float* scale = in[1]->data_as<float>();
    const float* bias = in[2]->data_as<float>();
    const float* input_mean = in[3]->data_as<float>();
    const float* input_var = in[4]->data_as<float>();
    float* y = out[0]->data_as<float>();
    float* running_mean = out.size() > 1 && out[1] ? out[1]->data_as<float>() : nullptr;
    float* running_var = out.size() > 2 && out[2] ? out[2]->data_as<float>() : nullptr;
    const auto count = static_cast<double>(batch * spatial);
    for (int64_t c = 0; c < channels; ++c) {
      double sum = 0;
      for (int64_t n = 0; n < batch; ++n) {
        const float* plane = x + (n * channels + c) * spatial;
        for (int64_t s = 0; s < spatial; ++s) sum += plane[s];
      }
      const double mean = sum / count;
      double squares = 0;
      for (int64_t n = 0; n < batch; ++n) {
        const float* plane = x + (n * channels + c) * spatial;
        for (int64_t s = 0; s < spatial; ++s) squares += (plane[s] - mean) * (plane[s] - mean);
      }
      const double var = squares / count;
      const double a = scale[c] / std::sqrt(var + epsilon);
      for (int64_t n = 0; n < batch; ++n) {
        const int64_t at = (n * channels + c) * spatial;
        for (int64_t s = 0; s < spatial; ++s) y[at + s] = static_cast<float>((x[at + s] - mean) * a + bias[c]);
      }
      if (running_mean) running_mean[c] = static_cast<float>(input_mean[c] * momentum + mean * (1 - momentum));
      if (running_var) running_var[c] = static_cast<float>(input_var[c] * momentum + var * (1 - momentum));
    }
  };
}

}  // namespace nee
