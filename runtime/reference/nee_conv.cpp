#include <algorithm>
#include <cmath>
#include <memory>

#include "core/activation_layout.h"
#include "core/activations.h"
#include "core/conv2d_workload.h"
#include "runtime/node_workload.h"
#include "runtime/reference/family_reference.h"
#include "runtime/reference/frame_gather.h"
#include "runtime/reference/reference_ops.h"
#include "runtime/reference/spatial_geometry.h"

namespace nee {

namespace {

// A fused convolution's arithmetic in ONNX's layouts: `conv` (Conv's kernel) over NCHW X
// and OIHW W, then bias, residual and activation. Channel-blocked activations
// (attrs.input_block, output_block) are unpacked before and packed after each call, and
// frames read in place (attrs.frame_taps) gathered into X ([N * T', KT * C, H, W]).
// Blocked or Winograd-transformed weights come unpacked in `oihw_weights` when they are
// a constant, and are unpacked from in[1] at each call otherwise. Inputs X, W, then B
// where `has_bias`, then the residual where `has_residual`.
ReferenceFn fused_conv_kernel(ReferenceFn conv, const Conv2dAttrs& attrs, bool has_bias, bool has_residual,
                              const TensorType& x_nchw, const TensorType& y_nchw,
                              std::shared_ptr<const Tensor> oihw_weights, std::vector<int64_t> oihw_shape) {
  // X as in[0] holds it, in NCHW.
  const std::vector<int64_t> frames = attrs.frame_taps != 0 ? conv2d_frames_shape(x_nchw.shape, attrs) : x_nchw.shape;
  return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Tensor* w = oihw_weights ? oihw_weights.get() : in[1];
    Tensor unpacked_weights;
    if (!oihw_weights && attrs.weight_block != 0 && attrs.a_bits == 0) {
      unpacked_weights = Tensor(DType::f32, oihw_shape);
      unpack_conv2d_weights(in[1]->data_as<float>(), oihw_shape, attrs, unpacked_weights.data_as<float>());
      w = &unpacked_weights;
    }
    const Tensor* input = in[0];
    Tensor nchw_input, gathered, nchw_output;
    if (attrs.input_block != 0) {
      nchw_input = Tensor(DType::f32, frames);
      unpack_blocked_activations(in[0]->data_as<float>(), frames, nchw_input.data_as<float>());
      input = &nchw_input;
    }
    if (attrs.frame_taps != 0) {
      FrameGatherGeometry g;
      g.taps = attrs.frame_taps;
      g.stride = attrs.frame_stride;
      g.dilation = attrs.frame_dilation;
      g.pad = attrs.frame_pad;
      g.clips = frames[0] / attrs.frames_in;
      g.time = attrs.frames_in;
      g.frames = attrs.frames_out;
      g.units = frames[1];
      g.plane_bytes = static_cast<size_t>(frames[2] * frames[3]) * sizeof(float);
      gathered = Tensor(x_nchw);
      gather_frames(g, input->data(), gathered.data());
      input = &gathered;
    }
    Tensor* result = out[0];
    if (attrs.output_block != 0) {
      nchw_output = Tensor(y_nchw);
      result = &nchw_output;
    }
    const size_t bias_input = conv2d_bias_input(attrs);
    float* v = result->data_as<float>();
    const int64_t count = result->elements();
    if (attrs.a_bits != 0) {
      conv({input, in[1], in[2], in[3], in[4]}, {result});
      const int64_t plane = count / y_nchw.shape[0] / y_nchw.shape[1];
      const float* bias = has_bias ? in[bias_input]->data_as<float>() : nullptr;
      for (int64_t i = 0; bias && i < count; ++i) v[i] += bias[i / plane % y_nchw.shape[1]];
    } else {
      conv({input, w, has_bias ? in[bias_input] : nullptr}, {result});
    }
    if (has_residual) {
      std::vector<float> nchw_residual;
      const float* rv = in[bias_input + (has_bias ? 1 : 0)]->data_as<float>();
      if (attrs.output_block != 0) {
        nchw_residual.resize(static_cast<size_t>(count));
        unpack_blocked_activations(rv, y_nchw.shape, nchw_residual.data());
        rv = nchw_residual.data();
      }
      for (int64_t i = 0; i < count; ++i) v[i] += rv[i];
    }
    const float lo = static_cast<float>(attrs.clip_min), hi = static_cast<float>(attrs.clip_max);
    switch (attrs.activation) {
      case ConvActivation::none: break;
      case ConvActivation::relu:
        for (int64_t i = 0; i < count; ++i) v[i] = std::max(v[i], 0.0f);
        break;
      case ConvActivation::clip:
        for (int64_t i = 0; i < count; ++i) v[i] = std::min(std::max(v[i], lo), hi);
        break;
      case ConvActivation::silu:
        for (int64_t i = 0; i < count; ++i) v[i] = silu(v[i]);
        break;
      case ConvActivation::gelu:
        for (int64_t i = 0; i < count; ++i) v[i] = gelu(v[i]);
        break;
      case ConvActivation::hardsigmoid:
        for (int64_t i = 0; i < count; ++i) v[i] = hard_sigmoid(v[i]);
        break;
      case ConvActivation::hardswish:
        for (int64_t i = 0; i < count; ++i) v[i] = hard_swish(v[i]);
        break;
    }
    if (attrs.requantize_scale != 0) {
      const float scale = attrs.requantize_scale, zero = static_cast<float>(attrs.requantize_zero);
      const float low = static_cast<float>(attrs.requantize_low), high = static_cast<float>(attrs.requantize_high);
      for (int64_t i = 0; i < count; ++i) {
        float q = std::nearbyint(v[i] / scale);
        if (zero != 0.0f) q += zero;
        q = std::min(std::max(q, low), high);
        if (zero != 0.0f) q -= zero;
        v[i] = q * scale;
      }
    }
    if (attrs.output_block != 0) pack_blocked_activations(v, y_nchw.shape, out[0]->data_as<float>());
  };
}

}  // namespace

