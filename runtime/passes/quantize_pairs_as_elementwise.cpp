#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

namespace {

// A QuantizeLinear's or DequantizeLinear's scale and zero point where both are one
// constant value (the zero point 0 when omitted).
struct TensorQuantization {
  std::string scale;  // the f32 scalar constant's name
  float zero = 0;
};

std::optional<TensorQuantization> per_tensor(const Graph& graph, const Node& node) {
  if (node.inputs.size() < 2 || node.attrs.get_int("block_size", 0) != 0) return std::nullopt;
  if (!scalar_f32_constant(graph, node.inputs[1])) return std::nullopt;
  TensorQuantization q{node.inputs[1], 0};
  if (node.inputs.size() > 2 && !node.inputs[2].empty()) {
    const Tensor* zero = graph.constant(node.inputs[2]);
    if (!zero || zero->elements() != 1) return std::nullopt;
    switch (zero->dtype()) {
      case DType::u8: q.zero = zero->data_as<uint8_t>()[0]; break;
      case DType::i8: q.zero = zero->data_as<int8_t>()[0]; break;
      case DType::u16: q.zero = zero->data_as<uint16_t>()[0]; break;
      case DType::i16: q.zero = zero->data_as<int16_t>()[0]; break;
      default: return std::nullopt;
    }
  }
  return q;
}

// The range of an integer type QuantizeLinear saturates to.
std::optional<std::pair<float, float>> saturation_range(DType dtype) {
  switch (dtype) {
    case DType::u8: return std::make_pair(0.0f, 255.0f);
    case DType::i8: return std::make_pair(-128.0f, 127.0f);
    case DType::u16: return std::make_pair(0.0f, 65535.0f);
    case DType::i16: return std::make_pair(-32768.0f, 32767.0f);
    default: return std::nullopt;
  }
}

// Whether `reader` reads `value` as its first input by constant weights dequantized from
// integers.
bool reads_by_quantized_weights(const Graph& graph, const Node& reader, const std::string& value) {
  return reader.inputs.size() > 1 && reader.inputs[0] == value && graph.dequantized_origin(reader.inputs[1]);
}

// Whether one of `ops` reads `value` so.
bool reads_into_quantized_weights(const Graph& graph, const std::string& value, const std::vector<std::string>& ops) {
  for (const Node* reader : graph.consumers(value)) {
    if (std::find(ops.begin(), ops.end(), reader->op) != ops.end() &&
        reads_by_quantized_weights(graph, *reader, value)) {
      return true;
    }
  }
  return false;
}

// Whether something besides Convs of one group reading it so reads `value` (or the graph
// returns it).
bool read_beside_quantized_convs(const Graph& graph, const std::string& value) {
  if (graph.is_output(value)) return true;
  for (const Node* reader : graph.consumers(value)) {
    const bool quantized_conv = reader->op == "Conv" && reader->attrs.get_int("group", 1) == 1 &&
                                reads_by_quantized_weights(graph, *reader, value);
    if (!quantized_conv) return true;
  }
  return false;
}

}  // namespace

