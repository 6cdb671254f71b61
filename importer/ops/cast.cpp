#include <fmt/format.h>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"
#include "runtime/onnx_tensor.h"

namespace nee {

namespace {

// Casts read and write strings as well as every dtype kAnyDType lists: numbers become
// text and text numbers (runtime/reference/cast.cpp).
const TensorType& cast_input_type(const ImportContext& ctx, const Node& node, size_t index) {
  const TensorType& type = ctx.graph.type_of(node.inputs[index]);
  return type.dtype == DType::string ? type : input_type(ctx, node, index, kAnyDType);
}

}  // namespace

// Cast between any two of NEE's dtypes, strings included; the target dtype is the
// output's type.
std::vector<TensorType> import_cast(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const TensorType& in = cast_input_type(ctx, node, 0);
  const DType to = dtype_from_onnx(static_cast<int32_t>(node.attrs.get_int("to")), "attribute 'to'");
  return {TensorType{to, in.shape}};
}

// BitCast (opset 26): the same bytes read as `to`, a dtype of the input's width (strings
// have none); the shape is kept.
std::vector<TensorType> import_bit_cast(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const TensorType& in = input_type(ctx, node, 0, kAnyDType);
  const DType to = dtype_from_onnx(static_cast<int32_t>(node.attrs.get_int("to", 0)), "attribute 'to'");
  if (to == DType::string || dtype_size(to) != dtype_size(in.dtype)) {
    throw Error(fmt::format("'to' {} is not a type of {}'s {}-byte width", to_string(to), to_string(in.dtype),
                            dtype_size(in.dtype)));
  }
  return {TensorType{to, in.shape}};
}

// CastLike (opset 15): Cast to the dtype of the second input, whose values are unused.
std::vector<TensorType> import_cast_like(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 2, 1);
  const TensorType& in = cast_input_type(ctx, node, 0);
  return {TensorType{cast_input_type(ctx, node, 1).dtype, in.shape}};
}

}  // namespace nee
