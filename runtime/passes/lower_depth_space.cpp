#include <string>
#include <vector>

#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

void lower_depth_space(Graph& graph) {
  std::vector<Node> added;
  for (Node& node : graph.nodes()) {
    if (node.op != "DepthToSpace" && node.op != "SpaceToDepth") continue;
    const TensorType x = graph.type_of(node.inputs[0]);
    const int64_t b = node.attrs.get_int("blocksize");
    const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
    const bool dcr = node.attrs.get_string("mode", "DCR") == "DCR";
    std::vector<int64_t> view, perm;
    if (node.op == "SpaceToDepth") {
      view = {n, c, h / b, b, w / b, b};
      perm = dcr ? std::vector<int64_t>{0, 3, 5, 1, 2, 4} : std::vector<int64_t>{0, 1, 3, 5, 2, 4};
    } else if (dcr) {
      view = {n, b, b, c / (b * b), h, w};
      perm = {0, 3, 4, 1, 5, 2};
    } else {
      view = {n, c / (b * b), b, b, h, w};
      perm = {0, 1, 4, 2, 5, 3};
    }
    std::vector<int64_t> moved;
    for (int64_t d : perm) moved.push_back(view[static_cast<size_t>(d)]);
    const std::string base = node.name + ".lowered";
    Node viewed = reshape_view(graph, node.inputs[0], unique_value_name(graph, base + "/view"), view);
    const std::string copied = unique_value_name(graph, base + "/copied");
    graph.add_value(copied, TensorType{x.dtype, moved});
    Node transpose = single_output_node("Transpose", {viewed.outputs[0]}, copied);
    transpose.attrs.set("perm", perm);
    const std::string output = node.outputs[0];
    const std::string shape =
        add_shape_constant(graph, unique_value_name(graph, base + ".shape"), graph.type_of(output).shape);
    node = single_output_node("Reshape", {copied, shape}, output);
    node.name = unique_value_name(graph, base);
    added.push_back(std::move(viewed));
    added.push_back(std::move(transpose));
  }
  if (added.empty()) return;
  for (Node& n : added) graph.add_node(std::move(n));
  graph.sort_topologically();
}

}  // namespace nee
