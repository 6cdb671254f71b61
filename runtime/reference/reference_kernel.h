#pragma once
#include <functional>
#include <string>
#include <unordered_map>
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

}  // namespace nee
