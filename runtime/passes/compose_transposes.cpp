#include <algorithm>
#include <string>
#include <vector>

#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"
#include "runtime/passes/transpose_chains.h"

namespace nee {

void compose_transposes(Graph& graph) {
  std::vector<std::string> erased, removed;
  std::vector<Node> added;
  for (const Node& head : graph.nodes()) {
    if (!chains(head)) continue;
    const Node* before = graph.producer(head.inputs[0]);
    if (before && chains(*before) && chain_from(graph, *before).size() > 1) continue;  // not a chain's head
    const std::vector<const Node*> chain = chain_from(graph, head);
    const auto transposes = std::count_if(chain.begin(), chain.end(), [](const Node* n) { return !is_view(*n); });
    if (transposes < 2) continue;
    const std::string& source = head.inputs[0];
    FactoredIndex index(graph.type_of(source).shape);
    if (!follow(graph, chain, index)) continue;
    std::vector<int64_t> source_shape, perm;
    index.as_transpose(source_shape, perm);
    const std::string result = chain.back()->outputs[0];
    for (const Node* n : chain) {
      erased.push_back(n->name);
      if (n != chain.back()) removed.push_back(n->outputs[0]);
    }
    // An identity perm leaves a view of the source alone.
    const bool copies = !std::is_sorted(perm.begin(), perm.end());
    std::string from = source;
    if (copies && graph.type_of(source).shape != source_shape) {
      added.push_back(reshape_view(graph, source, unique_value_name(graph, result + ".composed/source"), source_shape));
      from = added.back().outputs[0];
    }
    if (copies) {
      std::vector<int64_t> out_shape(perm.size());
      for (size_t k = 0; k < perm.size(); ++k) out_shape[k] = source_shape[static_cast<size_t>(perm[k])];
      const std::string copied = unique_value_name(graph, result + ".composed/copied");
      graph.add_value(copied, TensorType{graph.type_of(source).dtype, out_shape});
      Node transpose = single_output_node("Transpose", {from}, copied);
      transpose.attrs.set("perm", perm);
      added.push_back(std::move(transpose));
      from = copied;
    }
    const std::string shape =
        add_shape_constant(graph, unique_value_name(graph, result + ".composed.shape"), graph.type_of(result).shape);
    Node last = single_output_node("Reshape", {from, shape}, result);
    last.name = unique_value_name(graph, result + ".composed");
    added.push_back(std::move(last));
  }
  if (erased.empty()) return;
  erase_named_nodes(graph, erased);
  for (const std::string& v : removed) graph.remove_value(v);
  for (Node& n : added) graph.add_node(std::move(n));
  graph.sort_topologically();
}

}  // namespace nee
