#include <optional>

#include "core/matmul_weight_layout.h"
#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

namespace {

// B [K, N] of a product as unsigned integers with a scale and offset per group of rows and
// column, from the DequantizeLinear it came from (a Gemm's transposed B is untransposed
// with its origin by fuse_gemm): nullopt unless its scale is one value, one per column, or
// one per block of rows and column whose scales take fewer bytes than its integers.
std::optional<QuantizedMatrix> quantized_b(const DequantizedOrigin& origin) {
  QuantizedMatrix b;
  b.rows = origin.x.shape()[0];
  b.columns = origin.x.shape()[1];
  const bool per_tensor = origin.block_size == 0 && origin.scale.elements() == 1;
  if (per_tensor || (origin.block_size == 0 && origin.axis == 1)) {
    b.group = b.rows;
  } else if (origin.block_size > 0 && origin.axis == 0) {
    b.group = origin.block_size;
  } else {
    return std::nullopt;
  }
  const int64_t groups = (b.rows + b.group - 1) / b.group;
  const bool is_signed = origin.x.dtype() == DType::i8;
  const auto parameter_index = [&](int64_t g, int64_t n) -> int64_t {
    if (per_tensor) return 0;
    return origin.block_size == 0 ? n : g * b.columns + n;
  };
  // Two integers a byte where every one fits in 4 bits (what INT4 and UINT4 weights held
  // one a byte come back as) and the rows pair up.
  const int lowest = is_signed ? -8 : 0, highest = is_signed ? 7 : 15;
  bool narrow = b.rows % 2 == 0;
  for (int64_t i = 0; narrow && i < origin.x.elements(); ++i) {
    const int v = byte_integer_at(origin.x, i);
    narrow = v >= lowest && v <= highest;
  }
  b.bits = narrow ? 4 : 8;
  // A group's scale and offset (8 bytes a column) may take no more than its integers.
  if (b.group * b.bits < 64) return std::nullopt;
  // Signed integers are stored shifted to unsigned ones, their zero points with them.
  const int shift = is_signed ? (narrow ? 8 : 128) : 0;
  b.values.resize(static_cast<size_t>(b.rows * b.columns));
  for (int64_t i = 0; i < b.rows * b.columns; ++i) {
    b.values[i] = static_cast<uint8_t>(byte_integer_at(origin.x, i) + shift);
  }
  b.scales.resize(static_cast<size_t>(groups * b.columns));
  b.offsets.resize(b.scales.size());
  const bool has_zero_point = !origin.zero_point.empty_storage();
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t n = 0; n < b.columns; ++n) {
      const int64_t p = parameter_index(g, n);
      const float scale = origin.scale.data_as<float>()[p];
      const int zero = (has_zero_point ? byte_integer_at(origin.zero_point, p) : 0) + shift;
      b.scales[g * b.columns + n] = scale;
      b.offsets[g * b.columns + n] = -static_cast<float>(zero) * scale;
    }
  }
  return b;
}

}  // namespace

void quantize_matmul_weights(Graph& graph) {
  for (Node& node : graph.nodes()) {
    if (node.op != "NeeMatMul" || node.attrs.get_int("b_block", 0) != 0 || node.attrs.get_int("trans_a", 0) != 0 ||
        node.attrs.get_int("trans_b", 0) != 0) {
      continue;
    }
    const std::string weights_name = node.inputs[1];
    const DequantizedOrigin* origin = graph.dequantized_origin(weights_name);
    if (!origin || origin->x.shape().size() != 2) continue;
    const std::optional<QuantizedMatrix> b = quantized_b(*origin);
    if (!b) continue;
    // Products sharing one constant share its panels.
    const std::string base = weights_name + ".q" + std::to_string(b->bits);
    const std::string panels_name = base + "panels", scales_name = base + "scales";
    if (!graph.has_value(panels_name)) {
      Tensor panels(DType::u8, quantized_panel_shape(*b));
      Tensor scales(DType::f32, quantized_scales_shape(*b));
      pack_quantized_panels(*b, panels.data_as<uint8_t>(), scales.data_as<float>());
      graph.add_constant(panels_name, panels);
      graph.add_constant(scales_name, scales);
    }
    node.inputs[1] = panels_name;
    node.inputs.insert(node.inputs.begin() + 2, scales_name);
    const MatmulAttrs packed = with_packed_b({}, {b->rows, b->columns});
    node.attrs.set("b_block", packed.b_block);
    if (packed.b_columns != 0) node.attrs.set("b_columns", packed.b_columns);
    node.attrs.set("b_bits", b->bits);
    node.attrs.set("b_group", b->group);
    if (graph.consumers(weights_name).empty() && !graph.is_output(weights_name)) graph.remove_value(weights_name);
  }
}

}  // namespace nee
