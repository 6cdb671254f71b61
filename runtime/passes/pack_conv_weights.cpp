#include "core/conv_weight_layout.h"
#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

bool block_conv_weights(Graph& graph, Node& node) {
  const std::string weights_name = node.inputs[1];
  const Tensor* weights = f32_constant(graph, weights_name);
  if (!weights || weights->shape().size() != 4 || node.attrs.get_int("weight_block", 0) != 0) return false;
  // Convolutions sharing one constant share its blocked copy.
  const std::string blocked_name = weights_name + ".blocked" + std::to_string(kConvWeightBlock);
  if (!graph.has_value(blocked_name)) {
    Tensor blocked(DType::f32, blocked_weight_shape(weights->shape(), kConvWeightBlock));
    pack_blocked_weights(weights->data_as<float>(), weights->shape(), kConvWeightBlock, blocked.data_as<float>());
    graph.add_constant(blocked_name, blocked);
  }
  node.inputs[1] = blocked_name;
  node.attrs.set("weight_block", kConvWeightBlock);
  // The plain copy goes once nothing reads it, so the weights are held once.
  if (graph.consumers(weights_name).empty() && !graph.is_output(weights_name)) graph.remove_value(weights_name);
  return true;
}

void pack_conv_weights(Graph& graph, bool grouped) {
  for (Node& node : graph.nodes()) {
    if (node.op != "NeeConv") continue;
    const std::vector<int64_t>& x = graph.type_of(node.inputs[0]).shape;
    const std::vector<int64_t>& y = graph.type_of(node.outputs[0]).shape;
    const int64_t group = node.attrs.get_int("group", 1);
    if (x.size() == 4 && y.size() == 4 && (group == 1 || grouped) && groups_fill_weight_blocks(x[1], y[1], group)) {
      block_conv_weights(graph, node);
    }
  }
}

}  // namespace nee
