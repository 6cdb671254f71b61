#include "runtime/passes/activation_patterns.h"
#include "runtime/passes/node_fusion.h"
#include "runtime/passes/passes.h"

namespace nee {

void fuse_matmul_gelu(Graph& graph) {
  auto& nodes = graph.nodes();
  std::vector<bool> fused_away(nodes.size(), false);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].op != "NeeMatMul" || fused_away[i] || nodes[i].attrs.get_int("relu", 0) ||
        nodes[i].attrs.get_int("gelu", 0)) {
      continue;
    }
    const std::optional<ActivationMatch> gelu = match_gelu(graph, nodes[i].outputs[0]);
    if (!gelu) continue;
    Node fused = nodes[i];
    fused.attrs.set("gelu", int64_t{1});
    absorb_activation(graph, fused_away, i, *gelu, std::move(fused));
  }
  erase_fused(graph, fused_away);
}

}  // namespace nee