void quantize_pairs_as_elementwise(Graph& graph, bool note_product_inputs, bool note_conv_inputs,
                                   bool convs_read_shared_pairs) {
  std::vector<Node> added;
  std::vector<std::string> replaced;  // the DequantizeLinears rewritten
  for (const Node& dq : graph.nodes()) {
    if (dq.op != "DequantizeLinear") continue;
    const Node* q = graph.producer(dq.inputs[0]);
    if (!q || q->op != "QuantizeLinear" || graph.type_of(q->inputs[0]).dtype != DType::f32) continue;
    const std::optional<TensorQuantization> quantize = per_tensor(graph, *q), dequantize = per_tensor(graph, dq);
    const std::optional<std::pair<float, float>> range = saturation_range(graph.type_of(q->outputs[0]).dtype);
    if (!quantize || !dequantize || !range || graph.type_of(dq.outputs[0]).dtype != DType::f32) continue;
    // A scale that is not a finite positive number stays on the reference kernels, which
    // compute IEEE's NaNs where the elementwise kernels' simplifications need not:
    // onnxruntime calibrates a causal mask's -inf scores to a scale of inf, whose pair
    // makes NaN there (0 x inf), and NEE's kernel made 0, so a QDQ GPT decoder's softmax
    // rows differed by 0.7 of the output's peak.
    const auto usable = [&](const std::string& scale) {
      const float v = *scalar_f32_constant(graph, scale);
      return std::isfinite(v) && v > 0;
    };
    if (!usable(quantize->scale) || !usable(dequantize->scale)) continue;
    // QuantizeLinear: saturate(round(x / scale) + zero); DequantizeLinear: (q - zero) * scale.
    const TensorType shape = graph.type_of(dq.outputs[0]);
    const std::string base = dq.name + ".requantized";
    std::string v = append_node(graph, added, "Div", base + "/divided", {q->inputs[0], quantize->scale}, shape);
    v = append_node(graph, added, "Round", base + "/rounded", {v}, shape);
    if (quantize->zero != 0) {
      const std::string zero = add_scalar_constant(graph, base + "/zero", quantize->zero);
      v = append_node(graph, added, "Add", base + "/shifted", {v, zero}, shape);
    }
    const std::string lowest = add_scalar_constant(graph, base + "/lowest", range->first);
    const std::string highest = add_scalar_constant(graph, base + "/highest", range->second);
    v = append_node(graph, added, "Clip", base + "/saturated", {v, lowest, highest}, shape);
    if (dequantize->zero != 0) {
      const std::string zero = add_scalar_constant(graph, base + "/dq_zero", dequantize->zero);
      v = append_node(graph, added, "Sub", base + "/centred", {v, zero}, shape);
    }
    Node scaled = single_output_node("Mul", {v, dequantize->scale}, dq.outputs[0]);
    scaled.name = unique_value_name(graph, base + "/scaled");
    added.push_back(std::move(scaled));
    replaced.push_back(dq.name);
    // An 8-bit pair of one scale and zero point read by a product by weights dequantized
    // from integers: that product may quantize x itself, its A either the pair's output or
    // the integers less the zero point where the scale folds into its alpha.
    const DType integers = graph.type_of(q->outputs[0]).dtype;
    const bool one_quantization = *scalar_f32_constant(graph, quantize->scale) ==
                                      *scalar_f32_constant(graph, dequantize->scale) &&
                                  quantize->zero == dequantize->zero;
    const bool eight_bits = one_quantization && (integers == DType::u8 || integers == DType::i8);
    const std::string& y = dq.outputs[0];
    const bool product_input = note_product_inputs && reads_into_quantized_weights(graph, y, {"MatMul", "Gemm"});
    const bool conv_input = note_conv_inputs && reads_into_quantized_weights(graph, y, {"Conv"});
    if (eight_bits && (product_input || conv_input)) {
      QuantizedOrigin origin;
      origin.x = q->inputs[0];
      // Where the pair's kernel stays for other readers, the convs quantize its output again
      // (the same integers), and x, no longer a value of its own, fuses with the pair: a QDQ
      // ResNet's residual Add and the pair after it ran as two kernels.
      if (convs_read_shared_pairs && !product_input && read_beside_quantized_convs(graph, y)) origin.x = y;
      origin.scale_value = *scalar_f32_constant(graph, quantize->scale);
      origin.zero_point = static_cast<int>(quantize->zero) + (integers == DType::i8 ? 128 : 0);
      graph.set_quantized_origin(dq.outputs[0], origin);
      origin.scaled = false;
      if (product_input) graph.set_quantized_origin(v, origin);
    }
  }
  if (replaced.empty()) return;
  erase_named_nodes(graph, replaced);
  auto& nodes = graph.nodes();
  // QuantizeLinears nothing reads any more go, with their outputs.
  std::vector<std::string> unread;
  for (const Node& n : nodes) {
    if (n.op == "QuantizeLinear" && graph.consumers(n.outputs[0]).empty() && !graph.is_output(n.outputs[0])) {
      unread.push_back(n.outputs[0]);
    }
  }
  nodes.erase(std::remove_if(nodes.begin(), nodes.end(),
                             [&](const Node& n) {
                               return n.op == "QuantizeLinear" &&
                                      std::find(unread.begin(), unread.end(), n.outputs[0]) != unread.end();
                             }),
              nodes.end());
  for (const std::string& value : unread) graph.remove_value(value);
  for (Node& n : added) graph.add_node(std::move(n));
  graph.sort_topologically();
}

}  // namespace nee
