#include <fmt/format.h>

#include "core/error.h"
#include "importer/expansions/expanded_operators.h"
#include "importer/expansions/node_expansion.h"

namespace nee {

std::vector<Node> expand_swiglu(Graph& graph, const Node& node, int64_t /*opset*/) {
  if (node.inputs.size() != 2 || node.inputs[0].empty() || node.inputs[1].empty()) {
    throw Error("SwiGLU takes a gate A and a value B");
  }
  const TensorType& gate = graph.type_of(node.inputs[0]);
  const TensorType& value = graph.type_of(node.inputs[1]);
  if (!is_floating(gate.dtype)) throw Error(fmt::format("A has dtype {}; SwiGLU takes floats", to_string(gate.dtype)));
  // The operator does not broadcast.
  if (gate.shape != value.shape || gate.dtype != value.dtype) {
    throw Error(fmt::format("A is {} and B {}; they must be the same", gate.to_string(), value.to_string()));
  }
  NodeExpansion build(graph, node.name);
  Attributes alpha;
  alpha.set("alpha", node.attrs.get_float("alpha", 1.0f));
  build.add("Mul", "y", {build.add("Swish", "swish", {node.inputs[0]}, alpha), node.inputs[1]}, {}, node.outputs[0]);
  return build.take();
}

}  // namespace nee
