#include <fmt/format.h>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"
#include "importer/ops/constant_inputs.h"
#include "runtime/reference/unique.h"

namespace nee {

// Unique (opset 11): the distinct elements of X (or, with `axis`, its distinct slices
// along it), sorted ascending unless sorted=0, then where each first occurs, each input's
// position among them and how often each occurs (outputs Y, indices, inverse_indices,
// counts; any may be omitted). How many there are depends on X's values, so X must be
// known (a staged run specializes on it). Stored: `axis` (non-negative, -1 for the
// flattened input) and `sorted`.
std::vector<TensorType> import_unique(const ImportContext& ctx, Node& node) {
  if (node.outputs.empty() || node.outputs.size() > 4) {
    throw Error(fmt::format("expects 1 to 4 outputs, got {}", node.outputs.size()));
  }
  expect_arity(node, 1, 1, node.outputs.size());
  const TensorType& in = input_type(ctx, node, 0, kAnyDType);
  const int64_t sorted = node.attrs.get_int("sorted", 1);
  if (sorted != 0 && sorted != 1) throw Error(fmt::format("sorted is {}; it must be 0 or 1", sorted));
  const bool flat = !node.attrs.has("axis");
  if (!flat && in.shape.empty()) throw Error("axis is given for a scalar X, which has no axes");
  const int64_t axis = flat ? -1 : normalize_axis(node.attrs.get_int("axis"), in.shape.size(), "axis");
  const Tensor& x = constant_input(ctx, node, 0, "X");
  const auto distinct = static_cast<int64_t>(unique_slices(x, axis, sorted == 1).first.size());
  node.attrs.set("axis", axis);
  node.attrs.set("sorted", sorted);
  TensorType y{in.dtype, {distinct}};
  if (!flat) {
    y.shape = in.shape;
    y.shape[static_cast<size_t>(axis)] = distinct;
  }
  const int64_t slices = flat ? in.elements() : in.shape[static_cast<size_t>(axis)];
  const std::vector<TensorType> all = {y, TensorType{DType::i64, {distinct}}, TensorType{DType::i64, {slices}},
                                       TensorType{DType::i64, {distinct}}};
  return {all.begin(), all.begin() + static_cast<std::ptrdiff_t>(node.outputs.size())};
}

}  // namespace nee
