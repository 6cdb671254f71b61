#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "runtime/graph.h"

namespace nee {

// An optimized graph as a deploy artifact stores it: a JSON description of its values,
// nodes and attributes, and one weights file holding every constant's bytes (and those
// of tensor attributes), each at a multiple of kWeightAlignment so that the file can be
// mapped and its tensors read in place. String tensors, whose storage holds objects,
// are kept in the JSON.
inline constexpr size_t kWeightAlignment = 64;

// The weights file that the graphs of one artifact share: each distinct byte string is
// stored once, since the graphs of one model for several sets of input shapes hold the
// same weights, and a graph may hold one constant under two names.
class WeightsFile {
 public:
  // The offset of these bytes: appended at the next aligned offset unless stored already.
  size_t place(const void* data, size_t bytes);
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
  std::unordered_multimap<size_t, size_t> offsets_;  // by a hash of the bytes (compared in full)
};

// The description of `graph`, its constants' bytes placed in `weights`.
nlohmann::json serialize_graph(const Graph& graph, WeightsFile& weights);

// The graph `description` describes, its constants views of `weights` (bytes of a
// mapped weights file, kept alive by the tensors). nee::Error naming what is wrong where
// the description is malformed or points outside the weights.
Graph deserialize_graph(const nlohmann::json& description, std::shared_ptr<uint8_t> weights, size_t weights_bytes);

}  // namespace nee
