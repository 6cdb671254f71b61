#include "runtime/passes/passes.h"
#include "runtime/passes/node_fusion.h"
#include "runtime/passes/sole_consumer.h"

namespace nee {

// The fused node takes the Relu's place, which comes after all the NeeMatMul's inputs.
void fuse_matmul_relu(Graph& graph) {
  auto& nodes = graph.nodes();
  std::vector<bool> fused_away(nodes.size(), false);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].op != "NeeMatMul" || fused_away[i]) continue;
    const std::string product = nodes[i].outputs[0];
    const std::optional<size_t> relu = sole_consumer(graph, product);
    if (!relu || nodes[*relu].op != "Relu") continue;
    Node fused = nodes[i];
    fused.attrs.set("relu", int64_t{1});
    fuse_into_consumer(graph, fused_away, i, *relu, std::move(fused));
  }
  erase_fused(graph, fused_away);
}

}  // namespace nee
