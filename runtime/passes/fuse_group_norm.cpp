#include <optional>
#include <string>
#include <vector>

#include "runtime/passes/constant_operands.h"
#include "runtime/passes/node_fusion.h"
#include "runtime/passes/passes.h"
#include "runtime/passes/sole_consumer.h"

namespace nee {

namespace {

// The node that solely reads `value`, when its op is `op`.
Node* sole_reader(Graph& graph, const std::string& value, const std::string& op) {
  const std::optional<size_t> i = sole_consumer(graph, value);
  if (!i || graph.nodes()[*i].op != op) return nullptr;
  return &graph.nodes()[*i];
}

// The `channels` values of an f32 constant that broadcasts per channel against a tensor of
// rank `rank` ([C, 1, ...] or one value, missing leading dims read as 1); nullopt for any
// other operand.
std::optional<std::vector<float>> per_channel_values(const Graph& graph, const std::string& value, int64_t channels,
                                                     size_t rank) {
  const Tensor* t = f32_constant(graph, value);
  if (!t || t->shape().size() > rank) return std::nullopt;
  std::vector<int64_t> shape = t->shape();
  shape.insert(shape.begin(), rank - shape.size(), 1);
  for (size_t d = 0; d < rank; ++d) {
    if (shape[d] != 1 && !(d == 1 && shape[d] == channels)) return std::nullopt;
  }
  std::vector<float> v(static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c) v[c] = t->data_as<float>()[shape[1] == 1 ? 0 : c];
  return v;
}

// The Mul or Add that solely reads `value` with a per-channel constant as its other
// operand, and that constant's values; nullptr when there is none.
Node* per_channel_step(Graph& graph, const std::string& value, const std::string& op, int64_t channels, size_t rank,
                       std::vector<float>& values) {
  Node* node = sole_reader(graph, value, op);
  if (!node || node->inputs.size() != 2 || node->inputs[0] == node->inputs[1]) return nullptr;
  const std::string& other = node->inputs[node->inputs[0] == value ? 1 : 0];
  const std::optional<std::vector<float>> v = per_channel_values(graph, other, channels, rank);
  if (!v || !(graph.type_of(node->outputs[0]) == graph.type_of(value))) return nullptr;
  values = *v;
  return node;
}

// The group norm PyTorch exports for torch.nn.GroupNorm, starting at its
// InstanceNormalization: X [N, C, S...] -> Reshape [N, G, rest] -> InstanceNormalization
// (constant scale and bias of G) -> Reshape to X's shape -> Mul by gamma and Add beta per
// channel (each optional). The fused node and the members it replaces.
struct GroupNormChain {
  Node fused;
  std::vector<const Node*> members;
  std::vector<std::string> constants;  // operands the chain read that may now be unread
};

std::optional<GroupNormChain> match_group_norm(Graph& graph, const Node& norm) {
  const std::string& grouped = norm.inputs[0];
  const Node* split = graph.producer(grouped);
  if (!split || split->op != "Reshape" ||
      sole_consumer(graph, grouped) != static_cast<size_t>(&norm - graph.nodes().data())) {
    return std::nullopt;
  }
  const std::string x = split->inputs[0];
  const TensorType& x_type = graph.type_of(x);
  const std::vector<int64_t>& g = graph.type_of(grouped).shape;
  if (x_type.dtype != DType::f32 || x_type.shape.size() < 3 || g.size() != 3 || g[0] != x_type.shape[0]) {
    return std::nullopt;
  }
  const int64_t channels = x_type.shape[1], groups = g[1];
  const Tensor* norm_scale = f32_constant(graph, norm.inputs[1]);
  const Tensor* norm_bias = f32_constant(graph, norm.inputs[2]);
  if (groups <= 0 || channels % groups != 0 || !norm_scale || !norm_bias || norm_scale->elements() != groups ||
      norm_bias->elements() != groups) {
    return std::nullopt;
  }
  Node* merge = sole_reader(graph, norm.outputs[0], "Reshape");
  if (!merge || !(graph.type_of(merge->outputs[0]) == x_type)) return std::nullopt;

  GroupNormChain chain;
  chain.members = {split, &norm, merge};
  chain.constants = {split->inputs.size() > 1 ? split->inputs[1] : "", norm.inputs[1], norm.inputs[2],
                     merge->inputs.size() > 1 ? merge->inputs[1] : ""};
  // y = gamma[c] * (s[g] * normalized + b[g]) + beta[c] = scale[c] * normalized + bias[c].
  std::vector<float> gamma(static_cast<size_t>(channels), 1.0f), beta(static_cast<size_t>(channels), 0.0f);
  std::string last = merge->outputs[0];
  const size_t rank = x_type.shape.size();
  if (Node* mul = per_channel_step(graph, last, "Mul", channels, rank, gamma)) {
    chain.members.push_back(mul);
    chain.constants.push_back(mul->inputs[mul->inputs[0] == last ? 1 : 0]);
    last = mul->outputs[0];
    if (Node* add = per_channel_step(graph, last, "Add", channels, rank, beta)) {
      chain.members.push_back(add);
      chain.constants.push_back(add->inputs[add->inputs[0] == last ? 1 : 0]);
      last = add->outputs[0];
    }
  }
  Tensor scale(DType::f32, {channels}), bias(DType::f32, {channels});
  for (int64_t c = 0; c < channels; ++c) {
    const int64_t group = c / (channels / groups);
    scale.data_as<float>()[c] = gamma[c] * norm_scale->data_as<float>()[group];
    bias.data_as<float>()[c] = gamma[c] * norm_bias->data_as<float>()[group] + beta[c];
  }
  chain.fused = single_output_node("NeeGroupNorm",
                                   {x, add_named_constant(graph, norm.name + ".group_scale", scale),
                                    add_named_constant(graph, norm.name + ".group_bias", bias)},
                                   last);
  chain.fused.name = norm.name;
  chain.fused.attrs.set("groups", groups);
  chain.fused.attrs.set("epsilon", norm.attrs.get_float("epsilon", 1e-5));
  return chain;
}

}  // namespace

void fuse_group_norm(Graph& graph) {
  std::vector<bool> dropped(graph.nodes().size(), false);
  std::vector<std::string> unread;
  for (size_t i = 0; i < graph.nodes().size(); ++i) {
    Node& node = graph.nodes()[i];
    if (dropped[i] || node.op != "InstanceNormalization" || node.inputs.size() != 3) continue;
    if (std::optional<GroupNormChain> chain = match_group_norm(graph, node)) {
      unread.insert(unread.end(), chain->constants.begin(), chain->constants.end());
      fuse_chain(graph, dropped, chain->members, std::move(chain->fused));
      continue;
    }
    // An instance norm is a group norm of one channel a group.
    const TensorType& x = graph.type_of(node.inputs[0]);
    if (x.dtype != DType::f32 || x.shape.size() < 3) continue;
    node.op = "NeeGroupNorm";
    node.attrs.set("groups", x.shape[1]);
    node.attrs.set("epsilon", node.attrs.get_float("epsilon", 1e-5));
  }
  erase_fused(graph, dropped);
  for (const std::string& name : unread) remove_if_unread(graph, name);
}

}  // namespace nee
