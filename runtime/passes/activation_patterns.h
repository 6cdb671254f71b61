#pragma once
#include <optional>
#include <string>
#include <vector>

#include "runtime/graph.h"

namespace nee {

// An activation that exporters spell as several nodes, found applied to one value.
struct ActivationMatch {
  std::vector<size_t> nodes;  // the pattern's node indices; `last` writes the result
  size_t last = 0;
  std::string output;         // the activation's result value
};

// x * sigmoid(x): a Sigmoid and a Mul, the only readers of x (not a graph output), the
// Sigmoid's result read only by the Mul.
std::optional<ActivationMatch> match_silu(const Graph& graph, const std::string& x);

// x * HardSigmoid(x) with alpha 1/6 and beta 0.5 (PyTorch's Hardswish before opset 14):
// the same shape of match as SiLU's.
std::optional<ActivationMatch> match_hard_swish(const Graph& graph, const std::string& x);

// HardSigmoid with alpha 1/6 and beta 0.5 (PyTorch's Hardsigmoid), the constants the
// fused hardsigmoid and hardswish epilogues compute with.
bool is_standard_hard_sigmoid(const Node& node);

// Erf-based GELU as PyTorch exports it: Div(x, sqrt(2)) (or Mul by 1/sqrt(2)), Erf,
// Add 1, and the product of x, that sum and 0.5 in any association. x is read by the
// Div and one Mul only, every intermediate has one reader, and the result has x's type.
std::optional<ActivationMatch> match_gelu(const Graph& graph, const std::string& x);

// Puts `fused` (the producer of x with the activation applied) in the place of the
// match's last node, which comes after the producer and every pattern node; marks the
// producer and the other pattern nodes fused away and drops the intermediate values.
void absorb_activation(Graph& graph, std::vector<bool>& fused_away, size_t producer, const ActivationMatch& match,
                       Node fused);

}  // namespace nee
