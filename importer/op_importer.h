#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/graph.h"

namespace nee {

struct ImportContext {
  const Graph& graph;  // holds the types of every value the node reads
  int64_t opset;       // version of the default ONNX domain
};

// Validates one node's inputs and attributes and returns its output types. It may
// normalize attributes (fill defaults, make axes non-negative) so that passes and
// kernels need not know the opset. Errors need not name the node: the caller adds it.
using ImportFn = std::vector<TensorType> (*)(const ImportContext& ctx, Node& node);

// The one dispatch table from ONNX op type to its import function (op_registry.cpp).
const std::unordered_map<std::string, ImportFn>& op_importers();

}  // namespace nee
