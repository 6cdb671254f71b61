#pragma once
#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "runtime/graph.h"
#include "runtime/tensor.h"

namespace nee {

// A reference kernel computes one node with plain, obviously correct C++. Its factory
// reads the node's attributes and static types once, at bind time.
using ReferenceFn =
    std::function<void(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs)>;
using ReferenceFactory = ReferenceFn (*)(const Graph& graph, const Node& node);

// The one table of reference kernels, keyed by op type (reference_registry.cpp).
const std::unordered_map<std::string, ReferenceFactory>& reference_kernels();
// The ops whose reference kernel assigns every element of every output it is given, so
// that the session need not zero their planned bytes before each run (the others may
// accumulate into theirs). Checked against the ONNX node tests, and NEE's own ops on
// graphs of their own, with outputs that start as NaN (tests/runtime/reference_writes_test.cpp).
const std::unordered_set<std::string>& reference_kernels_writing_every_element();

}  // namespace nee
