#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"
#include "importer/ops/constant_inputs.h"

namespace nee {

namespace {

// The scale (and zero point) of QuantizeLinear and DequantizeLinear: one value, or one per
// index of X's dim `axis` (default 1, stored non-negative; 0 when per tensor), or from
// opset 21 one per block of `block_size` indices along the axis (X's shape but for
// ceil(dim / block_size) there; stored, 0 when not blocked); the zero point has the
// scale's shape.
void check_quantization_parameters(const ImportContext& ctx, Node& node, const TensorType& x) {
  const TensorType& scale = input_type(ctx, node, 1, {DType::f32});
  const int64_t block = node.attrs.get_int("block_size", 0);
  if (block < 0) throw Error(fmt::format("block_size {} is negative", block));
  const bool per_tensor = block == 0 && (scale.shape.empty() || (scale.shape.size() == 1 && scale.shape[0] == 1));
  if (block > 0 && x.shape.empty()) throw Error("blocked quantization needs X of rank 1 or more");
  // axis matters only per axis: a per-tensor scale ignores it, whatever X's rank.
  const int64_t axis =
      per_tensor || x.shape.empty() ? 0 : normalize_axis(node.attrs.get_int("axis", 1), x.shape.size(), "axis");
  if (block > 0) {
    std::vector<int64_t> blocked = x.shape;
    blocked[axis] = (x.shape[axis] + block - 1) / block;
    if (scale.shape != blocked) {
      throw Error(fmt::format("scale {} must be [{}]: X {} in blocks of {} along dim {}", scale.to_string(),
                              fmt::join(blocked, ","), x.to_string(), block, axis));
    }
  } else if (!per_tensor && (scale.shape.size() != 1 || x.shape.empty() || scale.shape[0] != x.shape[axis])) {
    throw Error(fmt::format("scale {} must hold one value or one per index of dim {} of {}", scale.to_string(), axis,
                            x.to_string()));
  }
  if (has_input(node, 2) && ctx.graph.type_of(node.inputs[2]).shape != scale.shape) {
    throw Error(fmt::format("zero point {} must have the scale's shape {}", ctx.graph.type_of(node.inputs[2]).to_string(),
                            scale.to_string()));
  }
  node.attrs.set("axis", axis);
  node.attrs.set("block_size", block);
}

}  // namespace

// QuantizeLinear (opset 10, per-axis from 13, blocked and 16-bit from 21): X f32 or i32 to
// the zero point's dtype (uint8 without one), rounding half to even and saturating.
std::vector<TensorType> import_quantize_linear(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 3, 1);
  const TensorType& x = input_type(ctx, node, 0, {DType::f32, DType::i32});
  // Opset 23: the precision of the division (FLOAT 1, or 0: the input's, which for f32 is
  // the same).
  if (const int64_t precision = node.attrs.get_int("precision", 0); precision != 0 && precision != 1) {
    throw Error(fmt::format("precision {} is not supported (0 or 1, float)", precision));
  }
  node.attrs.erase("precision");
  DType to = has_input(node, 2) ? input_type(ctx, node, 2, {DType::u8, DType::i8, DType::u16, DType::i16}).dtype
                                 : DType::u8;
  // Opset 21: output_dtype names the type where no zero point does (UINT8 2, INT8 3,
  // UINT16 4, INT16 5).
  if (const int64_t named = node.attrs.get_int("output_dtype", 0); named != 0) {
    const DType by_name = named == 2   ? DType::u8
                          : named == 3 ? DType::i8
                          : named == 4 ? DType::u16
                          : named == 5 ? DType::i16
                                       : DType::f32;
    if (by_name == DType::f32 || (has_input(node, 2) && by_name != to)) {
      throw Error(fmt::format("output_dtype {} is not uint8, int8, uint16 or int16, or not the zero point's type",
                              named));
    }
    to = by_name;
    node.attrs.erase("output_dtype");
  }
  check_quantization_parameters(ctx, node, x);
  return {TensorType{to, x.shape}};
}

// DequantizeLinear (opset 10, per-axis from 13, blocked and 16-bit from 21): (X - zero
// point) * scale in f32; X is uint8, int8, uint16, int16 (4-bit weights are held as 8-bit
// ones) or int32 (without a zero point).
std::vector<TensorType> import_dequantize_linear(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 3, 1);
  const TensorType& x = input_type(ctx, node, 0, {DType::u8, DType::i8, DType::u16, DType::i16, DType::i32});
  // Opset 23: the output's type, the scale's (f32) unless named otherwise.
  if (const int64_t named = node.attrs.get_int("output_dtype", 0); named != 0 && named != 1) {
    throw Error(fmt::format("output_dtype {} is not supported (float, 1)", named));
  }
  node.attrs.erase("output_dtype");
  if (has_input(node, 2)) input_type(ctx, node, 2, {x.dtype});
  check_quantization_parameters(ctx, node, x);
  return {TensorType{DType::f32, x.shape}};
}

