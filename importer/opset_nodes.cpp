#include "importer/opset_nodes.h"

namespace nee {

Node axes_node(Graph& graph, const std::string& op, const std::string& name, const std::string& input,
               const std::string& output, int64_t axis, int64_t opset) {
  Node node{op, name, {input}, {output}, {}};
  if (opset < 13) {
    node.attrs.set("axes", std::vector<int64_t>{axis});
    return node;
  }
  const std::string axes = name + "/axes";
  if (!graph.has_value(axes)) {
    Tensor t(DType::i64, {1});
    *t.data_as<int64_t>() = axis;
    graph.add_constant(axes, t);
  }
  node.inputs.push_back(axes);
  return node;
}

}  // namespace nee
