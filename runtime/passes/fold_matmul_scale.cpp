#include <map>
#include <optional>
#include <string>

#include "runtime/passes/constant_operands.h"
#include "runtime/passes/node_fusion.h"
#include "runtime/passes/passes.h"
#include "runtime/passes/sole_consumer.h"

namespace nee {

namespace {

// The factor a Mul by, or Div by, a one-element constant applies to its other input
// (`scaled`), when the result has that input's type (nothing broadcast wider).
std::optional<float> scalar_factor(const Graph& graph, const Node& scale, const std::string& scaled) {
  if (scale.inputs.size() != 2 || !(graph.type_of(scale.outputs[0]) == graph.type_of(scaled))) return std::nullopt;
  const std::string& other = scale.inputs[0] == scaled ? scale.inputs[1] : scale.inputs[0];
  const std::optional<float> s = scalar_f32_constant(graph, other);
  if (s && scale.op == "Mul") return *s;
  if (s && scale.op == "Div" && scale.inputs[0] == scaled && *s != 0.0f) return 1.0f / *s;
  return std::nullopt;
}

}  // namespace

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
    if (scale.op != "Mul" && scale.op != "Div") continue;
    const std::optional<float> factor = scalar_factor(graph, scale, product);
    if (!factor) continue;
    Node fused = mm;
    fused.attrs.set("alpha", mm.attrs.get_float("alpha", 1.0f) * *factor);
    if (mm.inputs.size() > 2) fused.attrs.set("beta", mm.attrs.get_float("beta", 1.0f) * *factor);
    fuse_into_consumer(graph, fused_away, i, *next, std::move(fused));
  }
  erase_fused(graph, fused_away);
}

// (s * A) x B = s * (A x B), likewise for B: the matmul reads the unscaled operand,
// alpha takes s, and the scaling node goes (the matmul was its only reader).
void fold_matmul_operand_scales(Graph& graph) {
  auto& nodes = graph.nodes();
  std::map<std::string, size_t> producer;
  for (size_t i = 0; i < nodes.size(); ++i) producer[nodes[i].outputs[0]] = i;
  std::vector<bool> fused_away(nodes.size(), false);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].op != "NeeMatMul") continue;
    for (size_t operand : {0, 1}) {
      Node& mm = nodes[i];
      const auto from = producer.find(mm.inputs[operand]);
      if (from == producer.end() || fused_away[from->second] || sole_consumer(graph, mm.inputs[operand]) != i) continue;
      const Node& scale = nodes[from->second];
      if (scale.op != "Mul" && scale.op != "Div") continue;
      for (const std::string& data : scale.inputs) {
        const std::optional<float> factor = scalar_factor(graph, scale, data);
        if (!factor) continue;
        const std::string scaled = mm.inputs[operand];
        mm.inputs[operand] = data;
        mm.attrs.set("alpha", mm.attrs.get_float("alpha", 1.0f) * *factor);
        fused_away[from->second] = true;
        graph.remove_value(scaled);
        break;
      }
    }
  }
  erase_fused(graph, fused_away);
}

}  // namespace nee
