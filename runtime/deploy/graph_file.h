#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/graph.h"

namespace nee {

// An optimized graph as a deploy artifact stores it: a JSON description of its values,
// nodes and attributes, and one weights file holding every constant's bytes (and those
// of tensor attributes), each at a multiple of kWeightAlignment so that the file can be
// mapped and its tensors read in place. String tensors, whose storage holds objects,
// are kept in the JSON.
inline constexpr size_t kWeightAlignment = 64;

struct GraphFile {
  nlohmann::json description;
  std::string weights;  // the weights file's bytes
};

GraphFile serialize_graph(const Graph& graph);

// The graph `description` describes, its constants views of `weights` (bytes of a
// mapped weights file, kept alive by the tensors). nee::Error naming what is wrong where
// the description is malformed or points outside the weights.
Graph deserialize_graph(const nlohmann::json& description, std::shared_ptr<uint8_t> weights, size_t weights_bytes);

}  // namespace nee
