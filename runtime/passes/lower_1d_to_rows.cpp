#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

namespace {

// [N, C, L] -> [N, C, 1, L].
std::vector<int64_t> as_rows(const std::vector<int64_t>& shape) { return {shape[0], shape[1], 1, shape[2]}; }

}  // namespace

void lower_1d_to_rows(Graph& graph) {
  std::map<std::string, std::string> rows_of;  // per lowered node's result, its rows
  std::vector<Node> added;
  // `value` [N, C, L] as [N, C, 1, L]: a lowered node's own output, else a view.
  const auto rows = [&](const std::string& value) {
    const auto it = rows_of.find(value);
    if (it != rows_of.end()) return it->second;
    const std::string name = unique_value_name(graph, value + ".rows");
    added.push_back(reshape_view(graph, value, name, as_rows(graph.type_of(value).shape)));
    return name;
  };
  for (Node& node : graph.nodes()) {
    const bool conv = node.op == "NeeConv";
    const bool pool = (node.op == "MaxPool" || node.op == "AveragePool") && node.outputs.size() == 1 &&
                      node.attrs.get_ints("kernel_shape").size() == 1;
    if ((!conv && !pool) || graph.type_of(node.inputs[0]).shape.size() != 3 ||
        graph.type_of(node.inputs[0]).dtype != DType::f32) {
      continue;
    }
    node.inputs[0] = rows(node.inputs[0]);
    if (conv) {
      const Tensor& kernel = *f32_constant(graph, node.inputs[1]);
      Tensor w(DType::f32, as_rows(kernel.shape()));
      std::copy_n(kernel.data_as<float>(), kernel.elements(), w.data_as<float>());
      node.inputs[1] = add_named_constant(graph, node.inputs[1] + ".rows", w);
      if (node.attrs.get_int("residual")) {
        std::string& residual = node.inputs[node.attrs.get_int("bias") ? 3 : 2];
        residual = rows(residual);
      }
    }
    node.attrs.set("kernel_shape", std::vector<int64_t>{1, node.attrs.get_ints("kernel_shape")[0]});
    node.attrs.set("strides", std::vector<int64_t>{1, node.attrs.get_ints("strides")[0]});
    node.attrs.set("dilations", std::vector<int64_t>{1, node.attrs.get_ints("dilations", {1})[0]});
    const std::vector<int64_t> pads = node.attrs.get_ints("pads");
    node.attrs.set("pads", std::vector<int64_t>{0, pads[0], 0, pads[1]});
    const std::string result = node.outputs[0];
    const std::string flat = unique_value_name(graph, result + ".rows");
    graph.add_value(flat, TensorType{DType::f32, as_rows(graph.type_of(result).shape)});
    node.outputs[0] = flat;
    rows_of[result] = flat;
    // The result as the model shapes it, for readers other than lowered nodes; named
    // after the lowered node, since passes tell nodes apart by name and a model may name a
    // node after its output.
    Node view = single_output_node(
        "Reshape",
        {flat, add_shape_constant(graph, unique_value_name(graph, result + ".shape"), graph.type_of(result).shape)},
        result);
    view.name = node.name + ".in_model_shape";
    added.push_back(std::move(view));
  }
  if (added.empty()) return;
  for (Node& node : added) graph.add_node(std::move(node));
  drop_unread_copies(graph);
  graph.sort_topologically();
}

}  // namespace nee
