#include <algorithm>
#include <cfloat>
#include <string>
#include <vector>

#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

namespace {

// `value` cast to a new f32 value named after `base`, the Cast added to `added`.
std::string cast_to_f32(Graph& graph, const std::string& value, const std::string& base, std::vector<Node>& added) {
  const std::string name =
      append_node(graph, added, "Cast", base, {value}, TensorType{DType::f32, graph.type_of(value).shape});
  added.back().attrs.set("to", int64_t{1});  // ONNX's FLOAT
  return name;
}

// B - b_zero_point as an f32 constant, its integers noted as its origin (a scale of 1 per
// tensor or per column), so quantize_matmul_weights packs them as they are.
std::string integer_weights(Graph& graph, const Tensor& b, const Tensor* zero_point, const std::string& base) {
  DequantizedOrigin origin;
  origin.x = b;
  const bool per_column = zero_point && zero_point->elements() != 1;
  origin.scale = Tensor(DType::f32, per_column ? zero_point->shape() : std::vector<int64_t>{});
  std::fill_n(origin.scale.data_as<float>(), origin.scale.elements(), 1.0f);
  if (zero_point) origin.zero_point = *zero_point;
  origin.axis = 1;
  const int64_t columns = b.shape()[1];
  Tensor weights(DType::f32, b.shape());
  for (int64_t i = 0; i < b.elements(); ++i) {
    const int zero = zero_point ? byte_integer_at(*zero_point, per_column ? i % columns : 0) : 0;
    weights.data_as<float>()[i] = static_cast<float>(byte_integer_at(b, i) - zero);
  }
  const std::string name = add_named_constant(graph, base, weights);
  graph.set_dequantized_origin(name, std::move(origin));
  return name;
}

// W - w_zero_point as an f32 constant (the zero point one value or one per output channel,
// W's first dim), for a Conv; its integers noted as its origin (a scale of 1), so
// quantize_conv_activations packs them as they are.
std::string centred_conv_weights(Graph& graph, const Tensor& w, const Tensor* zero_point, const std::string& base) {
  const int64_t per_channel = w.elements() / w.shape()[0];
  Tensor weights(DType::f32, w.shape());
  for (int64_t i = 0; i < w.elements(); ++i) {
    const int64_t zero_index = zero_point && zero_point->elements() != 1 ? i / per_channel : 0;
    const int zero = zero_point ? byte_integer_at(*zero_point, zero_index) : 0;
    weights.data_as<float>()[i] = static_cast<float>(byte_integer_at(w, i) - zero);
  }
  const std::string name = add_named_constant(graph, base, weights);
  if (w.shape().size() == 4) {
    DequantizedOrigin origin;
    origin.x = w;
    origin.scale = Tensor(DType::f32, zero_point ? zero_point->shape() : std::vector<int64_t>{});
    std::fill_n(origin.scale.data_as<float>(), origin.scale.elements(), 1.0f);
    if (zero_point) origin.zero_point = *zero_point;
    origin.axis = 0;
    graph.set_dequantized_origin(name, std::move(origin));
  }
  return name;
}

// A - a_zero_point in f32 where DynamicQuantizeLinear(x) made both: computed from x as
// clip(round(x / scale) + zero, 0, 255) - zero, the quantization's own steps in f32, which
// fuse_elementwise runs as one kernel, where a Cast of the bytes and a Sub each ran on
// the reference kernels (5.7 ms of a dynamically quantized MobileNetV2's 18.8).
std::string centred_from_float(Graph& graph, const Node& quantize, const std::string& zero,
                               std::vector<Node>& added) {
  const TensorType shape{DType::f32, graph.type_of(quantize.inputs[0]).shape};
  const std::string base = quantize.name + ".centred";
  // A tensor of zeros has scale 0 (and zero point 0): x / FLT_MIN keeps its zeros where
  // x / 0 would make NaNs.
  const std::string least = add_scalar_constant(graph, base + "/least_scale", FLT_MIN);
  const std::string scale =
      append_node(graph, added, "Max", base + "/scale", {quantize.outputs[1], least}, TensorType{DType::f32, {}});
  std::string v = append_node(graph, added, "Div", base + "/divided", {quantize.inputs[0], scale}, shape);
  v = append_node(graph, added, "Round", base + "/rounded", {v}, shape);
  v = append_node(graph, added, "Add", base + "/shifted", {v, zero}, shape);
  const std::string lowest = add_scalar_constant(graph, base + "/lowest", 0);
  const std::string highest = add_scalar_constant(graph, base + "/highest", 255);
  v = append_node(graph, added, "Clip", base + "/saturated", {v, lowest, highest}, shape);
  return append_node(graph, added, "Sub", base + "/centred", {v, zero}, shape);
}

}  // namespace

