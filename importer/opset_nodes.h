#pragma once
#include <cstdint>
#include <string>

#include "runtime/graph.h"

namespace nee {

// Nodes the importer adds (for control flow and sequences) are imported like the model's
// own, so they take the form the model's opset reads.

// Squeeze or Unsqueeze (`op`) of one axis: the axes an input from opset 13 (a constant
// named `<name>/axes`, added to `graph`), an attribute before.
Node axes_node(Graph& graph, const std::string& op, const std::string& name, const std::string& input,
               const std::string& output, int64_t axis, int64_t opset);

}  // namespace nee
