#include "fuzz/small_run.h"

#include "fuzz/fuzz_caps.h"
#include "runtime/node_flops.h"
#include "runtime/tensor_limits.h"

namespace nee::fuzz {

double run_work(const Graph& graph) {
  double work = 0;
  for (const Node& node : graph.nodes()) {
    work += node_flops(graph, node);
    for (const std::string& out : node.outputs) {
      if (!out.empty() && graph.has_value(out)) work += static_cast<double>(graph.type_of(out).elements());
    }
  }
  return work;
}

bool zero_inputs(const std::map<std::string, TensorType>& types, std::map<std::string, Tensor>& inputs) {
  for (const auto& [name, type] : types) {
    if (checked_elements(type, "graph input " + name, fuzz_caps().tensor_bytes) > kMaxRunWork) return false;
    inputs.emplace(name, Tensor(type));
  }
  return true;
}

}  // namespace nee::fuzz
