#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "core/error.h"
#include "runtime/reference/index_tensor.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

// What both losses share: the input viewed as N x C x D (D the product of d1..dk), the
// reduction, and the class to ignore.
struct LossShape {
  int64_t batch, classes, spatial;
  std::string reduction;
  std::optional<int64_t> ignore_index;
};

LossShape loss_shape(const Graph& graph, const Node& node) {
  const std::vector<int64_t>& shape = graph.type_of(node.inputs[0]).shape;
  LossShape s{shape[0], shape[1], 1, node.attrs.get_string("reduction"), std::nullopt};
  for (size_t d = 2; d < shape.size(); ++d) s.spatial *= shape[d];
  if (node.attrs.has("ignore_index")) s.ignore_index = node.attrs.get_int("ignore_index");
  return s;
}

// loss[n, d] = -log_probs[n, target[n, d], d] * weight[target[n, d]], 0 where the target
// is ignore_index; mean divides the sum by the summed weights of the targets not
// ignored, as the spec says. A target outside [0, C) that is not ignored is an error.
void negative_log_likelihood(const LossShape& s, const float* log_probs, const Tensor& target, const Tensor* weight,
                             Tensor& out) {
  const float* w = weight ? weight->data_as<float>() : nullptr;
  float* loss = out.data_as<float>();
  double total = 0, weight_sum = 0;
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t d = 0; d < s.spatial; ++d) {
      const int64_t i = n * s.spatial + d;
      const int64_t t = index_at(target, i);
      float value = 0;
      if (!s.ignore_index || t != *s.ignore_index) {
        if (t < 0 || t >= s.classes) throw Error(fmt::format("target {} is outside the {} classes", t, s.classes));
        const float cw = w ? w[t] : 1.0f;
        value = -log_probs[(n * s.classes + t) * s.spatial + d] * cw;
        weight_sum += cw;
      }
      if (s.reduction == "none") loss[i] = value;
      total += value;
    }
  }
  if (s.reduction == "sum") loss[0] = static_cast<float>(total);
  if (s.reduction == "mean") loss[0] = static_cast<float>(total / weight_sum);
}

}  // namespace

ReferenceFn make_reference_negative_log_likelihood_loss(const Graph& graph, const Node& node) {
  const LossShape s = loss_shape(graph, node);
  return [s](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    negative_log_likelihood(s, in[0]->data_as<float>(), *in[1], in.size() > 2 ? in[2] : nullptr, *out[0]);
  };
}

// SoftmaxCrossEntropyLoss: the negative log-likelihood of the log-softmax over the class
// dim (max-shifted), which is also the optional second output.
ReferenceFn make_reference_softmax_cross_entropy_loss(const Graph& graph, const Node& node) {
  const LossShape s = loss_shape(graph, node);
  return [s](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    Tensor own_log_probs;
    Tensor* log_probs = out.size() > 1 && out[1] ? out[1] : nullptr;
    if (!log_probs) {
      own_log_probs = Tensor(in[0]->type());
      log_probs = &own_log_probs;
    }
    const float* x = in[0]->data_as<float>();
    float* lp = log_probs->data_as<float>();
    for (int64_t n = 0; n < s.batch; ++n) {
      for (int64_t d = 0; d < s.spatial; ++d) {
        const int64_t base = n * s.classes * s.spatial + d;
        float max = x[base];
        for (int64_t c = 1; c < s.classes; ++c) max = std::max(max, x[base + c * s.spatial]);
        double sum = 0;
        for (int64_t c = 0; c < s.classes; ++c) sum += std::exp(x[base + c * s.spatial] - max);
        const float log_sum = static_cast<float>(std::log(sum));
        for (int64_t c = 0; c < s.classes; ++c) lp[base + c * s.spatial] = x[base + c * s.spatial] - max - log_sum;
      }
    }
    negative_log_likelihood(s, lp, *in[1], in.size() > 2 ? in[2] : nullptr, *out[0]);
  };
}

}  // namespace nee
