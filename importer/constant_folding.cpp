#include "importer/constant_folding.h"

#include <fmt/format.h>

#include <algorithm>

#include "runtime/reference/reference_kernel.h"

namespace nee {

bool fold_constant_node(Graph& graph, const Node& node, ByteBudget& weights) {
  const auto& kernels = reference_kernels();
  auto factory = kernels.find(node.op);
  if (factory == kernels.end()) return false;
  std::vector<const Tensor*> inputs;
  int64_t input_elements = 0;
  for (const std::string& name : node.inputs) {
    const Tensor* value = name.empty() ? nullptr : graph.constant(name);
    if (!name.empty() && !value && node.op != "Shape") return false;
    inputs.push_back(value);
    if (value) input_elements = std::max(input_elements, value->elements());
  }
  int64_t elements = 0;
  for (const std::string& name : node.outputs) {
    if (!name.empty()) elements += graph.type_of(name).elements();
  }
  if (elements > std::max(kMaxFoldedElements, input_elements)) return false;

  ReferenceFn kernel = factory->second(graph, node);
  if (!kernel) return false;
  std::vector<Tensor> results;
  for (const std::string& name : node.outputs) {
    if (name.empty()) {
      results.emplace_back();
      continue;
    }
    const TensorType& type = graph.type_of(name);
    weights.reserve(type.elements() * static_cast<int64_t>(dtype_size(type.dtype)),
                    fmt::format("output '{}' of node '{}' ({}), folded to a constant", name, node.name, node.op));
    results.emplace_back(type);
  }
  std::vector<Tensor*> outputs;
  for (size_t i = 0; i < results.size(); ++i) outputs.push_back(node.outputs[i].empty() ? nullptr : &results[i]);
  kernel(inputs, outputs);
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    if (node.outputs[i].empty()) continue;
    graph.remove_value(node.outputs[i]);
    graph.add_constant(node.outputs[i], results[i]);
  }
  return true;
}

}  // namespace nee
