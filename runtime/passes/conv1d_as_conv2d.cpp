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

void conv1d_as_conv2d(Graph& graph) {
  std::map<std::string, std::string> rows_of;  // per lowered conv's result, its rows
  std::vector<Node> added;
  // `value` [N, C, L] as [N, C, 1, L]: a lowered conv's own output, else a view.
  const auto rows = [&](const std::string& value, const std::string& base) {
    const auto it = rows_of.find(value);
    if (it != rows_of.end()) return it->second;
    const std::string name = unique_value_name(graph, base);
    added.push_back(reshape_view(graph, value, name, as_rows(graph.type_of(value).shape)));
    return name;
  };
  for (Node& conv : graph.nodes()) {
    if (conv.op != "NeeConv" || graph.type_of(conv.inputs[0]).shape.size() != 3) continue;
    conv.inputs[0] = rows(conv.inputs[0], conv.inputs[0] + ".rows");
    const Tensor& kernel = *f32_constant(graph, conv.inputs[1]);
    Tensor w(DType::f32, as_rows(kernel.shape()));
    std::copy_n(kernel.data_as<float>(), kernel.elements(), w.data_as<float>());
    const std::string weights = unique_value_name(graph, conv.inputs[1] + ".rows");
    graph.add_constant(weights, w);
    conv.inputs[1] = weights;
    if (conv.attrs.get_int("residual")) {
      std::string& residual = conv.inputs[conv.attrs.get_int("bias") ? 3 : 2];
      residual = rows(residual, residual + ".rows");
    }
    conv.attrs.set("kernel_shape", std::vector<int64_t>{1, conv.attrs.get_ints("kernel_shape")[0]});
    conv.attrs.set("strides", std::vector<int64_t>{1, conv.attrs.get_ints("strides")[0]});
    conv.attrs.set("dilations", std::vector<int64_t>{1, conv.attrs.get_ints("dilations")[0]});
    const std::vector<int64_t> pads = conv.attrs.get_ints("pads");
    conv.attrs.set("pads", std::vector<int64_t>{0, pads[0], 0, pads[1]});
    const std::string result = conv.outputs[0];
    const std::string flat = unique_value_name(graph, result + ".rows");
    graph.add_value(flat, TensorType{DType::f32, as_rows(graph.type_of(result).shape)});
    conv.outputs[0] = flat;
    rows_of[result] = flat;
    // The result as the model shapes it, for readers other than lowered convs.
    Node view;
    view.op = "Reshape";
    view.name = result;
    view.inputs = {flat, add_shape_constant(graph, unique_value_name(graph, result + ".shape"),
                                            graph.type_of(result).shape)};
    view.outputs = {result};
    added.push_back(std::move(view));
  }
  if (added.empty()) return;
  for (Node& node : added) graph.add_node(std::move(node));
  drop_unread_copies(graph);
  graph.sort_topologically();
}

}  // namespace nee
