#include <fmt/format.h>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"

namespace nee {

// Det: square matrices [..., M, M] of f32 or f64 (halves are computed in f32); one
// determinant per matrix, shaped [...].
std::vector<TensorType> import_det(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const TensorType& x = input_type(ctx, node, 0, {DType::f32, DType::f64});
  const size_t rank = x.shape.size();
  if (rank < 2 || x.shape[rank - 1] != x.shape[rank - 2]) {
    throw Error(fmt::format("input {} must hold square matrices [..., M, M]", x.to_string()));
  }
  return {TensorType{x.dtype, std::vector<int64_t>(x.shape.begin(), x.shape.end() - 2)}};
}

}  // namespace nee
