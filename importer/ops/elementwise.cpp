#include "importer/node_checks.h"
#include "importer/op_importers.h"

#include <fmt/format.h>

#include "core/error.h"

namespace nee {

// Add, Sub, Mul, Div with multidirectional broadcasting.
std::vector<TensorType> import_binary_arithmetic(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 2, 1);
  const TensorType& a = input_type(ctx, node, 0, {DType::f32, DType::i64, DType::i32});
  const TensorType& b = input_type(ctx, node, 1, {DType::f32, DType::i64, DType::i32});
  if (a.dtype != b.dtype) {
    throw Error(fmt::format("operands have different dtypes: {} and {}", a.to_string(), b.to_string()));
  }
  return {TensorType{a.dtype, broadcast_shapes(a.shape, b.shape)}};
}

std::vector<TensorType> import_relu(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  return {input_type(ctx, node, 0, {DType::f32, DType::i64, DType::i32})};
}

std::vector<TensorType> import_float_unary(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  return {input_type(ctx, node, 0, {DType::f32})};
}

}  // namespace nee
