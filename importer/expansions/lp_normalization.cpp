#include <fmt/format.h>

#include "core/error.h"
#include "importer/expansions/expanded_operators.h"
#include "importer/expansions/node_expansion.h"

namespace nee {

// X / ReduceL1 or ReduceL2 of X along `axis` (kept), and 0 where that norm is 0 (as ONNX's
// reference has it, rather than 0 / 0).
std::vector<Node> expand_lp_normalization(Graph& graph, const Node& node, int64_t opset) {
  // Reduce operators take their axes as an input from opset 18, as an attribute before.
  constexpr int64_t kAxesInputOpset = 18, kFirstReadOpset = 7;
  if (opset < kFirstReadOpset) {
    throw Error(fmt::format("LpNormalization is read from opset {} (the Where its expansion uses); the model "
                            "declares opset {}", kFirstReadOpset, opset));
  }
  if (node.inputs.size() != 1 || node.inputs[0].empty()) throw Error("LpNormalization takes one input");
  const TensorType& x = graph.type_of(node.inputs[0]);
  if (!is_floating(x.dtype)) {
    throw Error(fmt::format("input has dtype {}; LpNormalization takes floats", to_string(x.dtype)));
  }
  const int64_t p = node.attrs.get_int("p", 2);
  if (p != 1 && p != 2) throw Error(fmt::format("p is {}; it must be 1 or 2", p));
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const int64_t axis = node.attrs.get_int("axis", -1);
  if (rank == 0 || axis < -rank || axis >= rank) {
    throw Error(fmt::format("axis {} is outside the input's {} dims", axis, rank));
  }
  NodeExpansion build(graph, node.name);
  Attributes keep;
  keep.set("keepdims", int64_t{1});
  std::vector<std::string> reduce_inputs = {node.inputs[0]};
  if (opset >= kAxesInputOpset) {
    reduce_inputs.push_back(build.int64s("axes", {axis}));
  } else {
    keep.set("axes", std::vector<int64_t>{axis});
  }
  const std::string norm = build.add(p == 1 ? "ReduceL1" : "ReduceL2", "norm", reduce_inputs, keep);
  const std::string zero = build.scalar("zero", 0.0f, x.dtype);
  const std::string quotient = build.add("Div", "quotient", {node.inputs[0], norm});
  build.add("Where", "y", {build.add("Equal", "norm_is_zero", {norm, zero}), zero, quotient}, {}, node.outputs[0]);
  return build.take();
}

}  // namespace nee
