#pragma once
#include <string>

#include "runtime/graph.h"

namespace nee {

// A NeeMatMul node for a plain product A x B (no transposes, alpha 1, no bias, no Relu),
// the starting point of the MatMul fusions.
Node plain_nee_matmul(const Node& matmul);

// Whether a MatMul node can become a NeeMatMul: f32 operands of rank >= 2.
bool is_fusable_matmul(const Graph& graph, const Node& node);

}  // namespace nee
