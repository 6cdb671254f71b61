#pragma once
#include <cstdint>

#include "runtime/graph.h"

namespace nee {

// Checks a node of the model against the type constraints of its operator as ONNX
// defines it at the model's default-domain `opset` (onnx::OpSchemaRegistry of the onnx
// library NEE is built with): each tensor input and output must have an element type
// that its formal parameter allows (Relu at opset 13 takes no int8; at opset 14 it
// does). Values the graph holds no type for (sequences) are skipped. Throws nee::Error
// naming the operand, its type, the opset and the types allowed, or naming an operator
// the opset does not define. The caller adds the node's name.
void check_input_types(const Graph& graph, const Node& node, int64_t opset);
void check_output_types(const Graph& graph, const Node& node, int64_t opset);

}  // namespace nee
