#pragma once
#include <cstdint>

#include "runtime/graph.h"
#include "runtime/tensor_limits.h"

namespace nee {

// Outputs larger than this stay computed at run time, so folding never bloats a model
// (e.g. a ConstantOfShape producing a large zero tensor).
inline constexpr int64_t kMaxFoldedElements = int64_t{1} << 20;

// Evaluates an imported `node` with its reference kernel when every input is a constant
// (or the op is Shape, which reads only its input's static shape) and its outputs hold
// at most kMaxFoldedElements elements in all. On success each output value becomes a
// constant of the same name, so graph outputs and later readers see the value, and the
// caller drops the node. The outputs' bytes are reserved in `weights` before they are
// allocated. Returns whether it folded.
bool fold_constant_node(Graph& graph, const Node& node, ByteBudget& weights);

}  // namespace nee
