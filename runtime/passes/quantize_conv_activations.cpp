#include <optional>
#include <string>
#include <vector>

#include "core/conv2d_workload.h"
#include "core/conv_weight_layout.h"
#include "runtime/node_workload.h"
#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

namespace {

// W [O, C, KH, KW] as signed bytes (the integers less their zero points) with a multiplier
// per output channel (its scale times X's).
struct IntegerConvWeights {
  std::vector<int8_t> values;
  std::vector<float> multipliers;
};

// W's integers from the DequantizeLinear it came from: nullopt unless its scale is one value
// or one per output channel and every integer less its zero point fits in a signed byte.
std::optional<IntegerConvWeights> integer_weights(const DequantizedOrigin& origin, float x_scale) {
  const std::vector<int64_t>& shape = origin.x.shape();
  const bool per_tensor = origin.block_size == 0 && origin.scale.elements() == 1;
  if (!per_tensor && (origin.block_size != 0 || origin.axis != 0 || origin.scale.elements() != shape[0])) {
    return std::nullopt;
  }
  const int64_t per_channel = shape[1] * shape[2] * shape[3];
  const bool has_zero_point = !origin.zero_point.empty_storage();
  IntegerConvWeights w;
  w.values.resize(static_cast<size_t>(origin.x.elements()));
  for (int64_t i = 0; i < origin.x.elements(); ++i) {
    const int64_t p = per_tensor ? 0 : i / per_channel;
    const int v = byte_integer_at(origin.x, i) - (has_zero_point ? byte_integer_at(origin.zero_point, p) : 0);
    if (v < -128 || v > 127) return std::nullopt;
    w.values[i] = static_cast<int8_t>(v);
  }
  for (int64_t o = 0; o < shape[0]; ++o) {
    w.multipliers.push_back(origin.scale.data_as<float>()[per_tensor ? 0 : o] * x_scale);
  }
  return w;
}

// X's quantized origin where the graph still holds its x in X's type and its scale and zero
// point: a pair's (constants, scaled) or DynamicQuantizeLinear's (values, unscaled: the
// graph's Mul after the conv applies the scales); null else.
const QuantizedOrigin* x_origin(const Graph& graph, const std::string& value) {
  const QuantizedOrigin* origin = graph.quantized_origin(value);
  if (!origin || origin->scaled != origin->scale.empty() || origin->scale.empty() != origin->zero.empty()) {
    return nullptr;
  }
  if (!graph.has_value(origin->x) || !(graph.type_of(origin->x) == graph.type_of(value))) return nullptr;
  if (!origin->scale.empty() && (!graph.has_value(origin->scale) || !graph.has_value(origin->zero))) return nullptr;
  return origin;
}

bool convertible(const Node& node) {
  if (node.op != "NeeConv") return false;
  const Conv2dAttrs attrs = nee_conv_attrs(node);
  return attrs.group == 1 && attrs.weight_block == 0 && attrs.winograd_tile == 0 &&
         attrs.frame_taps == 0 && attrs.group_width == 0 && attrs.a_bits == 0 && attrs.input_block == 0 &&
         attrs.output_block == 0;
}

}  // namespace

void quantize_conv_activations(Graph& graph) {
  std::vector<std::string> dropped;  // the convs' former X and W
  for (Node& node : graph.nodes()) {
    if (!convertible(node) || graph.type_of(node.inputs[0]).shape.size() != 4) continue;
    const QuantizedOrigin* x = x_origin(graph, node.inputs[0]);
    const DequantizedOrigin* weights = graph.dequantized_origin(node.inputs[1]);
    if (!x || !weights || weights->x.shape().size() != 4) continue;
    const std::vector<int64_t>& oihw = weights->x.shape();
    if (!integer_conv_sums_fit(oihw)) continue;
    const std::optional<IntegerConvWeights> w = integer_weights(*weights, x->scaled ? x->scale_value : 1.0f);
    if (!w) continue;
    const std::string base = node.inputs[1] + ".i8";
    Tensor packed(DType::i8, integer_conv_weight_shape(oihw));
    Tensor scales(DType::f32, integer_conv_scales_shape(oihw[0]));
    pack_integer_conv_weights(w->values.data(), oihw, w->multipliers.data(), packed.data_as<int8_t>(),
                              scales.data_as<float>());
    std::string scale = x->scale, zero = x->zero;
    if (x->scaled) {
      Tensor point(DType::u8, {});
      point.data_as<uint8_t>()[0] = static_cast<uint8_t>(x->zero_point);
      scale = add_scalar_constant(graph, base + "/x_scale", x->scale_value);
      zero = add_named_constant(graph, base + "/x_zero", point);
    }
    dropped.push_back(node.inputs[0]);
    dropped.push_back(node.inputs[1]);
    std::vector<std::string> inputs = {x->x, add_named_constant(graph, base + "/packed", packed),
                                       add_named_constant(graph, base + "/scales", scales), scale, zero};
    inputs.insert(inputs.end(), node.inputs.begin() + 2, node.inputs.end());
    node.inputs = inputs;
    node.attrs.set("weight_block", kConvWeightBlock);
    node.attrs.set("a_bits", int64_t{8});
  }
  for (const std::string& value : dropped) drop_unread_makers(graph, value);
  graph.sort_topologically();
}

}  // namespace nee
