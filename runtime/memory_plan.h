#pragma once
#include <cstddef>
#include <string>
#include <unordered_map>

#include "runtime/graph.h"

namespace nee {

// A static plan for a graph's intermediate tensors: each gets an offset in one arena,
// and two tensors share bytes only when their lifetimes (producing node to last reading
// node, in execution order) do not overlap. Graph outputs, and views of them, are not
// planned: they are returned to the caller and must outlive the next run.
struct MemoryPlan {
  std::unordered_map<std::string, size_t> offsets;  // planned values -> byte offset
  size_t arena_bytes = 0;                           // planned peak
  size_t unshared_bytes = 0;                        // the same tensors without reuse
};

// `graph` must be sorted topologically; nodes run in that order. Every offset is a
// multiple of `alignment` bytes (a power of two).
MemoryPlan plan_memory(const Graph& graph, size_t alignment = 64);

// Ops whose output 0 is a view of input 0 (same bytes) with the reference kernels.
bool output_is_view_of_input(const std::string& op);

}  // namespace nee