// NeeConv keeps Conv's attributes and adds the epilogue's and the layouts'. Blocked or
// transformed weights that are constants are brought back to OIHW once here; others
// (fold_channel_gates computes a conv's weights from blocked ones) at each call.
ReferenceFn make_reference_nee_conv(const Graph& graph, const Node& node) {
  const Conv2dAttrs attrs = nee_conv_attrs(node);
  TensorType x = graph.type_of(node.inputs[0]), y = graph.type_of(node.outputs[0]);
  if (x.dtype != DType::f32) return nullptr;
  if (attrs.input_block != 0) x.shape = unblocked_activation_shape(x.shape);
  if (attrs.output_block != 0) y.shape = unblocked_activation_shape(y.shape);
  if (attrs.frame_taps != 0) x.shape = conv2d_gathered_shape(x.shape, attrs);
  if (attrs.a_bits != 0) {
    ReferenceFn sums = integer_conv_kernel(window_3d(node.attrs, x.shape, y.shape), x.shape[0], x.shape[1], y.shape[1]);
    return fused_conv_kernel(std::move(sums), attrs, node.attrs.get_int("bias") != 0,
                             node.attrs.get_int("residual") != 0, x, y, nullptr, {});
  }
  std::shared_ptr<Tensor> oihw;
  std::vector<int64_t> oihw_shape = graph.type_of(node.inputs[1]).shape;
  if (attrs.weight_block != 0) {
    oihw_shape = conv2d_oihw_weight_shape(oihw_shape, y.shape[1], attrs);
    if (const Tensor* w = graph.constant(node.inputs[1])) {
      oihw = std::make_shared<Tensor>(DType::f32, oihw_shape);
      unpack_conv2d_weights(w->data_as<float>(), oihw_shape, attrs, oihw->data_as<float>());
    }
  }
  ReferenceFn conv = conv_kernel(window_3d(node.attrs, x.shape, y.shape), x.shape[0], x.shape[1], y.shape[1],
                                 attrs.group);
  return fused_conv_kernel(std::move(conv), attrs, node.attrs.get_int("bias") != 0,
                           node.attrs.get_int("residual") != 0, x, y, std::move(oihw), std::move(oihw_shape));
}

ReferenceFn make_conv2d_reference(const Workload& w) {
  const Conv2dAttrs attrs = conv2d_attrs(w);
  const TensorType x = conv2d_nchw_input(w), y = conv2d_nchw_output(w);
  const TensorType weights = conv2d_oihw_weights(w);
  const std::array<int64_t, 2> kernel{weights.shape[2], weights.shape[3]};
  const Window3d window = window_2d(kernel, attrs.strides, attrs.dilations, attrs.pads, x.shape, y.shape);
  ReferenceFn conv = attrs.a_bits != 0 ? integer_conv_kernel(window, x.shape[0], x.shape[1], y.shape[1])
                                       : conv_kernel(window, x.shape[0], x.shape[1], y.shape[1], attrs.group);
  return fused_conv_kernel(std::move(conv), attrs, conv2d_has_bias(w), conv2d_has_residual(w), x, y, nullptr,
                           weights.shape);
}

}  // namespace nee
