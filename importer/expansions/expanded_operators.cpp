#include "importer/expansions/expanded_operators.h"

#include <fmt/format.h>

#include "core/error.h"

namespace nee {

const std::set<std::string>& expanded_operators() {
  static const std::set<std::string> ops = {"Attention", "RotaryEmbedding"};
  return ops;
}

bool is_expanded_operator(const std::string& op) { return expanded_operators().count(op) != 0; }

std::vector<Node> expand_operator(Graph& graph, const Node& node, int64_t opset) {
  // Both appeared in opset 23: an older model cannot hold them.
  constexpr int64_t kFirstOpset = 23;
  if (opset < kFirstOpset) {
    throw Error(fmt::format("{} is an operator of opset {} and later; the model declares opset {}", node.op,
                            kFirstOpset, opset));
  }
  if (node.op == "Attention") return expand_attention(graph, node);
  if (node.op == "RotaryEmbedding") return expand_rotary_embedding(graph, node);
  throw Error(fmt::format("'{}' is not an operator the importer expands", node.op));
}

}  // namespace nee
