#include <algorithm>
#include <memory>

#include "core/activations.h"
#include "core/conv_weight_layout.h"

#include "runtime/reference/reference_ops.h"

namespace nee {

// NeeConv: the Conv reference kernel (the node keeps Conv's attributes), then the fused
// epilogue; channel-blocked weights (weight_block, constants only) are unpacked when the
// kernel is made. Inputs X, W, then B when attribute bias = 1, then the residual when
// residual = 1.
ReferenceFn make_reference_nee_conv(const Graph& graph, const Node& node) {
  ReferenceFn conv = make_reference_conv(graph, node);
  if (!conv) return nullptr;
  const bool has_bias = node.attrs.get_int("bias") != 0;
  const bool has_residual = node.attrs.get_int("residual") != 0;
  const std::string activation = node.attrs.get_string("activation");
  const float lo = node.attrs.get_float("clip_min"), hi = node.attrs.get_float("clip_max");
  const int64_t block = node.attrs.get_int("weight_block", 0);
  // pack_conv_weights blocks constant weights only, so blocked W is unpacked once here.
  std::shared_ptr<Tensor> unblocked;
  if (block != 0) {
    const Tensor* w = graph.constant(node.inputs[1]);
    if (!w) return nullptr;
    const std::vector<int64_t> oihw =
        unblocked_weight_shape(w->shape(), graph.type_of(node.outputs[0]).shape[1], block);
    unblocked = std::make_shared<Tensor>(DType::f32, oihw);
    unpack_blocked_weights(w->data_as<float>(), oihw, block, unblocked->data_as<float>());
  }
  return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor* w = unblocked ? unblocked.get() : in[1];
    conv({in[0], w, has_bias ? in[2] : nullptr}, out);
    float* y = out[0]->data_as<float>();
    const int64_t count = out[0]->elements();
    if (has_residual) {
      const float* r = in[has_bias ? 3 : 2]->data_as<float>();
      for (int64_t i = 0; i < count; ++i) y[i] += r[i];
    }
    if (activation == "relu") {
      for (int64_t i = 0; i < count; ++i) y[i] = std::max(y[i], 0.0f);
    } else if (activation == "clip") {
      for (int64_t i = 0; i < count; ++i) y[i] = std::min(std::max(y[i], lo), hi);
    } else if (activation == "silu") {
      for (int64_t i = 0; i < count; ++i) y[i] = silu(y[i]);
    } else if (activation == "gelu") {
      for (int64_t i = 0; i < count; ++i) y[i] = gelu(y[i]);
    }
  };
}

}  // namespace nee
