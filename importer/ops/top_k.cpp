#include <fmt/format.h>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"
#include "importer/ops/constant_inputs.h"

namespace nee {

// TopK: K from the attribute `k` before opset 10, from a constant one-element input
// after (the outputs' shapes depend on it, and NEE keeps shapes static); stored as the
// attribute `k` with `axis` (default -1, stored non-negative) and `largest` (default 1). Outputs: the values, of X's dtype, and their int64 indices.
std::vector<TensorType> import_top_k(const ImportContext& ctx, Node& node) {
  int64_t k = 0;
  if (ctx.opset < 10) {
    expect_arity(node, 1, 1, 2);
    k = node.attrs.get_int("k");
  } else {
    expect_arity(node, 2, 2, 2);
    const std::optional<std::vector<int64_t>> given = constant_ints(ctx, node, 1, "K");
    if (!given || given->size() != 1) throw Error("K must be a one-element tensor");
    k = given->front();
    node.inputs.resize(1);
  }
  const TensorType& x = input_type(ctx, node, 0, kNumericDType);
  if (x.shape.empty()) throw Error("TopK needs an input of rank >= 1");
  const int64_t axis = normalize_axis(node.attrs.get_int("axis", -1), x.shape.size(), "axis");
  if (k < 0 || k > x.shape[axis]) {
    throw Error(fmt::format("K is {}; it must lie in [0, {}] (the extent of axis {})", k, x.shape[axis], axis));
  }
  // With sorted=0 the order is the implementation's to choose: NEE returns the sorted one.
  const int64_t largest = node.attrs.get_int("largest", 1);
  node.attrs.set("k", k);
  node.attrs.set("axis", axis);
  node.attrs.set("largest", int64_t{largest != 0});
  TensorType values = x;
  values.shape[axis] = k;
  return {values, TensorType{DType::i64, values.shape}};
}

}  // namespace nee
