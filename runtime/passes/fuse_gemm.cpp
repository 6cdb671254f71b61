#include <algorithm>

#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

namespace {

// Gemm with transB and constant weights (every exported Linear layer): B is held as
// [K, N] instead, so the kernel's vectors over N are contiguous loads of a row of B, not
// gathers across rows, and an unpacked schedule (a batch-1 product, matmul_cpu_space.cpp)
// streams B once.
// A rank-2 tensor of any fixed-size type, transposed.
Tensor transposed_matrix(const Tensor& t) {
  const int64_t rows = t.shape()[0], cols = t.shape()[1];
  const size_t size = dtype_size(t.dtype());
  Tensor out(t.dtype(), {cols, rows});
  const auto* from = static_cast<const uint8_t*>(t.data());
  auto* to = static_cast<uint8_t*>(out.data());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) std::copy_n(from + (r * cols + c) * size, size, to + (c * rows + r) * size);
  }
  return out;
}

// The integers a transposed weight came from, transposed with it (per-axis and blocked
// parameters follow their axis).
DequantizedOrigin transposed_origin(const DequantizedOrigin& origin) {
  DequantizedOrigin t = origin;
  t.x = transposed_matrix(origin.x);
  if (origin.scale.shape().size() == 2) {
    t.scale = transposed_matrix(origin.scale);
    if (!origin.zero_point.empty_storage()) t.zero_point = transposed_matrix(origin.zero_point);
  }
  if (origin.scale.elements() != 1 || origin.block_size != 0) t.axis = 1 - origin.axis;
  return t;
}

void hold_weights_untransposed(Graph& graph, Node& node) {
  const std::string b_name = node.inputs[1];
  const Tensor* b = f32_constant(graph, b_name);
  if (!b || b->shape().size() != 2) return;
  // Gemms sharing one constant share its transposed copy.
  const std::string transposed_name = b_name + ".transposed";
  if (!graph.has_value(transposed_name)) {
    const int64_t rows = b->shape()[0], cols = b->shape()[1];
    Tensor t(DType::f32, {cols, rows});
    const float* from = b->data_as<float>();
    float* to = t.data_as<float>();
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) to[c * rows + r] = from[r * cols + c];
    }
    graph.add_constant(transposed_name, t);
    if (const DequantizedOrigin* origin = graph.dequantized_origin(b_name)) {
      graph.set_dequantized_origin(transposed_name, transposed_origin(*origin));
    }
  }
  node.inputs[1] = transposed_name;
  node.attrs.set("trans_b", int64_t{0});
  // The original goes once nothing reads it, so the weights are held once.
  if (graph.consumers(b_name).empty() && !graph.is_output(b_name)) graph.remove_value(b_name);
}

}  // namespace

void fuse_gemm(Graph& graph) {
  for (Node& node : graph.nodes()) {
    if (node.op != "Gemm") continue;
    Node fused;
    fused.op = "NeeMatMul";
    fused.name = node.name;
    fused.inputs = {node.inputs[0], node.inputs[1]};
    if (node.inputs.size() > 2 && !node.inputs[2].empty()) fused.inputs.push_back(node.inputs[2]);
    fused.outputs = node.outputs;
    fused.attrs.set("trans_a", node.attrs.get_int("transA", 0));
    fused.attrs.set("trans_b", node.attrs.get_int("transB", 0));
    fused.attrs.set("alpha", node.attrs.get_float("alpha", 1.0f));
    fused.attrs.set("beta", node.attrs.get_float("beta", 1.0f));
    fused.attrs.set("relu", int64_t{0});
    node = std::move(fused);
    if (node.attrs.get_int("trans_b") != 0) hold_weights_untransposed(graph, node);
  }
}

}  // namespace nee
