#include <fmt/format.h>

#include "core/error.h"
#include "importer/expansions/expanded_operators.h"
#include "importer/expansions/node_expansion.h"

namespace nee {

// CausalConvWithState (opset 27), Mamba's and Gated DeltaNet's carried depthwise conv: the
// carry (or k - 1 zeros) joined before the input along the length, a depthwise Conv
// without padding, an optional SiLU; the carry out is the joined sequence's last k - 1
// positions. The pattern it replaces is the one it expands to (Concat, Conv, Slice).
std::vector<Node> expand_causal_conv_with_state(Graph& graph, const Node& node, int64_t /*opset*/) {
  if (node.inputs.size() < 2 || node.inputs[0].empty() || node.inputs[1].empty()) {
    throw Error("CausalConvWithState takes input, weight and optional bias and past_state");
  }
  const TensorType& x = graph.type_of(node.inputs[0]);
  const TensorType& w = graph.type_of(node.inputs[1]);
  if (x.shape.size() != 3 || !is_floating(x.dtype)) {
    throw Error(fmt::format("input is {}; it must be floats [batch, channels, length]", x.to_string()));
  }
  const int64_t batch = x.shape[0], channels = x.shape[1], length = x.shape[2];
  if (w.shape.size() != 3 || w.shape[0] != channels || w.shape[1] != 1 || w.shape[2] < 1) {
    throw Error(fmt::format("weight is {}; it must be [{}, 1, k]", w.to_string(), channels));
  }
  const int64_t carried = w.shape[2] - 1;
  const std::string activation = node.attrs.get_string("activation", "none");
  if (activation != "none" && activation != "silu" && activation != "swish") {
    throw Error("activation '" + activation + "' is not one of silu, swish, none");
  }
  NodeExpansion build(graph, node.name);
  Attributes along_length;
  along_length.set("axis", int64_t{2});
  std::string joined = node.inputs[0];
  const std::string& past = optional_name(node.inputs, 3);
  if (!past.empty()) {
    const TensorType& state = graph.type_of(past);
    if (state.shape != std::vector<int64_t>{batch, channels, carried} || state.dtype != x.dtype) {
      throw Error(fmt::format("past_state is {}; it must be [{}, {}, {}]", state.to_string(), batch, channels,
                              carried));
    }
    if (carried > 0) joined = build.add("Concat", "joined", {past, node.inputs[0]}, along_length);
  } else if (carried > 0) {
    Attributes constant_mode;
    constant_mode.set("mode", std::string("constant"));
    joined = build.add("Pad", "joined", {node.inputs[0], build.int64s("pads", {0, 0, carried, 0, 0, 0})},
                       constant_mode);
  }
  Attributes depthwise;
  depthwise.set("group", channels);
  std::vector<std::string> conv_inputs = {joined, node.inputs[1]};
  const std::string& bias = optional_name(node.inputs, 2);
  if (!bias.empty()) conv_inputs.push_back(bias);
  const bool silu = activation != "none";
  const std::string convolved = build.add("Conv", "convolved", conv_inputs, depthwise, silu ? "" : node.outputs[0]);
  if (silu) build.add("Swish", "activated", {convolved}, {}, node.outputs[0]);
  const std::string& present = optional_name(node.outputs, 1);
  if (!present.empty()) {
    build.add("Slice", "present",
              {joined, build.int64s("starts", {length}), build.int64s("ends", {length + carried}),
               build.int64s("axes", {2})},
              {}, present);
  }
  return build.take();
}

}  // namespace nee