void integer_products_as_float(Graph& graph) {
  std::vector<Node> added;
  std::vector<std::string> removed;  // the Casts after rewritten products
  for (Node& node : graph.nodes()) {
    const bool conv = node.op == "ConvInteger";
    if ((node.op != "MatMulInteger" && !conv) || graph.is_output(node.outputs[0])) continue;
    const Tensor* b = graph.constant(node.inputs[1]);
    const std::string a_zero = node.inputs.size() > 2 ? node.inputs[2] : "";
    const std::string b_zero = node.inputs.size() > 3 ? node.inputs[3] : "";
    const Tensor* b_zero_point = b_zero.empty() ? nullptr : graph.constant(b_zero);
    if (!b || (!conv && b->shape().size() != 2) || graph.type_of(node.inputs[0]).shape.size() < 2) continue;
    if (!a_zero.empty() && graph.type_of(a_zero).elements() != 1) continue;  // one per row of A (MatMulInteger)
    if (!b_zero.empty() && !b_zero_point) continue;
    const std::vector<const Node*> readers = graph.consumers(node.outputs[0]);
    if (readers.size() != 1 || readers[0]->op != "Cast" || graph.type_of(readers[0]->outputs[0]).dtype != DType::f32) {
      continue;
    }
    const Node& cast = *readers[0];
    const Node* quantize = graph.producer(node.inputs[0]);
    const bool dynamic = quantize && quantize->op == "DynamicQuantizeLinear" && quantize->outputs.size() == 3 &&
                         quantize->outputs[0] == node.inputs[0] && quantize->outputs[2] == a_zero;
    std::string a;
    if (dynamic) {
      a = centred_from_float(graph, *quantize, cast_to_f32(graph, a_zero, node.name + ".a_zero_float", added), added);
      graph.set_quantized_origin(a, QuantizedOrigin{quantize->inputs[0], quantize->outputs[1], a_zero, 1, 0, false});
    } else {
      a = cast_to_f32(graph, node.inputs[0], node.name + ".a_float", added);
    }
    if (!dynamic && !a_zero.empty()) {
      const std::string zero = cast_to_f32(graph, a_zero, node.name + ".a_zero_float", added);
      a = append_node(graph, added, "Sub", node.name + ".a_centred", {a, zero}, graph.type_of(a));
    }
    const std::string product = node.outputs[0], b_name = node.inputs[1];
    // A Conv keeps ConvInteger's attributes; its padding adds zeros to the centred input,
    // as ConvInteger's adds x_zero_point to the uncentred one.
    const std::string weights = conv ? centred_conv_weights(graph, *b, b_zero_point, b_name + ".centred")
                                     : integer_weights(graph, *b, b_zero_point, b_name + ".centred");
    node.op = conv ? "Conv" : "MatMul";
    node.inputs = {a, weights};
    node.outputs = cast.outputs;
    if (!conv) node.attrs = Attributes{};
    removed.push_back(cast.name);
    graph.remove_value(product);
    for (const std::string& integers : {b_name, b_zero}) {
      if (!integers.empty() && graph.consumers(integers).empty() && !graph.is_output(integers)) {
        graph.remove_value(integers);
      }
    }
  }
  if (added.empty()) return;
  erase_named_nodes(graph, removed);
  for (Node& n : added) graph.add_node(std::move(n));
  // The bytes of a DynamicQuantizeLinear whose products now read x are not made at all.
  for (Node& n : graph.nodes()) {
    if (n.op != "DynamicQuantizeLinear" || n.outputs[0].empty() || graph.is_output(n.outputs[0])) continue;
    if (graph.consumers(n.outputs[0]).empty()) {
      graph.remove_value(n.outputs[0]);
      n.outputs[0].clear();
    }
  }
  graph.sort_topologically();
}

}  // namespace nee
