#include <algorithm>
#include <string>
#include <vector>

#include "core/activation_layout.h"
#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

namespace {

// The per-channel constants of an inference-mode BatchNormalization of an NCHW f32 tensor
// whose channels block_activations can block (with `matrices`, also of an f32 matrix [N,
// C]): y = a * x + b with a = scale / sqrt(var + eps), b = B - mean * a, each as [C, 1, 1]
// ([C] for a matrix); false (nothing added) for any other node.
bool add_scale_and_shift(Graph& graph, const Node& bn, bool matrices, std::string& a_name, std::string& b_name) {
  if (bn.op != "BatchNormalization" || bn.inputs.empty()) return false;
  const TensorType& x = graph.type_of(bn.inputs[0]);
  const bool matrix = matrices && x.shape.size() == 2;
  if (x.dtype != DType::f32 || !(matrix || can_block_activations(x.shape))) return false;
  const int64_t channels = x.shape[1];
  const std::optional<BatchNormAffine> affine = inference_batch_norm(graph, bn, channels);
  if (!affine) return false;
  const std::vector<int64_t> per_channel = matrix ? std::vector<int64_t>{channels}
                                                  : std::vector<int64_t>{channels, 1, 1};
  Tensor a(DType::f32, per_channel), b(DType::f32, per_channel);
  std::copy(affine->scale.begin(), affine->scale.end(), a.data_as<float>());
  std::copy(affine->shift.begin(), affine->shift.end(), b.data_as<float>());
  a_name = bn.name + ".bn_scale";
  b_name = bn.name + ".bn_shift";
  if (graph.has_value(a_name) || graph.has_value(b_name)) return false;
  graph.add_constant(a_name, a);
  graph.add_constant(b_name, b);
  return true;
}

}  // namespace

void batch_norm_as_mul_add(Graph& graph, bool matrices) {
  std::vector<Node> adds;
  for (Node& node : graph.nodes()) {
    std::string a, b;
    if (!add_scale_and_shift(graph, node, matrices, a, b)) continue;
    const std::string y = node.outputs[0], scaled = y + ".bn_scaled";
    graph.add_value(scaled, graph.type_of(y));
    Node add;
    add.op = "Add";
    add.name = node.name + ".bn_shift";
    add.inputs = {scaled, b};
    add.outputs = {y};
    adds.push_back(std::move(add));
    node.op = "Mul";
    node.inputs = {node.inputs[0], a};
    node.outputs = {scaled};
    node.attrs = {};
  }
  for (Node& n : adds) graph.add_node(std::move(n));
  graph.sort_topologically();
}

}  // namespace nee
