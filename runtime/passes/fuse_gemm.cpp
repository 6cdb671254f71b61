#include "runtime/passes/passes.h"

namespace nee {

void fuse_gemm(Graph& graph) {
  for (Node& node : graph.nodes()) {
    if (node.op != "Gemm") continue;
    Node fused;
    fused.op = "NeeMatMul";
    fused.name = node.name;
    fused.inputs = {node.inputs[0], node.inputs[1]};
    if (node.inputs.size() > 2 && !node.inputs[2].empty()) fused.inputs.push_back(node.inputs[2]);
    fused.outputs = node.outputs;
    fused.attrs.set("trans_a", node.attrs.get_int("transA", 0));
    fused.attrs.set("trans_b", node.attrs.get_int("transB", 0));
    fused.attrs.set("alpha", node.attrs.get_float("alpha", 1.0f));
    fused.attrs.set("beta", node.attrs.get_float("beta", 1.0f));
    fused.attrs.set("relu", int64_t{0});
    node = std::move(fused);
  }
}

}  // namespace nee
