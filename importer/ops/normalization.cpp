#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"

namespace nee {

// LayerNormalization (opset 17): normalizes over the dims from `axis` on (axis in
// [-rank, rank], stored non-negative, default -1; epsilon default 1e-5). Scale and the
// optional B broadcast to X. The optional outputs Mean and InvStdDev are f32 with X's
// shape and 1 for every normalized dim. Only stash_type 1 (compute in f32) exists for f32.
std::vector<TensorType> import_layer_normalization(const ImportContext& ctx, Node& node) {
  if (node.outputs.empty() || node.outputs.size() > 3) {
    throw Error(fmt::format("expects 1 to 3 outputs, got {}", node.outputs.size()));
  }
  expect_arity(node, 2, 3, node.outputs.size());
  const TensorType& x = input_type(ctx, node, 0, {DType::f32});
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = node.attrs.get_int("axis", -1);
  if (axis < -rank || axis > rank) throw Error(fmt::format("axis {} is out of range for rank {}", axis, rank));
  if (axis < 0) axis += rank;
  if (node.attrs.get_int("stash_type", 1) != 1) throw Error("only stash_type 1 (float) is supported");
  for (size_t i = 1; i < node.inputs.size(); ++i) {
    if (node.inputs[i].empty()) continue;
    const TensorType& t = input_type(ctx, node, i, {DType::f32});
    if (broadcast_shapes(x.shape, t.shape) != x.shape) {
      throw Error(fmt::format("{} ('{}') {} does not broadcast to X {}", i == 1 ? "Scale" : "B", node.inputs[i],
                              t.to_string(), x.to_string()));
    }
  }
  node.attrs.set("axis", axis);
  node.attrs.set("epsilon", node.attrs.get_float("epsilon", 1e-5f));
  TensorType stats{DType::f32, x.shape};
  for (int64_t d = axis; d < rank; ++d) stats.shape[d] = 1;
  std::vector<TensorType> outputs = {x, stats, stats};
  outputs.resize(node.outputs.size());
  return outputs;
}


// RMSNormalization (opset 23): X / sqrt(mean(X^2) + epsilon) * scale over the dims from
// `axis` on (default -1, stored non-negative; epsilon default 1e-5, stored); Y only.
std::vector<TensorType> import_rms_normalization(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 2, 1);
  const TensorType& x = input_type(ctx, node, 0, {DType::f32});
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const int64_t axis = normalize_axis(node.attrs.get_int("axis", -1), x.shape.size(), "axis");
  if (node.attrs.get_int("stash_type", 1) != 1) throw Error("only stash_type 1 (float) is supported");
  const TensorType& scale = input_type(ctx, node, 1, {DType::f32});
  if (broadcast_shapes(x.shape, scale.shape) != x.shape || static_cast<int64_t>(scale.shape.size()) > rank - axis) {
    throw Error(fmt::format("scale ('{}') {} does not broadcast to the normalized dims of X {} from axis {}",
                            node.inputs[1], scale.to_string(), x.to_string(), axis));
  }
  node.attrs.set("axis", axis);
  node.attrs.set("epsilon", node.attrs.get_float("epsilon", 1e-5f));
  node.attrs.erase("stash_type");
  return {x};
}

// InstanceNormalization: X is N x C x D1 x ... (rank 3 or more), scale and B hold one
// value per channel; epsilon (default 1e-5) is stored explicitly.
std::vector<TensorType> import_instance_normalization(const ImportContext& ctx, Node& node) {
  expect_arity(node, 3, 3, 1);
  const TensorType& x = input_type(ctx, node, 0, {DType::f32});
  if (x.shape.size() < 3) throw Error(fmt::format("input {} must be N x C x D1 x ...", x.to_string()));
  for (size_t i = 1; i < 3; ++i) {
    const TensorType& param = input_type(ctx, node, i, {DType::f32});
    if (param.shape != std::vector<int64_t>{x.shape[1]}) {
      throw Error(fmt::format("{} {} must hold one value per channel of {}", i == 1 ? "scale" : "B",
                              param.to_string(), x.to_string()));
    }
  }
  node.attrs.set("epsilon", node.attrs.get_float("epsilon", 1e-5f));
  return {x};
}

// LRN across channels of X (N x C x D1 x ..., rank 3 or more): size is required and
// positive; alpha, beta and bias are stored with their defaults 1e-4, 0.75 and 1.
std::vector<TensorType> import_lrn(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const TensorType& x = input_type(ctx, node, 0, {DType::f32});
  if (x.shape.size() < 3) throw Error(fmt::format("X {} must be N x C x D1 x ...", x.to_string()));
  if (node.attrs.get_int("size") < 1) throw Error(fmt::format("size is {}; it must be positive", node.attrs.get_int("size")));
  node.attrs.set("alpha", node.attrs.get_float("alpha", 1e-4f));
  node.attrs.set("beta", node.attrs.get_float("beta", 0.75f));
  node.attrs.set("bias", node.attrs.get_float("bias", 1.0f));
  return {x};
}

// MeanVarianceNormalization over `axes` (default 0, 2, 3; stored non-negative and
// sorted, each once).
std::vector<TensorType> import_mean_variance_normalization(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const TensorType& x = input_type(ctx, node, 0, {DType::f32});
  std::vector<int64_t> axes;
  for (int64_t axis : node.attrs.get_ints("axes", {0, 2, 3})) {
    axes.push_back(normalize_axis(axis, x.shape.size(), "axes"));
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) {
    throw Error(fmt::format("axes [{}] name a dim twice", fmt::join(node.attrs.get_ints("axes"), ",")));
  }
  node.attrs.set("axes", axes);
  return {x};
}

}  // namespace nee
