#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/graph.h"

namespace nee {

// The range [first, first + count) of one axis of a value that a reader writes to `output`.
struct AxisPart {
  std::string output;
  int64_t first = 0, count = 0;
};

// The parts a reader of `value` takes, when it only cuts ranges of `axis`: a Slice with
// every other dim whole and steps of 1, or a Split along `axis` (its omitted outputs take
// none); nullopt for any other reader.
std::optional<std::vector<AxisPart>> axis_parts(const Graph& graph, const Node& reader, const std::string& value,
                                                size_t axis);

}  // namespace nee
