#include "runtime/passes/constant_operands.h"
#include "runtime/passes/node_fusion.h"
#include "runtime/passes/passes.h"
#include "runtime/passes/sole_consumer.h"

namespace nee {

// (alpha * A x B + beta * C) * s = (s * alpha) A x B + (s * beta) C, and a Div by s is a
// Mul by 1 / s. The fused node takes the Mul's or Div's place, as in fuse_matmul_relu,
// so a chain of scalings folds one after another.
void fold_matmul_scale(Graph& graph) {
  auto& nodes = graph.nodes();
  std::vector<bool> fused_away(nodes.size(), false);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& mm = nodes[i];
    if (mm.op != "NeeMatMul" || fused_away[i] || mm.attrs.get_int("relu", 0) || mm.attrs.get_int("gelu", 0)) continue;
    const std::string product = mm.outputs[0];
    const std::optional<size_t> next = sole_consumer(graph, product);
    if (!next) continue;
    const Node& scale = nodes[*next];
    if (scale.inputs.size() != 2 || !(graph.type_of(scale.outputs[0]) == graph.type_of(product))) continue;
    const std::string& other = scale.inputs[0] == product ? scale.inputs[1] : scale.inputs[0];
    const std::optional<float> s = scalar_f32_constant(graph, other);
    float factor = 0;
    if (s && scale.op == "Mul") {
      factor = *s;
    } else if (s && scale.op == "Div" && scale.inputs[0] == product && *s != 0.0f) {
      factor = 1.0f / *s;
    } else {
      continue;
    }
    Node fused = mm;
    fused.attrs.set("alpha", mm.attrs.get_float("alpha", 1.0f) * factor);
    if (mm.inputs.size() > 2) fused.attrs.set("beta", mm.attrs.get_float("beta", 1.0f) * factor);
    fuse_into_consumer(graph, fused_away, i, *next, std::move(fused));
  }
  erase_fused(graph, fused_away);
}

}  // namespace nee
