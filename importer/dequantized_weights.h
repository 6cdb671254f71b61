#pragma once

#include "runtime/graph.h"

namespace nee {

// After a DequantizeLinear of a constant 8-bit (or unpacked 4-bit) matrix or conv weights
// [O, C, KH, KW] folded into an f32 constant, notes the integers, scale and zero point it
// came from on that constant (Graph::set_dequantized_origin), so a matmul or conv reading it
// may read the integers instead (passes.h: quantize_matmul_weights, quantize_conv_activations).
// Other nodes are left alone.
void note_dequantized_origin(Graph& graph, const Node& node);

}  // namespace nee
