#include <optional>
#include <string>
#include <vector>

#include "core/elementwise_program.h"
#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"
#include "runtime/passes/sole_consumer.h"

namespace nee {

namespace {

using Kind = ElementwiseOperand::Kind;

bool reads_input(const ElementwiseInstruction& ins, int slot) {
  for (const ElementwiseOperand& a : ins.args) {
    if (a.kind == Kind::input && a.index == slot) return true;
  }
  return false;
}

// The input slot x of a program that computes x * g, x of the output's shape, read by the
// last instruction (a mul) and nowhere else, so that g depends on the other inputs only;
// nullopt otherwise.
std::optional<int> scaled_slot(const ElementwiseProgram& program, const Graph& graph, const Node& node) {
  const ElementwiseInstruction& last = program.code.back();
  if (last.op != ElementwiseOp::mul || last.args[0] == last.args[1]) return std::nullopt;
  for (const ElementwiseOperand& a : last.args) {
    if (a.kind != Kind::input) continue;
    if (graph.type_of(node.inputs[static_cast<size_t>(a.index)]).shape != graph.type_of(node.outputs[0]).shape) {
      continue;
    }
    for (size_t i = 0; i + 1 < program.code.size(); ++i) {
      if (reads_input(program.code[i], a.index)) return std::nullopt;
    }
    return a.index;
  }
  return std::nullopt;
}

// An operand that is the same for every pixel of one sample: [1, c, 1, 1] with missing
// leading dims read as 1 (per channel, or one value).
bool per_channel(const std::vector<int64_t>& shape) {
  if (shape.size() > 4) return false;
  for (size_t d = 0; d < shape.size(); ++d) {
    const bool channel_dim = d + 3 == shape.size();
    if (!channel_dim && shape[d] != 1) return false;
  }
  return true;
}

// `value` viewed as `shape` by a Reshape made once per value.
std::string view(Graph& graph, const std::string& value, const std::vector<int64_t>& shape, std::vector<Node>& added) {
  const std::string name = value + ".per_input_channel";
  if (!graph.has_value(name)) added.push_back(reshape_view(graph, value, name, shape));
  return name;
}

}  // namespace

void fold_channel_gates(Graph& graph) {
  std::vector<Node>& nodes = graph.nodes();
  std::vector<bool> folded(nodes.size(), false);
  std::vector<Node> added;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& gate = nodes[i];
    if (gate.op != "NeeElementwise") continue;
    const TensorType& y = graph.type_of(gate.outputs[0]);
    const std::optional<size_t> reader = sole_consumer(graph, gate.outputs[0]);
    if (y.dtype != DType::f32 || y.shape.size() != 4 || y.shape[0] != 1 || !reader) continue;
    Node& conv = nodes[*reader];
    if (conv.op != "NeeConv" || conv.attrs.get_int("group", 1) != 1 || conv.inputs[0] != gate.outputs[0]) continue;
    const Tensor* w = f32_constant(graph, conv.inputs[1]);
    // Scaling the weights pays where they are smaller than the activation they replace
    // scaling: EfficientNet-B0's projections of 56x56 and 112x112 planes, not of 7x7 ones.
    if (!w || w->shape().size() < 4 || w->shape()[1] != y.shape[1] || w->elements() >= y.elements()) continue;
    const ElementwiseProgram program = ElementwiseProgram::parse(gate.attrs.get_string("program"));
    const std::optional<int> x = scaled_slot(program, graph, gate);
    if (!x) continue;
    bool gates_per_channel = true;
    for (size_t s = 0; s < gate.inputs.size(); ++s) {
      if (static_cast<int>(s) == *x) continue;
      gates_per_channel = gates_per_channel && per_channel(graph.type_of(gate.inputs[s]).shape);
    }
    if (!gates_per_channel) continue;

    // The same program over the weights: W'[o, c, ...] = W[o, c, ...] * g[c], each gate
    // operand viewed with its channels on W's dim 1.
    Node scaled = gate;
    scaled.name = conv.name + ".gated_weights";
    scaled.outputs = {scaled.name};
    graph.add_value(scaled.name, w->type());
    for (size_t s = 0; s < scaled.inputs.size(); ++s) {
      if (static_cast<int>(s) == *x) {
        scaled.inputs[s] = conv.inputs[1];
        continue;
      }
      const std::vector<int64_t>& shape = graph.type_of(scaled.inputs[s]).shape;
      if (shape.size() < 3 || shape[shape.size() - 3] == 1) continue;  // one value for all
      std::vector<int64_t> per_input_channel(w->shape().size(), 1);
      per_input_channel[1] = shape[shape.size() - 3];
      scaled.inputs[s] = view(graph, scaled.inputs[s], per_input_channel, added);
    }
    conv.inputs[0] = gate.inputs[static_cast<size_t>(*x)];
    conv.inputs[1] = scaled.name;
    added.push_back(std::move(scaled));
    graph.remove_value(gate.outputs[0]);
    folded[i] = true;
  }
  std::vector<Node> kept;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!folded[i]) kept.push_back(std::move(nodes[i]));
  }
  for (Node& n : added) kept.push_back(std::move(n));
  nodes = std::move(kept);
  graph.sort_topologically();
}

}  // namespace nee
