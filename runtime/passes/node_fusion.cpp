#include "runtime/passes/node_fusion.h"

#include <algorithm>

namespace nee {

void fuse_into_consumer(Graph& graph, std::vector<bool>& fused_away, size_t producer, size_t consumer, Node fused) {
  auto& nodes = graph.nodes();
  const std::string intermediate = nodes[producer].outputs[0];
  fused.outputs = nodes[consumer].outputs;
  nodes[consumer] = std::move(fused);
  fused_away[producer] = true;
  graph.remove_value(intermediate);
}

void erase_fused(Graph& graph, const std::vector<bool>& fused_away) {
  auto& nodes = graph.nodes();
  std::vector<Node> kept;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!fused_away[i]) kept.push_back(std::move(nodes[i]));
  }
  nodes = std::move(kept);
}

void fuse_chain(Graph& graph, std::vector<bool>& fused_away, const std::vector<const Node*>& members, Node fused) {
  auto& nodes = graph.nodes();
  size_t last = 0;
  for (const Node* member : members) {
    const size_t index = static_cast<size_t>(member - nodes.data());
    fused_away[index] = true;
    last = std::max(last, index);
  }
  for (const Node* member : members) {
    if (member->outputs[0] != fused.outputs[0]) graph.remove_value(member->outputs[0]);
  }
  nodes[last] = std::move(fused);
  fused_away[last] = false;
}

void replace_nodes(Graph& graph, std::map<size_t, std::vector<Node>>& replacements) {
  std::vector<Node>& nodes = graph.nodes();
  std::vector<Node> rebuilt;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const auto replaced = replacements.find(i);
    if (replaced == replacements.end()) {
      rebuilt.push_back(std::move(nodes[i]));
    } else {
      for (Node& node : replaced->second) rebuilt.push_back(std::move(node));
    }
  }
  nodes = std::move(rebuilt);
}

}  // namespace nee
