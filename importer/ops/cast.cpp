#include <fmt/format.h>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"
#include "runtime/onnx_tensor.h"

namespace nee {

// Cast between f32, i64, i32, bool, i8 and u8; the target dtype is the output's type.
std::vector<TensorType> import_cast(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const TensorType& in =
      input_type(ctx, node, 0, {DType::f32, DType::i64, DType::i32, DType::boolean, DType::i8, DType::u8});
  const DType to = dtype_from_onnx(static_cast<int32_t>(node.attrs.get_int("to")), "attribute 'to'");
  return {TensorType{to, in.shape}};
}

}  // namespace nee
