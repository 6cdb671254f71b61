#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"
#include "importer/ops/constant_inputs.h"

namespace nee {

namespace {

// Axes come from the optional second input for ReduceSum from opset 13 and for the other
// reductions from opset 18; before that from the `axes` attribute.
bool axes_are_input(const std::string& op, int64_t opset) {
  return op == "ReduceSum" ? opset >= 13 : opset >= 18;
}

std::vector<int64_t> requested_axes(const ImportContext& ctx, Node& node) {
  if (!axes_are_input(node.op, ctx.opset)) {
    expect_arity(node, 1, 1, 1);
    return node.attrs.get_ints("axes", {});
  }
  expect_arity(node, 1, 2, 1);
  if (node.inputs.size() < 2 || node.inputs[1].empty()) return {};
  input_type(ctx, node, 1, {DType::i64});
  const Tensor& axes = constant_input(ctx, node, 1, "axes");
  if (axes.shape().size() != 1) throw Error("axes input must be 1-D");
  return std::vector<int64_t>(axes.data_as<int64_t>(), axes.data_as<int64_t>() + axes.elements());
}

}  // namespace

// ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2,
// ReduceSumSquare, ReduceLogSum, ReduceLogSumExp. Normalized to one form for every opset:
// the single input, `axes` sorted and non-negative (empty axes without
// noop_with_empty_axes become all dims; with it they stay empty and the op copies),
// and `keepdims` (default 1).
std::vector<TensorType> import_reduce(const ImportContext& ctx, Node& node) {
  // Opset 20 lets ReduceMax and ReduceMin take booleans.
  const bool booleans = ctx.opset >= 20 && (node.op == "ReduceMax" || node.op == "ReduceMin") &&
                        !node.inputs.empty() && ctx.graph.has_value(node.inputs[0]) &&
                        ctx.graph.type_of(node.inputs[0]).dtype == DType::boolean;
  const TensorType& in = booleans ? ctx.graph.type_of(node.inputs[0]) : input_type(ctx, node, 0, kNumericDType);
  std::vector<int64_t> axes = requested_axes(ctx, node);
  for (int64_t& axis : axes) axis = normalize_axis(axis, in.shape.size(), "axes entry");
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) {
    throw Error(fmt::format("axes [{}] name a dim twice", fmt::join(axes, ",")));
  }
  if (axes.empty() && node.attrs.get_int("noop_with_empty_axes", 0) == 0) {
    for (size_t d = 0; d < in.shape.size(); ++d) axes.push_back(static_cast<int64_t>(d));
  }
  const bool keepdims = node.attrs.get_int("keepdims", 1) != 0;
  node.inputs.resize(1);
  node.attrs.erase("noop_with_empty_axes");
  node.attrs.set("axes", axes);
  node.attrs.set("keepdims", int64_t{keepdims});

  TensorType out{in.dtype, {}};
  for (size_t d = 0; d < in.shape.size(); ++d) {
    const bool reduced = std::binary_search(axes.begin(), axes.end(), static_cast<int64_t>(d));
    if (!reduced) {
      out.shape.push_back(in.shape[d]);
    } else if (keepdims) {
      out.shape.push_back(1);
    }
  }
  return {out};
}

// ArgMax, ArgMin: i64 indices along `axis` (default 0, stored non-negative), keepdims
// (default 1) and select_last_index (default 0) stored explicitly.
std::vector<TensorType> import_arg_extreme(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const TensorType& in = input_type(ctx, node, 0, kNumericDType);
  if (in.shape.empty()) throw Error(node.op + " needs rank >= 1");
  const int64_t axis = normalize_axis(node.attrs.get_int("axis", 0), in.shape.size(), "axis");
  const bool keepdims = node.attrs.get_int("keepdims", 1) != 0;
  node.attrs.set("axis", axis);
  node.attrs.set("keepdims", int64_t{keepdims});
  node.attrs.set("select_last_index", int64_t{node.attrs.get_int("select_last_index", 0) != 0});
  TensorType out{DType::i64, in.shape};
  if (keepdims) {
    out.shape[axis] = 1;
  } else {
    out.shape.erase(out.shape.begin() + axis);
  }
  return {out};
}

// CumSum (opset 11) and CumProd (opset 26): running sums or products along the axis given
// as a constant scalar input, stored non-negative as an attribute; exclusive and reverse
// default to 0.
std::vector<TensorType> import_cumulative(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 2, 1);
  const TensorType& x = input_type(ctx, node, 0, {DType::f32, DType::f64, DType::i32, DType::i64, DType::u32,
                                                  DType::u64});
  if (x.shape.empty()) throw Error(node.op + " needs rank >= 1");
  input_type(ctx, node, 1, {DType::i32, DType::i64});
  const std::vector<int64_t> axis = *constant_ints(ctx, node, 1, "axis");
  if (axis.size() != 1 || ctx.graph.type_of(node.inputs[1]).shape.size() > 1) {
    throw Error(fmt::format("axis [{}] must be one value", fmt::join(axis, ",")));
  }
  node.attrs.set("axis", normalize_axis(axis[0], x.shape.size(), "axis"));
  node.attrs.set("exclusive", int64_t{node.attrs.get_int("exclusive", 0) != 0});
  node.attrs.set("reverse", int64_t{node.attrs.get_int("reverse", 0) != 0});
  return {x};
}

}  // namespace nee
