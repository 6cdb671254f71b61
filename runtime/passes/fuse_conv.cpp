#include "runtime/passes/activation_patterns.h"
#include "runtime/passes/node_fusion.h"
#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"
#include "runtime/passes/sole_consumer.h"

namespace nee {

namespace {

bool is_f32_of_rank(const Graph& graph, const std::string& value, size_t rank) {
  const TensorType& t = graph.type_of(value);
  return t.dtype == DType::f32 && t.shape.size() == rank;
}

// 2-D convolutions, and 1-D and 3-D ones with constant weights, which lower_1d_to_rows
// and lower_3d_to_frames lower to 2-D ones after this pass has fused their epilogues.
bool is_fusable_conv(const Graph& graph, const Node& node) {
  if (node.op != "Conv" || node.inputs.size() < 2) return false;
  const size_t rank = graph.type_of(node.inputs[0]).shape.size();
  if (rank != 4 && !f32_constant(graph, node.inputs[1])) return false;
  return rank >= 3 && rank <= 5 && is_f32_of_rank(graph, node.inputs[0], rank) &&
         is_f32_of_rank(graph, node.inputs[1], rank) && is_f32_of_rank(graph, node.outputs[0], rank);
}

// An inference-mode BatchNormalization y = a * x + b (inference_batch_norm) folded into
// the conv: weights of output channel o scaled by a[o], bias a * bias + b.
bool fold_batch_norm(Graph& graph, Node& conv, const Node& bn) {
  if (bn.inputs.empty() || bn.inputs[0] != conv.outputs[0]) return false;
  const Tensor* weights = f32_constant(graph, conv.inputs[1]);
  const Tensor* bias = conv.attrs.get_int("bias") ? f32_constant(graph, conv.inputs[2]) : nullptr;
  if (!weights || (conv.attrs.get_int("bias") && !bias)) return false;
  const int64_t out_channels = weights->shape()[0];
  const std::optional<BatchNormAffine> affine = inference_batch_norm(graph, bn, out_channels);
  if (!affine) return false;
  Tensor new_weights = weights->clone(), new_bias(DType::f32, {out_channels});
  const int64_t per_channel = weights->elements() / out_channels;
  for (int64_t o = 0; o < out_channels; ++o) {
    const float a = affine->scale[static_cast<size_t>(o)];
    float* w = new_weights.data_as<float>() + o * per_channel;
    for (int64_t i = 0; i < per_channel; ++i) w[i] *= a;
    const float b0 = bias ? bias->data_as<float>()[o] : 0.0f;
    new_bias.data_as<float>()[o] = a * b0 + affine->shift[static_cast<size_t>(o)];
  }
  const std::string w_name = unique_value_name(graph, conv.name + "_bn_weights");
  graph.add_constant(w_name, new_weights);
  const std::string b_name = unique_value_name(graph, conv.name + "_bn_bias");
  graph.add_constant(b_name, new_bias);
  conv.inputs[1] = w_name;
  if (conv.attrs.get_int("bias")) {
    conv.inputs[2] = b_name;
  } else {
    conv.inputs.insert(conv.inputs.begin() + 2, b_name);
    conv.attrs.set("bias", int64_t{1});
  }
  return true;
}

}  // namespace

void fuse_conv(Graph& graph) {
  // Conv -> NeeConv: f32 convolutions, with every attribute kept (the importer made
  // kernel_shape, strides, dilations, pads and group explicit).
  for (Node& node : graph.nodes()) {
    if (!is_fusable_conv(graph, node)) continue;
    const bool has_bias = node.inputs.size() > 2 && !node.inputs[2].empty();
    if (has_bias && graph.type_of(node.inputs[2]).dtype != DType::f32) continue;
    node.op = "NeeConv";
    node.inputs.resize(has_bias ? 3 : 2);
    node.attrs.set("bias", int64_t{has_bias ? 1 : 0});
    node.attrs.set("residual", int64_t{0});
    node.attrs.set("activation", std::string("none"));
    node.attrs.set("clip_min", 0.0f);
    node.attrs.set("clip_max", 0.0f);
  }

  // Each step fuses a NeeConv with the sole consumer of its output, in epilogue order:
  // BatchNormalization, then a residual Add, then Relu, Clip, HardSwish or HardSigmoid (with
  // PyTorch's constants), or with the nodes of a SiLU, GELU or Hardswish applied to it.
  // Hardswish and Hardsigmoid are MobileNetV3's: fused, its 1x1 convs feed the depthwise
  // convs in the blocked layout, where the Mul between them kept both in NCHW.
  enum Step { batch_norm, residual, activation };
  for (Step step : {batch_norm, residual, activation}) {
    auto& nodes = graph.nodes();
    std::vector<bool> fused_away(nodes.size(), false);
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i].op != "NeeConv" || fused_away[i]) continue;
      Node fused = nodes[i];
      if (step == activation && fused.attrs.get_string("activation") == "none") {
        for (const auto& [name, match] : {std::pair{"silu", &match_silu}, std::pair{"gelu", &match_gelu},
                                          std::pair{"hardswish", &match_hard_swish}}) {
          if (std::optional<ActivationMatch> pattern = match(graph, fused.outputs[0])) {
            fused.attrs.set("activation", std::string(name));
            absorb_activation(graph, fused_away, i, *pattern, std::move(fused));
            break;
          }
        }
        if (fused_away[i]) continue;
      }
      const std::optional<size_t> next = sole_consumer(graph, nodes[i].outputs[0]);
      if (!next) continue;
      const Node& consumer = nodes[*next];
      if (step == batch_norm) {
        if (consumer.op != "BatchNormalization" || fused.attrs.get_int("residual") ||
            fused.attrs.get_string("activation") != "none" || !fold_batch_norm(graph, fused, consumer)) {
          continue;
        }
      } else if (step == residual) {
        if (consumer.op != "Add" || consumer.inputs.size() != 2 || fused.attrs.get_int("residual") ||
            fused.attrs.get_string("activation") != "none" || consumer.inputs[0] == consumer.inputs[1]) {
          continue;
        }
        const std::string& other =
            consumer.inputs[0] == fused.outputs[0] ? consumer.inputs[1] : consumer.inputs[0];
        if (!(graph.type_of(other) == graph.type_of(fused.outputs[0]))) continue;
        fused.inputs.push_back(other);
        fused.attrs.set("residual", int64_t{1});
      } else {
        if (fused.attrs.get_string("activation") != "none") continue;
        if (consumer.op == "Relu") {
          fused.attrs.set("activation", std::string("relu"));
        } else if (consumer.op == "HardSwish") {
          fused.attrs.set("activation", std::string("hardswish"));
        } else if (is_standard_hard_sigmoid(consumer)) {
          fused.attrs.set("activation", std::string("hardsigmoid"));
        } else if (consumer.op == "Clip") {
          float lo = 0, hi = 0;
          if (!clip_bounds(graph, consumer, lo, hi)) continue;
          fused.attrs.set("activation", std::string("clip"));
          fused.attrs.set("clip_min", lo);
          fused.attrs.set("clip_max", hi);
        } else {
          continue;
        }
      }
      fuse_into_consumer(graph, fused_away, i, *next, std::move(fused));
    }
    erase_fused(graph, fused_away);
  }
}

}  // namespace nee
