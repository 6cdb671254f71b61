#include "core/error.h"
#include "runtime/passes/nee_matmul.h"
#include "runtime/passes/node_fusion.h"
#include "runtime/passes/passes.h"
#include "runtime/passes/sole_consumer.h"

namespace nee {

namespace {

bool broadcasts_to(const TensorType& bias, const TensorType& product) {
  if (bias.dtype != product.dtype) return false;
  try {
    return broadcast_shapes(product.shape, bias.shape) == product.shape;
  } catch (const Error&) {
    return false;
  }
}

// A MatMul, or a NeeMatMul with no bias and no activation yet (a Gemm without C, or a
// MatMul whose scaling was folded into alpha).
bool takes_bias(const Graph& graph, const Node& node) {
  if (node.op == "NeeMatMul") {
    return node.inputs.size() == 2 && !node.attrs.get_int("relu", 0) && !node.attrs.get_int("gelu", 0);
  }
  return is_fusable_matmul(graph, node);
}

}  // namespace

// The fused node takes the Add's place in the node list: the bias may be computed
// after the MatMul, and everything the MatMul reads is ready before the Add anyway.
void fuse_matmul_add(Graph& graph) {
  auto& nodes = graph.nodes();
  std::vector<bool> fused_away(nodes.size(), false);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (fused_away[i] || !takes_bias(graph, nodes[i])) continue;
    const std::string product = nodes[i].outputs[0];
    const std::optional<size_t> add = sole_consumer(graph, product);
    if (!add || nodes[*add].op != "Add") continue;
    const Node& add_node = nodes[*add];
    const std::string bias = add_node.inputs[0] == product ? add_node.inputs[1] : add_node.inputs[0];
    if (!broadcasts_to(graph.type_of(bias), graph.type_of(product))) continue;
    Node fused = nodes[i].op == "NeeMatMul" ? nodes[i] : plain_nee_matmul(nodes[i]);
    fused.attrs.set("beta", 1.0f);
    fused.inputs.push_back(bias);
    fuse_into_consumer(graph, fused_away, i, *add, std::move(fused));
  }
  erase_fused(graph, fused_away);
}

}  // namespace nee
