#include <string>
#include <vector>

#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

namespace {

// An operand shape aligned with [N, C, L], as aligned with the rows [N, C, 1, L]: a 1
// before its last dim (a scalar or a vector along L broadcasts the same either way).
std::vector<int64_t> as_rows(std::vector<int64_t> shape) {
  if (shape.size() >= 2) shape.insert(shape.end() - 1, 1);
  return shape;
}

// The rows [N, C, 1, L] that a Reshape viewed as `value` [N, C, L], or "".
std::string rows_source(const Graph& graph, const std::string& value) {
  const Node* view = graph.producer(value);
  if (!view || view->op != "Reshape") return "";
  return graph.type_of(view->inputs[0]).shape == as_rows(graph.type_of(value).shape) ? view->inputs[0] : "";
}

// Readers of a Reshape of a Reshape back to the first one's input shape read that input.
void skip_round_trips(Graph& graph) {
  for (const Node& node : graph.nodes()) {
    if (node.op != "Reshape" || graph.is_output(node.outputs[0])) continue;
    const Node* first = graph.producer(node.inputs[0]);
    if (first && first->op == "Reshape" &&
        graph.type_of(first->inputs[0]).shape == graph.type_of(node.outputs[0]).shape) {
      graph.replace_uses(node.outputs[0], first->inputs[0]);
    }
  }
}

}  // namespace

void elementwise_over_rows(Graph& graph, bool group_norms) {
  bool changed = false;
  // Each node's views join the graph before the next node is looked at, so a chain (a
  // PRelu, then a group norm) moves node by node; by index, since they append to it.
  const size_t original_nodes = graph.nodes().size();
  for (size_t index = 0; index < original_nodes; ++index) {
    std::vector<Node> added;
    Node& node = graph.nodes()[index];
    const bool norm = group_norms && node.op == "NeeGroupNorm";
    if (node.op != "NeeElementwise" && !norm) continue;
    const TensorType y = graph.type_of(node.outputs[0]);
    if (y.dtype != DType::f32 || y.shape.size() != 3) continue;
    // A group norm's scale and bias hold one value a channel, in any layout.
    const size_t data_inputs = norm ? 1 : node.inputs.size();
    bool reads_rows = false;
    for (size_t i = 0; i < data_inputs; ++i) {
      const std::string& in = node.inputs[i];
      reads_rows = reads_rows || (graph.type_of(in).shape == y.shape && !rows_source(graph, in).empty());
    }
    if (!reads_rows) continue;
    for (size_t i = 0; i < data_inputs; ++i) {
      std::string& in = node.inputs[i];
      const std::vector<int64_t> shape = graph.type_of(in).shape;
      const std::string source = shape == y.shape ? rows_source(graph, in) : "";
      if (!source.empty()) {
        in = source;
      } else if (shape.size() >= 2) {
        const std::string rows = unique_value_name(graph, in + ".rows");
        added.push_back(reshape_view(graph, in, rows, as_rows(shape)));
        in = rows;
      }
    }
    // The node writes rows; its result as the model shapes it is their view, named after
    // the node (passes tell nodes apart by name, and a model may name a node after its
    // output).
    const std::string result = node.outputs[0];
    const std::string rows = unique_value_name(graph, result + ".rows");
    graph.add_value(rows, TensorType{DType::f32, as_rows(y.shape)});
    node.outputs[0] = rows;
    graph.remove_value(result);
    added.push_back(reshape_view(graph, rows, result, y.shape));
    added.back().name = node.name + ".in_model_shape";
    for (Node& view : added) graph.add_node(std::move(view));
    changed = true;
  }
  if (!changed) return;
  graph.sort_topologically();
  skip_round_trips(graph);
  drop_unread_copies(graph);
}

}  // namespace nee
