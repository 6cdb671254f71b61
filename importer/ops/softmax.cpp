#include <fmt/format.h>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"

namespace nee {

// Softmax, LogSoftmax and Hardmax. Opset 13 normalizes over one axis (default -1). Before 13 the
// input is coerced to 2-D at `axis` (default 1) and normalized over all dims from `axis`
// on; that is stored as the attribute coerce_2d=1 where it differs from the single-axis
// meaning (axis not the last dim). `axis` is stored non-negative.
std::vector<TensorType> import_softmax(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const TensorType& in = input_type(ctx, node, 0, {DType::f32});
  if (in.shape.empty()) throw Error(fmt::format("{} needs rank >= 1", node.op));
  const bool coerce_2d = ctx.opset < 13;
  const int64_t axis = normalize_axis(node.attrs.get_int("axis", coerce_2d ? 1 : -1), in.shape.size(), "axis");
  node.attrs.set("axis", axis);
  if (coerce_2d && axis != static_cast<int64_t>(in.shape.size()) - 1) node.attrs.set("coerce_2d", int64_t{1});
  return {in};
}

}  // namespace nee
