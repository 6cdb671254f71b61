#include "importer/expansions/expanded_operators.h"

#include <fmt/format.h>

#include <map>

#include "core/error.h"

namespace nee {

namespace {

using Expansion = std::vector<Node> (*)(Graph& graph, const Node& node, int64_t opset);

struct ExpandedOperator {
  int64_t first_opset;  // an older model cannot hold the operator
  Expansion expand;
};

const std::map<std::string, ExpandedOperator>& operator_table() {
  static const std::map<std::string, ExpandedOperator> table = {
      {"AffineGrid", {20, expand_affine_grid}},
      {"Attention", {23, expand_attention}},
      {"CausalConvWithState", {27, expand_causal_conv_with_state}},
      {"CenterCropPad", {18, expand_center_crop_pad}},
      {"DeformConv", {19, expand_deform_conv}},
      {"GlobalLpPool", {1, expand_global_lp_pool}},
      {"GroupNormalization", {18, expand_group_normalization}},
      {"LpNormalization", {1, expand_lp_normalization}},
      {"LpPool", {1, expand_lp_pool}},
      {"OptionalGetElement", {15, expand_optional_get_element}},
      {"OptionalHasElement", {15, expand_optional_has_element}},
      {"RotaryEmbedding", {23, expand_rotary_embedding}},
      {"SwiGLU", {28, expand_swiglu}},
      {"TensorScatter", {24, expand_tensor_scatter}},
  };
  return table;
}

}  // namespace

const std::set<std::string>& expanded_operators() {
  static const std::set<std::string> ops = [] {
    std::set<std::string> names;
    for (const auto& entry : operator_table()) names.insert(entry.first);
    return names;
  }();
  return ops;
}

bool is_expanded_operator(const std::string& op) { return operator_table().count(op) != 0; }

std::vector<Node> expand_operator(Graph& graph, const Node& node, int64_t opset) {
  const auto found = operator_table().find(node.op);
  if (found == operator_table().end()) {
    throw Error(fmt::format("'{}' is not an operator the importer expands", node.op));
  }
  if (opset < found->second.first_opset) {
    throw Error(fmt::format("{} is an operator of opset {} and later; the model declares opset {}", node.op,
                            found->second.first_opset, opset));
  }
  return found->second.expand(graph, node, opset);
}

}  // namespace nee
