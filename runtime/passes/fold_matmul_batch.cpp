#include <string>
#include <vector>

#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

void fold_matmul_batch(Graph& graph) {
  std::vector<Node> added;
  for (Node& node : graph.nodes()) {
    if (node.op != "NeeMatMul" || node.attrs.get_int("trans_a", 0) != 0) continue;
    const TensorType& a = graph.type_of(node.inputs[0]);
    const TensorType& b = graph.type_of(node.inputs[1]);
    const std::string y = node.outputs[0];
    const TensorType y_type = graph.type_of(y);
    if (a.shape.size() < 3 || b.shape.size() != 2 || y_type.shape.size() != a.shape.size()) continue;
    // A bias C must broadcast along rows only, so it reads the same in the 2-D product.
    if (node.inputs.size() > 2 && !node.inputs[2].empty() && graph.type_of(node.inputs[2]).shape.size() > 1) continue;
    int64_t rows = 1;
    for (size_t i = 0; i + 1 < a.shape.size(); ++i) rows *= a.shape[i];
    const std::string a_rows = node.inputs[0] + ".rows";
    if (!graph.has_value(a_rows)) added.push_back(reshape_view(graph, node.inputs[0], a_rows, {rows, a.shape.back()}));
    node.inputs[0] = a_rows;
    const std::string y_rows = y + ".rows";
    graph.add_value(y_rows, TensorType{y_type.dtype, {rows, y_type.shape.back()}});
    node.outputs[0] = y_rows;
    added.push_back(reshape_view(graph, y_rows, y, y_type.shape));
  }
  for (Node& n : added) graph.add_node(std::move(n));
  graph.sort_topologically();
}

}  // namespace nee
