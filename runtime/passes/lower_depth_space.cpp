#include <string>
#include <vector>

#include "core/depth_space_move.h"
#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

void lower_depth_space(Graph& graph) {
  std::vector<Node> added;
  for (Node& node : graph.nodes()) {
    if (node.op != "DepthToSpace" && node.op != "SpaceToDepth") continue;
    const TensorType x = graph.type_of(node.inputs[0]);
    const DepthSpaceMove move = depth_space_move(node.op == "DepthToSpace", node.attrs.get_string("mode", "DCR"),
                                                 node.attrs.get_int("blocksize"), x.shape);
    const std::vector<int64_t>& view = move.view;
    const std::vector<int64_t>& perm = move.perm;
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
