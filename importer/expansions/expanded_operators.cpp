#include "importer/expansions/expanded_operators.h"

#include <fmt/format.h>

#include <map>

#include "core/error.h"

namespace nee {

namespace {

// Each operator's first opset: an older model cannot hold it.
const std::map<std::string, int64_t>& first_opsets() {
  static const std::map<std::string, int64_t> opsets = {
      {"AffineGrid", 20},     {"Attention", 23},       {"CenterCropPad", 18}, {"GroupNormalization", 18},
      {"GlobalLpPool", 1},    {"LpNormalization", 1}, {"LpPool", 1},           {"RotaryEmbedding", 23},
      {"SwiGLU", 28},         {"TensorScatter", 24},   {"CausalConvWithState", 27}};
  return opsets;
}

}  // namespace

const std::set<std::string>& expanded_operators() {
  static const std::set<std::string> ops = [] {
    std::set<std::string> names;
    for (const auto& [op, opset] : first_opsets()) names.insert(op);
    return names;
  }();
  return ops;
}

bool is_expanded_operator(const std::string& op) { return expanded_operators().count(op) != 0; }

std::vector<Node> expand_operator(Graph& graph, const Node& node, int64_t opset) {
  const auto first = first_opsets().find(node.op);
  if (first != first_opsets().end() && opset < first->second) {
    throw Error(fmt::format("{} is an operator of opset {} and later; the model declares opset {}", node.op,
                            first->second, opset));
  }
  if (node.op == "Attention") return expand_attention(graph, node);
  if (node.op == "RotaryEmbedding") return expand_rotary_embedding(graph, node);
  if (node.op == "SwiGLU") return expand_swiglu(graph, node);
  if (node.op == "GroupNormalization") return expand_group_normalization(graph, node, opset);
  if (node.op == "LpNormalization") return expand_lp_normalization(graph, node, opset);
  if (node.op == "LpPool") return expand_lp_pool(graph, node, opset);
  if (node.op == "GlobalLpPool") return expand_global_lp_pool(graph, node, opset);
  if (node.op == "CenterCropPad") return expand_center_crop_pad(graph, node, opset);
  if (node.op == "AffineGrid") return expand_affine_grid(graph, node, opset);
  if (node.op == "TensorScatter") return expand_tensor_scatter(graph, node);
  if (node.op == "CausalConvWithState") return expand_causal_conv_with_state(graph, node);
  throw Error(fmt::format("'{}' is not an operator the importer expands", node.op));
}

}  // namespace nee
