#pragma once
#include <map>
#include <string>
#include <vector>

#include "runtime/graph.h"
#include "runtime/graph_options.h"
#include "runtime/tensor.h"

namespace nee::test {

// Random values for each of g's inputs (seeds 10, 11, ... in input order).
std::map<std::string, Tensor> random_inputs(const Graph& g);

// Runs g optimized (optimize_graph with `options`) and as built, both on the reference
// kernels, on the same random inputs, expecting the same outputs; returns the op types of
// the optimized graph's nodes.
std::vector<std::string> expect_fusion_preserves_outputs(const Graph& g, const GraphOptions& options = {});

}  // namespace nee::test
