#pragma once
#include <cstddef>
#include <string>
#include <unordered_map>

#include "runtime/graph.h"
#include "runtime/tensor_limits.h"

namespace nee {

// A static plan for a graph's intermediate tensors: each gets an offset in one arena,
// and two tensors share bytes only when their lifetimes (producing node to last reading
// node, in execution order) do not overlap, or when one is placed where a batch-1
// Concat's output holds it: an input that only that Concat (or a chain of Concats that
// each extend the last one's inputs) reads, and the chain's shorter Concats (copy-free
// concatenation). Graph outputs, and views of them, are not planned: they are returned
// to the caller and must outlive the next run.
struct MemoryPlan {
  std::unordered_map<std::string, size_t> offsets;  // planned values -> byte offset
  size_t arena_bytes = 0;                           // planned peak
  size_t unshared_bytes = 0;                        // the same tensors without reuse
};

// `graph` must be sorted topologically; nodes run in that order. Every offset is a
// multiple of `alignment` bytes (a power of two).
MemoryPlan plan_memory(const Graph& graph, size_t alignment = 64);

// Checks what running `graph` with `plan` takes, before a session allocates any of it:
// each tensor within caps.tensor_bytes; the graph's constants within caps.weights_bytes;
// one run's tensors (the arena, and the node outputs allocated per run outside it: graph
// outputs, strings, views) within caps.plan_bytes; and those with the graph inputs within
// caps.total_bytes. Throws nee::Error naming the cap, the sizes, and the largest tensor
// with the node that makes it. Returns how many runs may be in progress at once within
// caps.total_bytes, each with its own inputs and tensors beside the one set of constants:
// at least 1.
size_t check_memory_caps(const Graph& graph, const MemoryPlan& plan, const MemoryCaps& caps);

// Ops whose output 0 is a view of input 0 (same bytes) with the reference kernels.
bool output_is_view_of_input(const std::string& op);

}  // namespace nee
