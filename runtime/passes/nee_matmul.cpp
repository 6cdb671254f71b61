#include "runtime/passes/nee_matmul.h"

namespace nee {

Node plain_nee_matmul(const Node& matmul) {
  Node fused;
  fused.op = "NeeMatMul";
  fused.name = matmul.name;
  fused.inputs = {matmul.inputs[0], matmul.inputs[1]};
  fused.outputs = matmul.outputs;
  fused.attrs.set("trans_a", int64_t{0});
  fused.attrs.set("trans_b", int64_t{0});
  fused.attrs.set("alpha", 1.0f);
  fused.attrs.set("beta", 1.0f);
  fused.attrs.set("relu", int64_t{0});
  return fused;
}

bool is_fusable_matmul(const Graph& graph, const Node& node) {
  if (node.op != "MatMul") return false;
  for (const std::string& in : node.inputs) {
    const TensorType& type = graph.type_of(in);
    if (type.dtype != DType::f32 || type.shape.size() < 2) return false;
  }
  return true;
}

}  // namespace nee
