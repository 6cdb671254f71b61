#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"

namespace nee {

namespace {

// The multidirectional broadcast of all present inputs, which must share one dtype.
TensorType broadcast_inputs(const ImportContext& ctx, const Node& node, std::initializer_list<DType> allowed) {
  const TensorType& first = input_type(ctx, node, 0, allowed);
  TensorType out = first;
  for (size_t i = 1; i < node.inputs.size(); ++i) {
    const TensorType& t = input_type(ctx, node, i, allowed);
    if (t.dtype != first.dtype) {
      throw Error(fmt::format("operands have different dtypes: {} and {}", first.to_string(), t.to_string()));
    }
    out.shape = broadcast_shapes(out.shape, t.shape);
  }
  return out;
}

}  // namespace

// Add, Sub, Mul, Div with multidirectional broadcasting.
std::vector<TensorType> import_binary_arithmetic(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 2, 1);
  return {broadcast_inputs(ctx, node, kNumericDType)};
}

// Pow: the output has the base's dtype. Before opset 12 base and exponent share one
// float dtype; from 12 the exponent may be any numeric dtype.
std::vector<TensorType> import_pow(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 2, 1);
  if (ctx.opset < 12) return {broadcast_inputs(ctx, node, {DType::f32})};
  const TensorType& base = input_type(ctx, node, 0, {DType::f32, DType::i64, DType::i32});
  const TensorType& exponent = input_type(ctx, node, 1, kNumericDType);
  return {TensorType{base.dtype, broadcast_shapes(base.shape, exponent.shape)}};
}

// Min, Max (any numeric dtype), Sum and Mean (float only): one or more inputs, broadcast together.
std::vector<TensorType> import_variadic_arithmetic(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, std::max<size_t>(1, node.inputs.size()), 1);
  for (size_t i = 1; i < node.inputs.size(); ++i) {
    if (node.inputs[i].empty()) throw Error(fmt::format("input {} is omitted", i));
  }
  if (node.op == "Sum" || node.op == "Mean") return {broadcast_inputs(ctx, node, {DType::f32})};
  return {broadcast_inputs(ctx, node, kNumericDType)};
}

// Mod: fmod 0 (the default) is the modulus with the divisor's sign, for floats only from
// opset 28 (before, the spec required fmod 1 for them); fmod 1 is C's fmod.
std::vector<TensorType> import_mod(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 2, 1);
  const TensorType out = broadcast_inputs(ctx, node, kNumericDType);
  const int64_t c_style = node.attrs.get_int("fmod", 0);
  if (c_style != 0 && c_style != 1) throw Error(fmt::format("fmod is {}; it must be 0 or 1", c_style));
  constexpr int64_t kFloorModOfFloats = 28;
  if (is_floating(out.dtype) && c_style == 0 && ctx.opset < kFloorModOfFloats) {
    throw Error(fmt::format("Mod of floats needs fmod=1 before opset {}", kFloorModOfFloats));
  }
  node.attrs.set("fmod", c_style);
  return {out};
}

// PRelu: the slope broadcasts to X (unidirectionally), float only before opset 9.
std::vector<TensorType> import_prelu(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 2, 1);
  // Not one initializer_list chosen by ?: — a braced list's array would die with the expression.
  const TensorType& x = ctx.opset < 9 ? input_type(ctx, node, 0, {DType::f32}) : input_type(ctx, node, 0, kNumericDType);
  const TensorType& slope =
      ctx.opset < 9 ? input_type(ctx, node, 1, {DType::f32}) : input_type(ctx, node, 1, kNumericDType);
  if (slope.dtype != x.dtype) throw Error(fmt::format("slope {} is not of X's dtype {}", slope.to_string(), x.to_string()));
  if (broadcast_shapes(x.shape, slope.shape) != x.shape) {
    throw Error(fmt::format("slope {} does not broadcast to X {}", slope.to_string(), x.to_string()));
  }
  return {x};
}

// BitShift: unsigned integers, signed ones too from opset 28; direction LEFT or RIGHT.
std::vector<TensorType> import_bit_shift(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 2, 1);
  constexpr int64_t kSignedShifts = 28;
  const TensorType out =
      ctx.opset >= kSignedShifts
          ? broadcast_inputs(ctx, node, {DType::u8, DType::u16, DType::u32, DType::u64, DType::i8, DType::i16,
                                         DType::i32, DType::i64})
          : broadcast_inputs(ctx, node, {DType::u8, DType::u16, DType::u32, DType::u64});
  const std::string direction = node.attrs.get_string("direction", "");
  if (direction != "LEFT" && direction != "RIGHT") {
    throw Error(fmt::format("direction is '{}'; it must be LEFT or RIGHT", direction));
  }
  return {out};
}

}  // namespace nee
