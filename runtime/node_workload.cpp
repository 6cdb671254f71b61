#include "runtime/node_workload.h"

#include <set>

namespace nee {

std::optional<Workload> workload_of(const Graph& graph, const Node& node) {
  if (node.op != "NeeMatMul") return std::nullopt;
  std::vector<TensorType> operands;
  for (const std::string& in : node.inputs) {
    if (in.empty()) continue;
    const TensorType& type = graph.type_of(in);
    if (type.dtype != DType::f32) return std::nullopt;
    for (int64_t d : type.shape) {
      if (d <= 0) return std::nullopt;
    }
    operands.push_back(type);
  }
  if (operands.size() < 2 || operands[0].shape.size() < 2 || operands[1].shape.size() < 2) {
    return std::nullopt;
  }
  MatmulAttrs attrs;
  attrs.trans_a = node.attrs.get_int("trans_a", 0) != 0;
  attrs.trans_b = node.attrs.get_int("trans_b", 0) != 0;
  attrs.alpha = node.attrs.get_float("alpha", 1.0f);
  attrs.beta = node.attrs.get_float("beta", 1.0f);
  attrs.relu = node.attrs.get_int("relu", 0) != 0;
  const TensorType* bias = operands.size() > 2 ? &operands[2] : nullptr;
  return make_matmul_workload(operands[0], operands[1], bias, attrs);
}

std::vector<Workload> extract_workloads(const Graph& graph) {
  std::vector<Workload> workloads;
  std::set<std::string> seen;
  for (const Node& node : graph.nodes()) {
    std::optional<Workload> w = workload_of(graph, node);
    if (w && seen.insert(w->key()).second) workloads.push_back(std::move(*w));
  }
  return workloads;
}

}  // namespace nee
