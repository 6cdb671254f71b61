#include <algorithm>
#include <memory>

#include "core/activation_layout.h"
#include "core/activations.h"
#include "core/conv_workload.h"

#include "runtime/reference/reference_ops.h"

namespace nee {

// NeeConv: the Conv reference kernel (the node keeps Conv's attributes), then the fused
// epilogue, in ONNX's layouts. Channel-blocked weights (weight_block, constants only) are
// unpacked when the kernel is made; channel-blocked activations (input_block,
// output_block) are unpacked before and packed after each call. Inputs X, W, then B when
// attribute bias = 1, then the residual when residual = 1.
ReferenceFn make_reference_nee_conv(const Graph& graph, const Node& node) {
  const bool blocked_input = node.attrs.get_int("input_block", 0) != 0;
  const bool blocked_output = node.attrs.get_int("output_block", 0) != 0;
  TensorType x = graph.type_of(node.inputs[0]), y = graph.type_of(node.outputs[0]);
  if (blocked_input) x.shape = unblocked_activation_shape(x.shape);
  if (blocked_output) y.shape = unblocked_activation_shape(y.shape);
  ReferenceFn conv = make_reference_conv_of(node, x, y);
  if (!conv) return nullptr;
  const bool has_bias = node.attrs.get_int("bias") != 0;
  const bool has_residual = node.attrs.get_int("residual") != 0;
  const std::string activation = node.attrs.get_string("activation");
  const float lo = node.attrs.get_float("clip_min"), hi = node.attrs.get_float("clip_max");
  Conv2dAttrs layout;
  layout.weight_block = node.attrs.get_int("weight_block", 0);
  layout.winograd_tile = node.attrs.get_int("winograd_tile", 0);
  // pack_conv_weights and use_winograd relay constant weights only, so W is brought back
  // to OIHW once here.
  std::shared_ptr<Tensor> unblocked;
  if (layout.weight_block != 0) {
    const Tensor* w = graph.constant(node.inputs[1]);
    if (!w) return nullptr;
    const std::vector<int64_t> oihw = conv2d_oihw_weight_shape(w->shape(), y.shape[1], layout);
    unblocked = std::make_shared<Tensor>(DType::f32, oihw);
    unpack_conv2d_weights(w->data_as<float>(), oihw, layout, unblocked->data_as<float>());
  }
  return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor* w = unblocked ? unblocked.get() : in[1];
    const Tensor* input = in[0];
    Tensor nchw_input, nchw_output;
    if (blocked_input) {
      nchw_input = Tensor(x);
      unpack_blocked_activations(in[0]->data_as<float>(), x.shape, nchw_input.data_as<float>());
      input = &nchw_input;
    }
    Tensor* result = out[0];
    if (blocked_output) {
      nchw_output = Tensor(y);
      result = &nchw_output;
    }
    conv({input, w, has_bias ? in[2] : nullptr}, {result});
    float* v = result->data_as<float>();
    const int64_t count = result->elements();
    if (has_residual) {
      const Tensor* r = in[has_bias ? 3 : 2];
      std::vector<float> nchw_residual;
      const float* rv = r->data_as<float>();
      if (blocked_output) {
        nchw_residual.resize(static_cast<size_t>(count));
        unpack_blocked_activations(rv, y.shape, nchw_residual.data());
        rv = nchw_residual.data();
      }
      for (int64_t i = 0; i < count; ++i) v[i] += rv[i];
    }
    if (activation == "relu") {
      for (int64_t i = 0; i < count; ++i) v[i] = std::max(v[i], 0.0f);
    } else if (activation == "clip") {
      for (int64_t i = 0; i < count; ++i) v[i] = std::min(std::max(v[i], lo), hi);
    } else if (activation == "silu") {
      for (int64_t i = 0; i < count; ++i) v[i] = silu(v[i]);
    } else if (activation == "gelu") {
      for (int64_t i = 0; i < count; ++i) v[i] = gelu(v[i]);
    }
    if (blocked_output) pack_blocked_activations(v, y.shape, out[0]->data_as<float>());
  };
}

}  // namespace nee