// DynamicQuantizeLinear (opset 11): f32 X to uint8 with the scale and zero point that
// map X's range (widened to hold 0) onto 0..255.
std::vector<TensorType> import_dynamic_quantize_linear(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, node.outputs.size());
  if (node.outputs.empty() || node.outputs.size() > 3) {
    throw Error(fmt::format("expects 1 to 3 outputs, got {}", node.outputs.size()));
  }
  const TensorType& x = input_type(ctx, node, 0, {DType::f32});
  std::vector<TensorType> outputs = {{DType::u8, x.shape}, {DType::f32, {}}, {DType::u8, {}}};
  outputs.resize(node.outputs.size());
  return outputs;
}

namespace {

// The output shape of an integer matrix product of A [..., M, K] and B [..., K, N] (rank 2
// or more each; batch dims broadcast), and a zero point that is one value or one per
// row of A (`along` M) or column of B (N).
std::vector<int64_t> integer_matmul_shape(const TensorType& a, const TensorType& b) {
  if (a.shape.size() < 2 || b.shape.size() < 2) {
    throw Error(fmt::format("operands {} and {} must have rank 2 or more", a.to_string(), b.to_string()));
  }
  if (a.shape.back() != b.shape[b.shape.size() - 2]) {
    throw Error(fmt::format("inner dimensions differ: {} x {}", a.to_string(), b.to_string()));
  }
  std::vector<int64_t> shape = broadcast_shapes({a.shape.begin(), a.shape.end() - 2}, {b.shape.begin(), b.shape.end() - 2});
  shape.push_back(a.shape[a.shape.size() - 2]);
  shape.push_back(b.shape.back());
  return shape;
}

void check_zero_point(const ImportContext& ctx, const Node& node, size_t index, DType dtype, int64_t along) {
  if (!has_input(node, index)) return;
  const TensorType& zp = input_type(ctx, node, index, {dtype});
  if (zp.elements() != 1 && !(zp.shape.size() == 1 && zp.shape[0] == along)) {
    throw Error(fmt::format("zero point {} must be one value or {} (one per row or column)", zp.to_string(), along));
  }
}

void check_scalar(const ImportContext& ctx, const Node& node, size_t index, std::initializer_list<DType> dtypes) {
  const TensorType& t = input_type(ctx, node, index, dtypes);
  if (t.elements() != 1) throw Error(fmt::format("input {} ('{}') {} must be one value", index, node.inputs[index], t.to_string()));
}

}  // namespace

// MatMulInteger (opset 10): (A - a_zero_point) x (B - b_zero_point) in int32; A and B
// are uint8 or int8, the zero points per tensor, per row of A or per column of B.
std::vector<TensorType> import_matmul_integer(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 4, 1);
  const TensorType& a = input_type(ctx, node, 0, {DType::u8, DType::i8});
  const TensorType& b = input_type(ctx, node, 1, {DType::u8, DType::i8});
  const std::vector<int64_t> shape = integer_matmul_shape(a, b);
  check_zero_point(ctx, node, 2, a.dtype, a.shape[a.shape.size() - 2]);
  check_zero_point(ctx, node, 3, b.dtype, b.shape.back());
  return {TensorType{DType::i32, shape}};
}

// QLinearMatMul (opset 10): a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
// y_zero_point; the int32 product of the zero-point-shifted operands, scaled by
// a_scale * b_scale / y_scale, rounded half to even and saturated to y's dtype.
std::vector<TensorType> import_qlinear_matmul(const ImportContext& ctx, Node& node) {
  expect_arity(node, 8, 8, 1);
  const TensorType& a = input_type(ctx, node, 0, {DType::u8, DType::i8});
  const TensorType& b = input_type(ctx, node, 3, {DType::u8, DType::i8});
  const DType y = input_type(ctx, node, 7, {DType::u8, DType::i8}).dtype;
  for (size_t i : {1, 4, 6}) check_scalar(ctx, node, i, {DType::f32});
  check_scalar(ctx, node, 2, {a.dtype});
  check_scalar(ctx, node, 5, {b.dtype});
  check_scalar(ctx, node, 7, {y});
  return {TensorType{y, integer_matmul_shape(a, b)}};
}

}  // namespace nee
