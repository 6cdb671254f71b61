#include <fmt/format.h>

#include "core/error.h"
#include "importer/expansions/expanded_operators.h"
#include "importer/expansions/node_expansion.h"

namespace nee {

// As PyTorch 1.13 exports torch.nn.GroupNorm, which fuse_group_norm runs as one kernel: X
// [N, C, ...] reshaped to [N, G, rest], an InstanceNormalization over each group, the shape
// put back, then the scale and bias per channel. Opsets 18 to 20 give a scale and a bias
// per group, which the InstanceNormalization takes instead.
std::vector<Node> expand_group_normalization(Graph& graph, const Node& node, int64_t opset) {
  constexpr int64_t kPerChannelOpset = 21;
  if (node.inputs.size() != 3 || node.inputs[0].empty() || node.inputs[1].empty() || node.inputs[2].empty()) {
    throw Error("GroupNormalization takes X, scale and bias");
  }
  const TensorType& x = graph.type_of(node.inputs[0]);
  if (!is_floating(x.dtype)) {
    throw Error(fmt::format("X has dtype {}; GroupNormalization takes floats", to_string(x.dtype)));
  }
  if (x.shape.size() < 3) throw Error(fmt::format("X is {}; it must be [N, C, D1, ...]", x.to_string()));
  const int64_t groups = node.attrs.get_int("num_groups", 0);
  const int64_t channels = x.shape[1];
  if (groups <= 0 || channels % groups != 0) {
    throw Error(fmt::format("num_groups {} does not divide the {} channels", groups, channels));
  }
  const bool per_channel = opset >= kPerChannelOpset;
  const int64_t affine = per_channel ? channels : groups;
  for (size_t i = 1; i < 3; ++i) {
    const TensorType& t = graph.type_of(node.inputs[i]);
    if (t.shape != std::vector<int64_t>{affine} || t.dtype != x.dtype) {
      throw Error(fmt::format("{} is {}; at opset {} it must be {}[{}] (one per {})", i == 1 ? "scale" : "bias",
                              t.to_string(), opset, to_string(x.dtype), affine, per_channel ? "channel" : "group"));
    }
  }
  NodeExpansion build(graph, node.name);
  Attributes epsilon;
  epsilon.set("epsilon", node.attrs.get_float("epsilon", 1e-5f));
  const std::string grouped = build.reshape("grouped", node.inputs[0], {x.shape[0], groups, -1});
  if (!per_channel) {
    const std::string normalized =
        build.add("InstanceNormalization", "normalized", {grouped, node.inputs[1], node.inputs[2]}, epsilon);
    build.reshape("y", normalized, x.shape, node.outputs[0]);
    return build.take();
  }
  const std::string normalized = build.add(
      "InstanceNormalization", "normalized",
      {grouped, build.float_tensor("ones", {groups}, std::vector<float>(static_cast<size_t>(groups), 1.0f)),
       build.float_tensor("zeros", {groups}, std::vector<float>(static_cast<size_t>(groups), 0.0f))},
      epsilon);
  const std::string restored = build.reshape("restored", normalized, x.shape);
  std::vector<int64_t> per_channel_shape(x.shape.size() - 1, 1);
  per_channel_shape[0] = channels;
  const std::string scale = build.reshape("scale_by_channel", node.inputs[1], per_channel_shape);
  const std::string bias = build.reshape("bias_by_channel", node.inputs[2], per_channel_shape);
  build.add("Add", "y", {build.add("Mul", "scaled", {restored, scale}), bias}, {}, node.outputs[0]);
  return build.take();
}

}  // namespace nee
