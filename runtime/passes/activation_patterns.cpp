#include "runtime/passes/activation_patterns.h"

#include <cmath>
#include <functional>

#include "runtime/passes/constant_operands.h"
#include "runtime/passes/sole_consumer.h"

namespace nee {

namespace {

// Indices of the nodes reading `value`, one entry per reading input.
std::vector<size_t> readers(const Graph& graph, const std::string& value) {
  std::vector<size_t> found;
  const auto& nodes = graph.nodes();
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const std::string& in : nodes[i].inputs) {
      if (in == value) found.push_back(i);
    }
  }
  return found;
}

// The other input of a two-input node that reads `one`, or "" when it does not.
std::string other_input(const Node& node, const std::string& one) {
  if (node.inputs.size() != 2) return "";
  if (node.inputs[0] == one) return node.inputs[1];
  if (node.inputs[1] == one) return node.inputs[0];
  return "";
}

// The single reader of `value` when it is a node of type `op`.
std::optional<size_t> sole_reader_of_type(const Graph& graph, const std::string& value, const char* op) {
  const std::optional<size_t> next = sole_consumer(graph, value);
  if (!next || graph.nodes()[*next].op != op) return std::nullopt;
  return next;
}

bool has_type_of(const Graph& graph, const std::string& value, const std::string& like) {
  return graph.type_of(value) == graph.type_of(like);
}


// x * gate(x): a gate node and a Mul, the only readers of x (not a graph output), the
// gate's result read only by the Mul.
std::optional<ActivationMatch> match_gated(const Graph& graph, const std::string& x,
                                           const std::function<bool(const Node&)>& is_gate) {
  if (graph.is_output(x)) return std::nullopt;
  const auto& nodes = graph.nodes();
  const std::vector<size_t> r = readers(graph, x);
  if (r.size() != 2 || r[0] == r[1]) return std::nullopt;
  for (int s : {0, 1}) {
    const size_t sig = r[s], mul = r[1 - s];
    if (!is_gate(nodes[sig]) || nodes[mul].op != "Mul") continue;
    const std::string& gate = nodes[sig].outputs[0];
    if (sole_consumer(graph, gate) != mul || other_input(nodes[mul], x) != gate) continue;
    if (!has_type_of(graph, nodes[mul].outputs[0], x)) continue;
    return ActivationMatch{{sig, mul}, mul, nodes[mul].outputs[0]};
  }
  return std::nullopt;
}

}  // namespace

bool is_standard_hard_sigmoid(const Node& node) {
  return node.op == "HardSigmoid" && std::fabs(node.attrs.get_float("alpha", 0.2f) - 1.0f / 6.0f) < 1e-6f &&
         node.attrs.get_float("beta", 0.5f) == 0.5f;
}

std::optional<ActivationMatch> match_silu(const Graph& graph, const std::string& x) {
  return match_gated(graph, x, [](const Node& n) { return n.op == "Sigmoid"; });
}

std::optional<ActivationMatch> match_hard_swish(const Graph& graph, const std::string& x) {
  return match_gated(graph, x, is_standard_hard_sigmoid);
}

std::optional<ActivationMatch> match_gelu(const Graph& graph, const std::string& x) {
  if (graph.is_output(x)) return std::nullopt;
  const auto& nodes = graph.nodes();
  // Opset 20's Gelu op (the erf form).
  if (const auto op = sole_reader_of_type(graph, x, "Gelu");
      op && nodes[*op].attrs.get_string("approximate", "none") == "none" && has_type_of(graph, nodes[*op].outputs[0], x)) {
    ActivationMatch m;
    m.nodes = {*op};
    m.last = *op;
    m.output = nodes[*op].outputs[0];
    return m;
  }
  const std::vector<size_t> r = readers(graph, x);
  if (r.size() != 2 || r[0] == r[1]) return std::nullopt;
  const float half = 0.5f, sqrt2 = 1.41421356f;
  for (int s : {0, 1}) {
    const size_t scale = r[s], mul_x = r[1 - s];
    const Node& sn = nodes[scale];
    const bool divides = sn.op == "Div" && sn.inputs.size() == 2 && sn.inputs[0] == x &&
                         is_scalar_near(graph, sn.inputs[1], sqrt2);
    const bool multiplies = sn.op == "Mul" && is_scalar_near(graph, other_input(sn, x), 1.0f / sqrt2);
    if ((!divides && !multiplies) || nodes[mul_x].op != "Mul") continue;
    const auto erf = sole_reader_of_type(graph, sn.outputs[0], "Erf");
    if (!erf) continue;
    const auto add = sole_reader_of_type(graph, nodes[*erf].outputs[0], "Add");
    if (!add || !is_scalar_near(graph, other_input(nodes[*add], nodes[*erf].outputs[0]), 1.0f)) continue;
    const std::string& sum = nodes[*add].outputs[0];
    const auto mul_sum = sole_reader_of_type(graph, sum, "Mul");
    if (!mul_sum) continue;
    ActivationMatch m;
    m.nodes = {scale, *erf, *add, mul_x};
    const std::string& x_product = nodes[mul_x].outputs[0];
    if (*mul_sum == mul_x) {
      // (x * sum) * 0.5
      if (other_input(nodes[mul_x], x) != sum) continue;
      const auto mul_half = sole_reader_of_type(graph, x_product, "Mul");
      if (!mul_half || !is_scalar_near(graph, other_input(nodes[*mul_half], x_product), half)) continue;
      m.last = *mul_half;
    } else if (is_scalar_near(graph, other_input(nodes[mul_x], x), half)) {
      // (x * 0.5) * sum
      if (sole_consumer(graph, x_product) != *mul_sum || other_input(nodes[*mul_sum], sum) != x_product) continue;
      m.last = *mul_sum;
    } else {
      // x * (sum * 0.5)
      const std::string& half_sum = nodes[*mul_sum].outputs[0];
      if (!is_scalar_near(graph, other_input(nodes[*mul_sum], sum), half)) continue;
      if (sole_consumer(graph, half_sum) != mul_x || other_input(nodes[mul_x], x) != half_sum) continue;
      m.last = mul_x;
    }
    if (m.last != mul_x) m.nodes.push_back(m.last);
    if (*mul_sum != mul_x && *mul_sum != m.last) m.nodes.push_back(*mul_sum);
    m.output = nodes[m.last].outputs[0];
    if (!has_type_of(graph, m.output, x)) continue;
    return m;
  }
  return std::nullopt;
}

void absorb_activation(Graph& graph, std::vector<bool>& fused_away, size_t producer, const ActivationMatch& match,
                       Node fused) {
  auto& nodes = graph.nodes();
  std::vector<std::string> intermediates = {nodes[producer].outputs[0]};
  for (size_t i : match.nodes) {
    if (i == match.last) continue;
    intermediates.push_back(nodes[i].outputs[0]);
    fused_away[i] = true;
  }
  fused.outputs = {match.output};
  nodes[match.last] = std::move(fused);
  fused_away[producer] = true;
  for (const std::string& v : intermediates) graph.remove_value(v);
}

}  // namespace nee
