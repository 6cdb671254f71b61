#include <algorithm>
#include <functional>
#include <map>

#include "core/elementwise_program.h"
#include "runtime/passes/constant_operands.h"
#include "runtime/passes/node_fusion.h"
#include "runtime/passes/passes.h"
#include "runtime/passes/sole_consumer.h"

namespace nee {

namespace {

using Operand = ElementwiseOperand;
using Kind = ElementwiseOperand::Kind;

// Appends instructions to a program; each returns its result as an operand.
class ProgramBuilder {
 public:
  Operand emit(ElementwiseOp op, Operand a, Operand b = {}) {
    ElementwiseInstruction ins{op, {a}};
    if (arity(op) == 2) ins.args.push_back(b);
    program_.code.push_back(std::move(ins));
    return Operand{Kind::temp, static_cast<int>(program_.code.size()) - 1, 0.0f};
  }
  ElementwiseProgram& program() { return program_; }

 private:
  ElementwiseProgram program_;
};

Operand immediate(float v) { return Operand{Kind::immediate, 0, v}; }

// How one ONNX operator becomes instructions: which of its inputs are data operands
// (the others are constant parameters read here), whether this node is supported, and
// the instructions computing it from its data operands.
struct Translation {
  std::function<bool(const Graph&, const Node&)> supported;
  std::function<Operand(const Graph&, const Node&, const std::vector<Operand>&, ProgramBuilder&)> emit;
  size_t data_inputs = 0;  // 0: every input is a data operand
};

bool always(const Graph&, const Node&) { return true; }

Translation unary(ElementwiseOp op) {
  return {always, [op](const Graph&, const Node&, const std::vector<Operand>& in, ProgramBuilder& b) {
            return b.emit(op, in[0]);
          }, 1};
}

Translation binary(ElementwiseOp op) {
  return {[](const Graph&, const Node& n) { return n.inputs.size() == 2; },
          [op](const Graph&, const Node&, const std::vector<Operand>& in, ProgramBuilder& b) {
            return b.emit(op, in[0], in[1]);
          }, 0};
}

// Max and Min of two or more inputs, folded left to right.
Translation variadic(ElementwiseOp op) {
  return {[](const Graph&, const Node& n) { return n.inputs.size() >= 2; },
          [op](const Graph&, const Node&, const std::vector<Operand>& in, ProgramBuilder& b) {
            Operand acc = b.emit(op, in[0], in[1]);
            for (size_t i = 2; i < in.size(); ++i) acc = b.emit(op, acc, in[i]);
            return acc;
          }, 0};
}

// min(1, max(0, alpha * x + beta))
Operand hard_sigmoid(Operand x, float alpha, float beta, ProgramBuilder& b) {
  const Operand lin = b.emit(ElementwiseOp::add, b.emit(ElementwiseOp::mul, x, immediate(alpha)), immediate(beta));
  return b.emit(ElementwiseOp::min, b.emit(ElementwiseOp::max, lin, immediate(0.0f)), immediate(1.0f));
}

const std::map<std::string, Translation>& translations() {
  static const std::map<std::string, Translation> table = {
      {"Add", binary(ElementwiseOp::add)},
      {"Sub", binary(ElementwiseOp::sub)},
      {"Mul", binary(ElementwiseOp::mul)},
      {"Div", binary(ElementwiseOp::div)},
      {"Max", variadic(ElementwiseOp::max)},
      {"Min", variadic(ElementwiseOp::min)},
      {"Relu", unary(ElementwiseOp::relu)},
      {"Neg", unary(ElementwiseOp::neg)},
      {"Abs", unary(ElementwiseOp::abs)},
      {"Sqrt", unary(ElementwiseOp::sqrt)},
      {"Exp", unary(ElementwiseOp::exp)},
      {"Log", unary(ElementwiseOp::log)},
      {"Sigmoid", unary(ElementwiseOp::sigmoid)},
      {"Tanh", unary(ElementwiseOp::tanh)},
      {"Erf", unary(ElementwiseOp::erf)},
      {"Reciprocal", unary(ElementwiseOp::reciprocal)},
      {"Round", unary(ElementwiseOp::round)},
      {"Pow",
       {[](const Graph& g, const Node& n) { return n.inputs.size() == 2 && scalar_f32_constant(g, n.inputs[1]); },
        [](const Graph& g, const Node& n, const std::vector<Operand>& in, ProgramBuilder& b) {
          return b.emit(ElementwiseOp::pow, in[0], immediate(*scalar_f32_constant(g, n.inputs[1])));
        },
        1}},
      {"Clip",
       {[](const Graph& g, const Node& n) {
          float lo = 0, hi = 0;
          return clip_bounds(g, n, lo, hi);
        },
        [](const Graph& g, const Node& n, const std::vector<Operand>& in, ProgramBuilder& b) {
          float lo = 0, hi = 0;
          clip_bounds(g, n, lo, hi);
          return b.emit(ElementwiseOp::min, b.emit(ElementwiseOp::max, in[0], immediate(lo)), immediate(hi));
        },
        1}},
      // PRelu's slope broadcasts to X; leaky_relu reads its alpha as an operand.
      {"PRelu", binary(ElementwiseOp::leaky_relu)},
      {"LeakyRelu",
       {always,
        [](const Graph&, const Node& n, const std::vector<Operand>& in, ProgramBuilder& b) {
          return b.emit(ElementwiseOp::leaky_relu, in[0], immediate(n.attrs.get_float("alpha", 0.01f)));
        },
        1}},
      {"HardSigmoid",
       {always,
        [](const Graph&, const Node& n, const std::vector<Operand>& in, ProgramBuilder& b) {
          return hard_sigmoid(in[0], n.attrs.get_float("alpha", 0.2f), n.attrs.get_float("beta", 0.5f), b);
        },
        1}},
      // Gelu (opset 20): x * 0.5 * (1 + erf(x / sqrt(2))), or with approximate tanh
      // 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))).
      {"Gelu",
       {always,
        [](const Graph&, const Node& n, const std::vector<Operand>& in, ProgramBuilder& b) {
          const Operand x = in[0];
          Operand curve;
          if (n.attrs.get_string("approximate", "none") == "tanh") {
            const Operand cube = b.emit(ElementwiseOp::mul, b.emit(ElementwiseOp::mul, x, x), x);
            const Operand inner = b.emit(ElementwiseOp::add, x, b.emit(ElementwiseOp::mul, cube, immediate(0.044715f)));
            curve = b.emit(ElementwiseOp::tanh, b.emit(ElementwiseOp::mul, inner, immediate(0.7978845608f)));
          } else {
            curve = b.emit(ElementwiseOp::erf, b.emit(ElementwiseOp::mul, x, immediate(0.70710678f)));
          }
          const Operand half_x = b.emit(ElementwiseOp::mul, x, immediate(0.5f));
          return b.emit(ElementwiseOp::mul, half_x, b.emit(ElementwiseOp::add, curve, immediate(1.0f)));
        },
        1}},
      // Swish (opset 24): x * sigmoid(alpha * x).
      {"Swish",
       {always,
        [](const Graph&, const Node& n, const std::vector<Operand>& in, ProgramBuilder& b) {
          const Operand scaled = b.emit(ElementwiseOp::mul, in[0], immediate(n.attrs.get_float("alpha", 1.0f)));
          return b.emit(ElementwiseOp::mul, in[0], b.emit(ElementwiseOp::sigmoid, scaled));
        },
        1}},
      // x * HardSigmoid(x) with alpha 1/6, beta 0.5.
      {"HardSwish",
       {always,
        [](const Graph&, const Node&, const std::vector<Operand>& in, ProgramBuilder& b) {
          return b.emit(ElementwiseOp::mul, in[0], hard_sigmoid(in[0], 1.0f / 6.0f, 0.5f, b));
        },
        1}},
  };
  return table;
}

size_t data_input_count(const Translation& t, const Node& node) {
  return t.data_inputs ? std::min(t.data_inputs, node.inputs.size()) : node.inputs.size();
}

// A node the pass can take in: a known operator on f32 data with f32 output and its
// parameters constant.
bool fusable(const Graph& graph, const Node& node) {
  const auto it = translations().find(node.op);
  if (it == translations().end() || node.outputs.size() != 1) return false;
  if (graph.type_of(node.outputs[0]).dtype != DType::f32) return false;
  for (size_t i = 0; i < data_input_count(it->second, node); ++i) {
    if (node.inputs[i].empty() || graph.type_of(node.inputs[i]).dtype != DType::f32) return false;
  }
  return it->second.supported(graph, node);
}

// Emits one tree: its absorbed producers first (post-order, inputs in order), so the
// program depends only on the graph's structure, never on value names.
class TreeEmitter {
 public:
  TreeEmitter(const Graph& graph, const std::vector<bool>& absorbed) : graph_(graph), absorbed_(absorbed) {}

