#pragma once
#include <cstdint>

#include "runtime/graph.h"
#include "runtime/tensor_limits.h"

namespace nee {

// Outputs larger than this and than every input stay computed at run time, so folding
// never bloats a model (e.g. a ConstantOfShape producing a large zero tensor). A node that
// makes no more elements than its largest input folds whatever its size: a tied LM head's
// Transpose of its [8000, 256] embedding ran at every run before (0.9 of a 2.2 ms model,
// its MatMul's B left unpacked), and DeformConv's Reshape of a 9.4 MB weight kept its
// 1x1 Conv off the blocked layout.
inline constexpr int64_t kMaxFoldedElements = int64_t{1} << 20;

// Evaluates an imported `node` with its reference kernel when every input is a constant
// (or the op is Shape, which reads only its input's static shape) and its outputs hold
// at most kMaxFoldedElements elements in all, or no more than its largest input. On success each output value becomes a
// constant of the same name, so graph outputs and later readers see the value, and the
// caller drops the node. The outputs' bytes are reserved in `weights` before they are
// allocated. Returns whether it folded.
bool fold_constant_node(Graph& graph, const Node& node, ByteBudget& weights);

}  // namespace nee
