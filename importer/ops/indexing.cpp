#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"
#include "importer/ops/constant_inputs.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

// `reduction` (default none) as ScatterElements and ScatterND take it: add and mul from
// opset 16, max and min from 18.
void store_scatter_reduction(const ImportContext& ctx, Node& node) {
  const std::string reduction = node.attrs.get_string("reduction", "none");
  const bool known = reduction == "none" || ((reduction == "add" || reduction == "mul") && ctx.opset >= 16) ||
                     ((reduction == "max" || reduction == "min") && ctx.opset >= 18);
  if (!known) throw Error(fmt::format("reduction '{}' is not one of opset {}'s", reduction, ctx.opset));
  node.attrs.set("reduction", reduction);
}

}  // namespace

// ScatterElements and Scatter (its opset 9-10 name, without reduction): data, indices
// (int32 or int64) and updates of the indices' shape and data's dtype; `axis` stored
// non-negative.
std::vector<TensorType> import_scatter_elements(const ImportContext& ctx, Node& node) {
  expect_arity(node, 3, 3, 1);
  const TensorType& data = input_type(ctx, node, 0, kAnyDType);
  const TensorType& indices = input_type(ctx, node, 1, {DType::i64, DType::i32});
  const TensorType& updates = input_type(ctx, node, 2, kAnyDType);
  if (data.shape.empty()) throw Error("cannot scatter into a scalar");
  if (indices.shape.size() != data.shape.size() || updates.shape != indices.shape || updates.dtype != data.dtype) {
    throw Error(fmt::format("indices {} and updates {} must share a shape of data {}'s rank, updates its dtype",
                            indices.to_string(), updates.to_string(), data.to_string()));
  }
  node.attrs.set("axis", normalize_axis(node.attrs.get_int("axis", 0), data.shape.size(), "axis"));
  store_scatter_reduction(ctx, node);
  return {data};
}

// ScatterND: int64 indices whose last dim q <= rank(data) addresses slices of data;
// updates have shape indices.shape[:-1] + data.shape[q:].
std::vector<TensorType> import_scatter_nd(const ImportContext& ctx, Node& node) {
  expect_arity(node, 3, 3, 1);
  const TensorType& data = input_type(ctx, node, 0, kAnyDType);
  const TensorType& indices = input_type(ctx, node, 1, {DType::i64});
  const TensorType& updates = input_type(ctx, node, 2, kAnyDType);
  if (indices.shape.empty() || indices.shape.back() > static_cast<int64_t>(data.shape.size())) {
    throw Error(fmt::format("indices {} must end in a dim of at most data {}'s rank", indices.to_string(),
                            data.to_string()));
  }
  std::vector<int64_t> expected(indices.shape.begin(), indices.shape.end() - 1);
  expected.insert(expected.end(), data.shape.begin() + indices.shape.back(), data.shape.end());
  if (updates.shape != expected || updates.dtype != data.dtype) {
    throw Error(fmt::format("updates {} must be {}[{}]", updates.to_string(), to_string(data.dtype),
                            fmt::join(expected, ",")));
  }
  store_scatter_reduction(ctx, node);
  return {data};
}

// GatherND: int64 indices whose last dim addresses slices of data after its first
// `batch_dims` dims (default 0, stored), which indices share.
std::vector<TensorType> import_gather_nd(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 2, 1);
  const TensorType& data = input_type(ctx, node, 0, kAnyDType);
  const TensorType& indices = input_type(ctx, node, 1, {DType::i64});
  const int64_t batch = node.attrs.get_int("batch_dims", 0);
  const int64_t rank = static_cast<int64_t>(data.shape.size()), index_rank = static_cast<int64_t>(indices.shape.size());
  if (index_rank < 1 || batch < 0 || batch >= std::min(rank, index_rank) ||
      indices.shape.back() > rank - batch ||
      !std::equal(indices.shape.begin(), indices.shape.begin() + batch, data.shape.begin())) {
    throw Error(fmt::format("indices {} do not address data {} with batch_dims {}", indices.to_string(),
                            data.to_string(), batch));
  }
  node.attrs.set("batch_dims", batch);
  TensorType out{data.dtype, {indices.shape.begin(), indices.shape.end() - 1}};
  out.shape.insert(out.shape.end(), data.shape.begin() + batch + indices.shape.back(), data.shape.end());
  return {out};
}

