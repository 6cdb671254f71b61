#pragma once
#include <optional>
#include <vector>

#include "core/conv2d_workload.h"
#include "core/workload.h"
#include "runtime/graph.h"

namespace nee {

// The tunable workload a node of an optimized graph computes, or nullopt when no kernel
// family covers it (it then runs on the reference provider). The tuner and the bundle
// provider both call this, so a tuned kernel is found under the key it was tuned for.
// Covered: NeeMatMul with f32 operands of rank >= 2 and no empty dims; NeeConv;
// NeeElementwise with an output of rank >= 1; 2-D f32 MaxPool (without Indices),
// AveragePool, GlobalMaxPool, GlobalAveragePool; Softmax at opset 13 semantics;
// NeeLayerNorm with scale and bias over the normalized dims; f32 Transpose, and f32
// Slice with positive steps (strided_copy; the kernel's one operand is the data input).
std::optional<Workload> workload_of(const Graph& graph, const Node& node);

// What NeeConv adds to Conv's window attributes (group, activation and its clip bounds,
// the weight and activation layouts), as the conv2d family holds them; the window's
// strides, pads and dilations are left at their defaults.
Conv2dAttrs nee_conv_attrs(const Node& node);
// The input slot of a NeeConv's residual (after X, W and the bias where it has one), or
// -1 without one.
int nee_conv_residual_slot(const Node& node);

// The distinct workloads of a graph (after optimize_graph), in node order.
std::vector<Workload> extract_workloads(const Graph& graph);

// A distinct workload and how many nodes of the graph compute it: the weight of its
// kernel time in the model's time.
struct WorkloadCount {
  Workload workload;
  int count = 0;
};
// The distinct workloads of a graph with their counts, in order of first occurrence.
std::vector<WorkloadCount> count_workloads(const Graph& graph);

}  // namespace nee
