#include <string>
#include <utility>
#include <vector>

#include "runtime/passes/passes.h"

namespace nee {

void means_as_global_pools(Graph& graph) {
  std::vector<Node> flattens;
  for (Node& node : graph.nodes()) {
    if (node.op != "ReduceMean" || node.inputs.size() != 1) continue;
    const TensorType x = graph.type_of(node.inputs[0]);
    if (x.dtype != DType::f32 || x.shape.size() != 4 || node.attrs.get_ints("axes") != std::vector<int64_t>{2, 3}) {
      continue;
    }
    const bool keep_dims = node.attrs.get_int("keepdims", 1) != 0;
    node.op = "GlobalAveragePool";
    node.attrs = Attributes();
    if (keep_dims) continue;
    // [N, C, 1, 1], then flattened to the mean's [N, C].
    const std::string pooled = node.outputs[0] + ".pooled";
    graph.add_value(pooled, TensorType{DType::f32, {x.shape[0], x.shape[1], 1, 1}});
    Node flatten;
    flatten.op = "Flatten";
    flatten.name = pooled + ".flatten";
    flatten.inputs = {pooled};
    flatten.outputs = {node.outputs[0]};
    flatten.attrs.set("axis", int64_t{1});
    node.outputs[0] = pooled;
    flattens.push_back(std::move(flatten));
  }
  if (flattens.empty()) return;
  for (Node& f : flattens) graph.add_node(std::move(f));
  graph.sort_topologically();
}

}  // namespace nee
