#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/graph.h"

namespace nee {

// Shapes for graph inputs with symbolic dims (dim_param), by input name. A symbolic
// batch dim (dim 0) not given here becomes 1, with a warning; any other symbolic dim
// not given here is an error.
using InputShapes = std::map<std::string, std::vector<int64_t>>;

// Imports an ONNX model into a Graph with static shapes, constants and a topological
// node order. Throws nee::Error naming the file, node, value or operator at fault.
Graph import_onnx(const std::string& path, const InputShapes& input_shapes = {});
Graph import_onnx_bytes(const std::string& bytes, const InputShapes& input_shapes = {});

}  // namespace nee