// OneHot: the output is indices' shape with `depth` inserted at `axis` (default -1,
// stored non-negative), of the dtype of `values` ([off, on], read per call). depth must
// be a constant at import, since it is a dim of the output; stored as `depth`.
std::vector<TensorType> import_one_hot(const ImportContext& ctx, Node& node) {
  expect_arity(node, 3, 3, 1);
  const TensorType& indices = input_type(ctx, node, 0, {DType::f32, DType::i64, DType::i32, DType::i8, DType::u8});
  const TensorType& depth_type = input_type(ctx, node, 1, {DType::f32, DType::i64, DType::i32});
  const TensorType& values = input_type(ctx, node, 2, kAnyDType);
  if (values.elements() != 2 || values.shape.size() != 1) throw Error("values must be [off, on]");
  int64_t depth = 0;
  if (depth_type.dtype == DType::f32) {
    const std::vector<float> given = *constant_floats(ctx, node, 1, "depth");
    if (given.size() != 1) throw Error("depth must hold one value");
    depth = static_cast<int64_t>(given[0]);
  } else {
    const std::vector<int64_t> given = *constant_ints(ctx, node, 1, "depth");
    if (given.size() != 1) throw Error("depth must hold one value");
    depth = given[0];
  }
  if (depth < 1) throw Error(fmt::format("depth is {}; it must be positive", depth));
  const int64_t axis = normalize_axis(node.attrs.get_int("axis", -1), indices.shape.size() + 1, "axis");
  node.attrs.set("axis", axis);
  node.attrs.set("depth", depth);
  TensorType out{values.dtype, indices.shape};
  out.shape.insert(out.shape.begin() + axis, depth);
  return {out};
}

// Compress: the slices along `axis` (or, without it, the elements of the flattened
// input) where the 1-D bool condition is true; the condition must be a constant at
// import, since it decides the output's shape. Stored: `selected`, the kept positions,
// and `axis` (-1 for the flattened input).
// NonZero: the indices of the nonzero elements, one row per dim; how many there are
// depends on the values, so the input must be known (a staged run specializes on it).
std::vector<TensorType> import_non_zero(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const TensorType& in = input_type(ctx, node, 0, kAnyDType);
  const Tensor& data = constant_input(ctx, node, 0, "data");
  return {TensorType{DType::i64, {static_cast<int64_t>(in.shape.size()), count_nonzero(data)}}};
}

std::vector<TensorType> import_compress(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 2, 1);
  const TensorType& in = input_type(ctx, node, 0, kAnyDType);
  input_type(ctx, node, 1, {DType::boolean});
  const Tensor& condition = constant_input(ctx, node, 1, "condition");
  if (condition.shape().size() != 1) throw Error("condition must be 1-D");
  const bool flat = !node.attrs.has("axis");
  const int64_t axis = flat ? -1 : normalize_axis(node.attrs.get_int("axis"), in.shape.size(), "axis");
  const int64_t extent = flat ? in.elements() : in.shape[axis];
  if (condition.elements() > extent) {
    throw Error(fmt::format("condition has {} entries for {} positions", condition.elements(), extent));
  }
  std::vector<int64_t> selected;
  for (int64_t i = 0; i < condition.elements(); ++i) {
    if (condition.data_as<bool>()[i]) selected.push_back(i);
  }
  node.attrs.set("axis", axis);
  node.attrs.set("selected", selected);
  node.inputs.resize(1);
  TensorType out = in;
  if (flat) {
    out.shape = {static_cast<int64_t>(selected.size())};
  } else {
    out.shape[axis] = static_cast<int64_t>(selected.size());
  }
  return {out};
}

}  // namespace nee
