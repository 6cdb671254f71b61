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

// Values of graph inputs known when importing, by input name. Such an input becomes a
// constant (and no longer a graph input), so shape-deciding inputs such as Reshape's
// shape can be bound at import; its dtype and shape must match the declaration.
using ConstantInputs = std::map<std::string, Tensor>;

// Imports an ONNX model (IR version 3 or later, default-domain opset 1..17) into a
// Graph with static shapes, constants and a topological node order. Nodes whose inputs
// are all constants are folded into constants. Initializers may keep their data in
// external files inside the model's folder (import_onnx only). Throws nee::Error naming
// the file, node, value or operator at fault.
Graph import_onnx(const std::string& path, const InputShapes& input_shapes = {},
                  const ConstantInputs& constant_inputs = {});
Graph import_onnx_bytes(const std::string& bytes, const InputShapes& input_shapes = {},
                        const ConstantInputs& constant_inputs = {});

// The model's graph inputs that are not initializers, in order: the order in which ONNX
// test data numbers its input_<i>.pb files.
std::vector<std::string> onnx_graph_input_names(const std::string& path);

}  // namespace nee
