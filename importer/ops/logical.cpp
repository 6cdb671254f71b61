#include <fmt/format.h>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"

namespace nee {

// Equal (also on bool), Less, Greater, LessOrEqual, GreaterOrEqual: two operands of one
// dtype, broadcast, giving bool.
std::vector<TensorType> import_comparison(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 2, 1);
  const bool equality = node.op == "Equal";
  const std::initializer_list<DType> ordered = {DType::f32, DType::f64, DType::i64, DType::i32, DType::i16,
                                                DType::i8,  DType::u64, DType::u32, DType::u16, DType::u8};
  const std::initializer_list<DType> any = {DType::f32, DType::f64, DType::i64, DType::i32, DType::i16,    DType::i8,
                                            DType::u64, DType::u32, DType::u16, DType::u8,  DType::boolean};
  const TensorType& a = input_type(ctx, node, 0, equality ? any : ordered);
  const TensorType& b = input_type(ctx, node, 1, equality ? any : ordered);
  if (a.dtype != b.dtype) {
    throw Error(fmt::format("operands have different dtypes: {} and {}", a.to_string(), b.to_string()));
  }
  return {TensorType{DType::boolean, broadcast_shapes(a.shape, b.shape)}};
}

// And, Or, Xor: bool operands, broadcast.
std::vector<TensorType> import_logical_binary(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 2, 1);
  const TensorType& a = input_type(ctx, node, 0, {DType::boolean});
  const TensorType& b = input_type(ctx, node, 1, {DType::boolean});
  return {TensorType{DType::boolean, broadcast_shapes(a.shape, b.shape)}};
}

std::vector<TensorType> import_not(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  return {input_type(ctx, node, 0, {DType::boolean})};
}

// BitwiseAnd, BitwiseOr, BitwiseXor (opset 18): two integer operands of one dtype,
// broadcast; BitwiseNot: one.
std::vector<TensorType> import_bitwise(const ImportContext& ctx, Node& node) {
  const std::initializer_list<DType> integers = {DType::i64, DType::i32, DType::i16, DType::i8,
                                                 DType::u64, DType::u32, DType::u16, DType::u8};
  if (node.op == "BitwiseNot") {
    expect_arity(node, 1, 1, 1);
    return {input_type(ctx, node, 0, integers)};
  }
  expect_arity(node, 2, 2, 1);
  const TensorType& a = input_type(ctx, node, 0, integers);
  const TensorType& b = input_type(ctx, node, 1, integers);
  if (a.dtype != b.dtype) {
    throw Error(fmt::format("operands have different dtypes: {} and {}", a.to_string(), b.to_string()));
  }
  return {TensorType{a.dtype, broadcast_shapes(a.shape, b.shape)}};
}

// Where(condition, X, Y): X and Y share a dtype; all three broadcast together.
std::vector<TensorType> import_where(const ImportContext& ctx, Node& node) {
  expect_arity(node, 3, 3, 1);
  const std::initializer_list<DType> any = {DType::f32, DType::i64, DType::i32, DType::boolean, DType::i8, DType::u8};
  const TensorType& condition = input_type(ctx, node, 0, {DType::boolean});
  const TensorType& x = input_type(ctx, node, 1, any);
  const TensorType& y = input_type(ctx, node, 2, any);
  if (x.dtype != y.dtype) {
    throw Error(fmt::format("X and Y have different dtypes: {} and {}", x.to_string(), y.to_string()));
  }
  return {TensorType{x.dtype, broadcast_shapes(broadcast_shapes(condition.shape, x.shape), y.shape)}};
}

}  // namespace nee
