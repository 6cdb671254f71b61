#pragma once
#include "runtime/graph.h"

namespace nee {

// Floating-point operations one execution of a node performs. A node with a tunable
// workload (node_workload.h) counts what Workload::flops() says, whichever provider runs
// it, so bundle and reference agree on the model's total. Other ops:
//   MatMul, Gemm, Conv, ConvTranspose (unfused): 2 per multiply-add;
//   MaxPool, AveragePool: one per window element (output elements x kernel size);
//   reductions, Softmax, LogSoftmax, normalizations, global pools: one per input element;
//   Sum, Min, Max: one per output element and extra operand;
//   data movement (views, Transpose, Concat, Slice, Gather, Pad, Cast, nearest Resize...): 0;
//   every other op, as elementwise: one per output element.
// An exp or a division counts as one, so outside matmul and conv these are floors.
double node_flops(const Graph& graph, const Node& node);

}  // namespace nee
