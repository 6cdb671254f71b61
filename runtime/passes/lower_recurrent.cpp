#include <algorithm>
#include <string>
#include <vector>

#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"
#include "runtime/reference/recurrent_weights.h"

namespace nee {

namespace {

// The node's input at `slot`, or "" where it has none.
std::string input_at(const Node& node, size_t slot) { return slot < node.inputs.size() ? node.inputs[slot] : ""; }

bool lowerable(const Graph& graph, const Node& node) {
  if (node.op != "RNN" && node.op != "GRU" && node.op != "LSTM") return false;
  const TensorType& x = graph.type_of(node.inputs[0]);
  const std::string bias = input_at(node, 3);
  const auto known_dim = [](int64_t d) { return d > 0; };
  const bool known = x.shape.size() == 3 && std::all_of(x.shape.begin(), x.shape.end(), known_dim);
  return x.dtype == DType::f32 && known && f32_constant(graph, node.inputs[1]) &&
         f32_constant(graph, node.inputs[2]) && (bias.empty() || f32_constant(graph, bias));
}

}  // namespace

void lower_recurrent(Graph& graph) {
  std::vector<Node> added;
  for (Node& node : graph.nodes()) {
    if (!lowerable(graph, node)) continue;
    const std::vector<int64_t> x = graph.type_of(node.inputs[0]).shape;
    const Tensor& w = *f32_constant(graph, node.inputs[1]);
    const int64_t dirs = w.shape()[0], rows = w.shape()[1], hidden = node.attrs.get_int("hidden_size");
    const int64_t gates = rows / hidden;
    const bool gru = node.op == "GRU";
    const Tensor* b = f32_constant(graph, input_at(node, 3));

    // The projection of every step: X viewed [S * B, I] times W^T, plus the biases.
    const std::string rows_view = unique_value_name(graph, node.name + ".steps");
    added.push_back(reshape_view(graph, node.inputs[0], rows_view, {x[0] * x[1], x[2]}));
    const std::string projection = unique_value_name(graph, node.name + ".projection");
    graph.add_value(projection, TensorType{DType::f32, {x[0] * x[1], dirs * rows}});
    added.push_back(single_output_node(
        "Gemm",
        {rows_view, add_named_constant(graph, node.name + ".input_weights", recurrent_input_weights(w)),
         add_named_constant(graph, node.name + ".input_bias", recurrent_input_bias(b, dirs, gates, hidden, gru))},
        projection));
    const std::string projected = unique_value_name(graph, node.name + ".projected");
    added.push_back(reshape_view(graph, projection, projected, {x[0], x[1], dirs * rows}));

    Node recurrence = node;
    recurrence.op = "NeeRecurrence";
    recurrence.attrs.set("cell", node.op);
    recurrence.inputs = {projected,
                         add_named_constant(graph, node.name + ".recurrent_weights",
                                            recurrent_weights_packed(*f32_constant(graph, node.inputs[2]))),
                         gru ? add_named_constant(graph, node.name + ".candidate_bias",
                                                  recurrent_candidate_bias(b, dirs, hidden))
                             : "",
                         "", input_at(node, 4), input_at(node, 5), input_at(node, 6), input_at(node, 7)};
    while (!recurrence.inputs.empty() && recurrence.inputs.back().empty()) recurrence.inputs.pop_back();
    const std::vector<std::string> replaced = {node.inputs[1], node.inputs[2], input_at(node, 3)};
    node = std::move(recurrence);
    for (const std::string& c : replaced) remove_if_unread(graph, c);
  }
  for (Node& n : added) graph.add_node(std::move(n));
  graph.sort_topologically();
}

}  // namespace nee
