#include <fmt/format.h>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"

namespace nee {

// Opset 13 normalizes over one axis (default -1). Before 13, Softmax flattened the input
// to 2-D at `axis` (default 1), which equals the new meaning only when axis is the last
// dim; other old-style axes are rejected rather than silently computed differently.
std::vector<TensorType> import_softmax(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const TensorType& in = input_type(ctx, node, 0, {DType::f32});
  if (in.shape.empty()) throw Error("Softmax needs rank >= 1");
  const bool old_semantics = ctx.opset < 13;
  const int64_t axis = normalize_axis(node.attrs.get_int("axis", old_semantics ? 1 : -1),
                                      in.shape.size(), "axis");
  if (old_semantics && axis != static_cast<int64_t>(in.shape.size()) - 1) {
    throw Error(fmt::format("Softmax before opset 13 (model has {}) with axis {} on {} flattens the "
                            "input, which NEE does not support",
                            ctx.opset, axis, in.to_string()));
  }
  node.attrs.set("axis", axis);
  return {in};
}

}  // namespace nee