  Operand node(size_t index) {
    const Node& n = graph_.nodes()[index];
    const Translation& t = translations().at(n.op);
    std::vector<Operand> operands;
    for (size_t i = 0; i < data_input_count(t, n); ++i) operands.push_back(value(n.inputs[i]));
    members_.push_back(index);
    return t.emit(graph_, n, operands, builder_);
  }

  ProgramBuilder& builder() { return builder_; }
  const std::vector<std::string>& slots() const { return slots_; }
  const std::vector<size_t>& members() const { return members_; }

 private:
  Operand value(const std::string& name) {
    const Node* producer = graph_.producer(name);
    if (producer) {
      const size_t index = static_cast<size_t>(producer - graph_.nodes().data());
      if (absorbed_[index]) return node(index);
    }
    if (const std::optional<float> s = scalar_f32_constant(graph_, name)) return immediate(*s);
    for (size_t i = 0; i < slots_.size(); ++i) {
      if (slots_[i] == name) return Operand{Kind::input, static_cast<int>(i), 0.0f};
    }
    slots_.push_back(name);
    return Operand{Kind::input, static_cast<int>(slots_.size()) - 1, 0.0f};
  }

  const Graph& graph_;
  const std::vector<bool>& absorbed_;
  ProgramBuilder builder_;
  std::vector<std::string> slots_;
  std::vector<size_t> members_;
};

}  // namespace

void fuse_elementwise(Graph& graph) {
  auto& nodes = graph.nodes();
  std::vector<bool> candidate(nodes.size()), absorbed(nodes.size(), false);
  for (size_t i = 0; i < nodes.size(); ++i) candidate[i] = fusable(graph, nodes[i]);
  // A candidate whose output is read once, by another candidate, joins that reader's tree,
  // unless a product may quantize that output itself (Graph::is_quantized_source).
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!candidate[i]) continue;
    const std::optional<size_t> reader = sole_consumer(graph, nodes[i].outputs[0]);
    absorbed[i] = reader && candidate[*reader] && !graph.is_quantized_source(nodes[i].outputs[0]);
  }
  std::vector<bool> fused_away(nodes.size(), false);
  for (size_t root = 0; root < nodes.size(); ++root) {
    if (!candidate[root] || absorbed[root]) continue;
    TreeEmitter tree(graph, absorbed);
    tree.node(root);
    Node fused;
    fused.op = "NeeElementwise";
    fused.name = nodes[root].name;
    fused.inputs = tree.slots();
    fused.outputs = nodes[root].outputs;
    fused.attrs.set("program", tree.builder().program().to_string());
    for (size_t member : tree.members()) {
      if (member == root) continue;
      fused_away[member] = true;
      graph.remove_value(nodes[member].outputs[0]);
    }
    nodes[root] = std::move(fused);
  }
  erase_fused(graph, fused_away);
}

}  // namespace nee
