#include "core/error.h"
#include "importer/expansions/expanded_operators.h"
#include "importer/expansions/node_expansion.h"

namespace nee {

// Optionals NEE reads only where they hold a plain tensor or nothing, which the import
// knows: a graph input of optional type stays refused. OptionalHasElement (opset 15;
// tensors from 18) is true for a tensor and false with no input, a constant;
// OptionalGetElement (15; tensors from 18) of a tensor is that tensor.
std::vector<Node> expand_optional_has_element(Graph& graph, const Node& node, int64_t /*opset*/) {
  const bool has = !node.inputs.empty() && !node.inputs[0].empty();
  NodeExpansion build(graph, node.name);
  Attributes to_bool;
  to_bool.set("to", int64_t{9});  // ONNX's BOOL
  build.add("Cast", "has", {build.int64_tensor("has_value", {}, {has ? 1 : 0})}, to_bool, node.outputs[0]);
  return build.take();
}

std::vector<Node> expand_optional_get_element(Graph& graph, const Node& node, int64_t /*opset*/) {
  if (node.inputs.empty() || node.inputs[0].empty()) throw Error("OptionalGetElement of no value has no element");
  NodeExpansion build(graph, node.name);
  build.add("Identity", "element", {node.inputs[0]}, {}, node.outputs[0]);
  return build.take();
}

}  // namespace nee
