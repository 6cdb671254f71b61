#include "importer/dequantized_weights.h"

namespace nee {

void note_dequantized_origin(Graph& graph, const Node& node) {
  if (node.op != "DequantizeLinear" || node.outputs.size() != 1 || !graph.constant(node.outputs[0])) return;
  const Tensor* x = graph.constant(node.inputs[0]);
  const Tensor* scale = graph.constant(node.inputs[1]);
  const bool has_zero_point = node.inputs.size() > 2 && !node.inputs[2].empty();
  const Tensor* zero_point = has_zero_point ? graph.constant(node.inputs[2]) : nullptr;
  // Matrices, and conv weights [O, C, KH, KW].
  const size_t rank = x ? x->shape().size() : 0;
  if (!x || !scale || (rank != 2 && rank != 4) || (x->dtype() != DType::i8 && x->dtype() != DType::u8)) return;
  if (scale->dtype() != DType::f32 || graph.type_of(node.outputs[0]).dtype != DType::f32) return;
  DequantizedOrigin origin;
  origin.x = *x;
  origin.scale = *scale;
  if (zero_point) origin.zero_point = *zero_point;
  origin.axis = node.attrs.get_int("axis", 1);
  origin.block_size = node.attrs.get_int("block_size", 0);
  graph.set_dequantized_origin(node.outputs[0], std::move(origin));
}

}  // namespace nee
