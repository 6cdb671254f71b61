#pragma once
#include <optional>
#include <string>

#include "runtime/graph.h"

namespace nee {

// Index of the one node that reads `value`, when exactly one input of one node reads it
// and it is not a graph output: the condition for fusing its producer into that node.
std::optional<size_t> sole_consumer(const Graph& graph, const std::string& value);

}  // namespace nee
