#include <fmt/format.h>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"
#include "runtime/onnx_tensor.h"

namespace nee {

// Cast between any two of NEE's dtypes (strings are not among them); the target dtype
// is the output's type.
std::vector<TensorType> import_cast(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const TensorType& in = input_type(ctx, node, 0, kAnyDType);
  const DType to = dtype_from_onnx(static_cast<int32_t>(node.attrs.get_int("to")), "attribute 'to'");
  return {TensorType{to, in.shape}};
}

// CastLike (opset 15): Cast to the dtype of the second input, whose values are unused.
std::vector<TensorType> import_cast_like(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 2, 1);
  const TensorType& in = input_type(ctx, node, 0, kAnyDType);
  return {TensorType{input_type(ctx, node, 1, kAnyDType).dtype, in.shape}};
}

}  // namespace nee
