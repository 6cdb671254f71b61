#pragma once
#include <string>
#include <vector>

#include "runtime/graph.h"

namespace nee::test {

// Adds a node and declares its single output's type, for hand-built graphs.
inline void add_node(Graph& g, const std::string& op, const std::string& name,
                     const std::vector<std::string>& inputs, const std::string& output,
                     const TensorType& type, Attributes attrs = {}) {
  g.add_node(Node{op, name, inputs, {output}, std::move(attrs)});
  g.add_value(output, type);
}

inline TensorType f32(std::vector<int64_t> shape) { return TensorType{DType::f32, std::move(shape)}; }

}  // namespace nee::test
