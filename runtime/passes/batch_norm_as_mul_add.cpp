#include <cmath>
#include <string>

#include "core/activation_layout.h"
#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

namespace {

// The per-channel constants of an inference-mode BatchNormalization of an NCHW f32 tensor
// whose channels block_activations can block: y = a * x + b with a = scale / sqrt(var +
// eps), b = B - mean * a, each as [C, 1, 1]; false (nothing added) for any other node.
bool add_scale_and_shift(Graph& graph, const Node& bn, std::string& a_name, std::string& b_name) {
  if (bn.op != "BatchNormalization" || bn.inputs.size() != 5 || bn.attrs.get_int("training_mode", 0) != 0) return false;
  for (size_t i = 1; i < bn.outputs.size(); ++i) {
    if (!bn.outputs[i].empty()) return false;
  }
  const TensorType& x = graph.type_of(bn.inputs[0]);
  if (x.dtype != DType::f32 || !can_block_activations(x.shape)) return false;
  const int64_t channels = x.shape[1];
  const Tensor* params[4];
  for (int i = 0; i < 4; ++i) {
    params[i] = f32_constant(graph, bn.inputs[1 + i]);
    if (!params[i] || params[i]->elements() != channels) return false;
  }
  const float epsilon = bn.attrs.get_float("epsilon", 1e-5f);
  Tensor a(DType::f32, {channels, 1, 1}), b(DType::f32, {channels, 1, 1});
  for (int64_t c = 0; c < channels; ++c) {
    const float scale = params[0]->data_as<float>()[c] / std::sqrt(params[3]->data_as<float>()[c] + epsilon);
    a.data_as<float>()[c] = scale;
    b.data_as<float>()[c] = params[1]->data_as<float>()[c] - params[2]->data_as<float>()[c] * scale;
  }
  a_name = bn.name + ".bn_scale";
  b_name = bn.name + ".bn_shift";
  if (graph.has_value(a_name) || graph.has_value(b_name)) return false;
  graph.add_constant(a_name, a);
  graph.add_constant(b_name, b);
  return true;
}

}  // namespace

void batch_norm_as_mul_add(Graph& graph) {
  std::vector<Node> adds;
  for (Node& node : graph.nodes()) {
    std::string a, b;
    if (!add_scale_and_shift(graph, node, a, b)) continue;
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
