// Slice, Gather, Split, Expand, Tile, Pad: operators that copy elements of one tensor
// to new positions. The import functions resolve every shape-deciding input (which must
// be a constant) into per-dim attributes, so the kernels know no opset.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"
#include "importer/ops/constant_inputs.h"

namespace nee {

namespace {

int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return std::min(std::max(v, lo), hi); }

}  // namespace

// Opset 1-9 read starts/ends/axes from attributes; from opset 10 they are inputs 1..4
// (with steps). Stored for the kernel: `starts` and `steps`, one per dim of the input,
// with ONNX's clamping applied (start in [0, dim] or [0, dim-1] for negative steps).
std::vector<TensorType> import_slice(const ImportContext& ctx, Node& node) {
  const bool from_inputs = ctx.opset >= 10;
  expect_arity(node, from_inputs ? 3 : 1, from_inputs ? 5 : 1, 1);
  const TensorType& in = input_type(ctx, node, 0, kAnyDType);
  const size_t rank = in.shape.size();
  std::vector<int64_t> starts, ends, axes, steps;
  if (from_inputs) {
    starts = *constant_ints(ctx, node, 1, "starts");
    ends = *constant_ints(ctx, node, 2, "ends");
    axes = constant_ints(ctx, node, 3, "axes").value_or(std::vector<int64_t>{});
    steps = constant_ints(ctx, node, 4, "steps").value_or(std::vector<int64_t>{});
  } else {
    starts = node.attrs.get_ints("starts");
    ends = node.attrs.get_ints("ends");
    axes = node.attrs.get_ints("axes", {});
    node.attrs.erase("ends");
    node.attrs.erase("axes");
  }
  if (axes.empty()) {
    for (size_t d = 0; d < starts.size(); ++d) axes.push_back(static_cast<int64_t>(d));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
    throw Error(fmt::format("starts [{}], ends [{}], axes [{}] and steps [{}] differ in length", fmt::join(starts, ","),
                            fmt::join(ends, ","), fmt::join(axes, ","), fmt::join(steps, ",")));
  }
  std::vector<int64_t> dim_start(rank, 0), dim_step(rank, 1);
  TensorType out = in;
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < starts.size(); ++i) {
    const int64_t axis = normalize_axis(axes[i], rank, "axes entry");
    if (seen[axis]) throw Error(fmt::format("axes [{}] repeat axis {}", fmt::join(axes, ","), axis));
    seen[axis] = true;
    const int64_t dim = in.shape[axis], step = steps[i];
    if (step == 0) throw Error(fmt::format("step for axis {} is 0", axis));
    int64_t start = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t end = ends[i] < 0 ? ends[i] + dim : ends[i];
    if (step > 0) {
      start = clamp(start, 0, dim);
      end = clamp(end, 0, dim);
    } else {
      start = clamp(start, 0, dim - 1);
      end = clamp(end, -1, dim - 1);
    }
    const int64_t span = end - start;
    const int64_t count = step > 0 ? (span + step - 1) / step : (span + step + 1) / step;
    out.shape[axis] = std::max<int64_t>(count, 0);
    dim_start[axis] = start;
    dim_step[axis] = step;
  }
  node.attrs.set("starts", dim_start);
  node.attrs.set("steps", dim_step);
  return {out};
}

// Output: data dims before `axis`, the indices' dims, data dims after `axis`. Indices
// may be negative; out-of-range indices are errors when the kernel runs.
std::vector<TensorType> import_gather(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 2, 1);
  const TensorType& data = input_type(ctx, node, 0, kAnyDType);
  const TensorType& indices = input_type(ctx, node, 1, {DType::i64, DType::i32});
  if (data.shape.empty()) throw Error("cannot gather from a scalar");
  const int64_t axis = normalize_axis(node.attrs.get_int("axis", 0), data.shape.size(), "axis");
  node.attrs.set("axis", axis);
  TensorType out{data.dtype, {data.shape.begin(), data.shape.begin() + axis}};
  out.shape.insert(out.shape.end(), indices.shape.begin(), indices.shape.end());
  out.shape.insert(out.shape.end(), data.shape.begin() + axis + 1, data.shape.end());
  return {out};
}

// GatherElements: indices of data's rank (int32 or int64), each dim no larger than
// data's except along `axis` (stored non-negative); the output has the indices' shape.
std::vector<TensorType> import_gather_elements(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 2, 1);
  const TensorType& data = input_type(ctx, node, 0, kAnyDType);
  const TensorType& indices = input_type(ctx, node, 1, {DType::i64, DType::i32});
  if (data.shape.empty()) throw Error("cannot gather elements from a scalar");
  if (indices.shape.size() != data.shape.size()) {
    throw Error(fmt::format("indices {} and data {} differ in rank", indices.to_string(), data.to_string()));
  }
  const int64_t axis = normalize_axis(node.attrs.get_int("axis", 0), data.shape.size(), "axis");
  for (size_t d = 0; d < data.shape.size(); ++d) {
    if (static_cast<int64_t>(d) != axis && indices.shape[d] > data.shape[d]) {
      throw Error(fmt::format("indices {} exceed data {} along dim {}", indices.to_string(), data.to_string(), d));
    }
  }
  node.attrs.set("axis", axis);
  return {TensorType{data.dtype, indices.shape}};
}

// Part sizes come from the `split` attribute before opset 13 and the optional input 1
// from opset 13; without them the axis is cut into equal parts, one per output, or from
// opset 18 into `num_outputs` parts of ceil(dim / num_outputs), the last one smaller.
// Stored: `axis` (non-negative) and `split`.
std::vector<TensorType> import_split(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, ctx.opset >= 13 ? 2 : 1, std::max<size_t>(1, node.outputs.size()));
  const TensorType& in = input_type(ctx, node, 0, kAnyDType);
  if (in.shape.empty()) throw Error("cannot split a scalar");
  const int64_t axis = normalize_axis(node.attrs.get_int("axis", 0), in.shape.size(), "axis");
  const int64_t dim = in.shape[axis];
  const int64_t parts = static_cast<int64_t>(node.outputs.size());
  std::optional<std::vector<int64_t>> split =
      ctx.opset >= 13 ? constant_ints(ctx, node, 1, "split")
                      : (node.attrs.has("split") ? std::optional(node.attrs.get_ints("split")) : std::nullopt);
  if (!split && ctx.opset >= 18 && node.attrs.has("num_outputs")) {
    const int64_t count = node.attrs.get_int("num_outputs");
    if (count < 1 || count != parts) throw Error(fmt::format("num_outputs {} but the node has {} outputs", count, parts));
    const int64_t size = (dim + count - 1) / count;
    if (size * (count - 1) >= dim) {
      throw Error(fmt::format("axis {} of {} cannot give {} non-empty parts of {}", axis, in.to_string(), count, size));
    }
    split = std::vector<int64_t>(count, size);
    split->back() = dim - size * (count - 1);
  }
  if (!split) {
    if (dim % parts != 0) throw Error(fmt::format("axis {} of {} does not split into {} equal parts", axis, in.to_string(), parts));
    split = std::vector<int64_t>(parts, dim / parts);
  }
  node.attrs.erase("num_outputs");
  int64_t total = 0;
  for (int64_t s : *split) {
    if (s < 0) throw Error(fmt::format("split [{}] has a negative size", fmt::join(*split, ",")));
    total += s;
  }
  if (static_cast<int64_t>(split->size()) != parts || total != dim) {
    throw Error(fmt::format("split [{}] does not cut axis {} ({} long) into {} outputs", fmt::join(*split, ","), axis,
                            dim, parts));
  }
  node.attrs.set("axis", axis);
  node.attrs.set("split", *split);
  std::vector<TensorType> outs;
  for (int64_t s : *split) {
    TensorType t = in;
    t.shape[axis] = s;
    outs.push_back(t);
  }
  return outs;
}

// The output shape is the input shape broadcast with the constant `shape` both ways.
std::vector<TensorType> import_expand(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 2, 1);
  const TensorType& in = input_type(ctx, node, 0, kAnyDType);
  const std::vector<int64_t> shape = *constant_ints(ctx, node, 1, "shape");
  return {TensorType{in.dtype, broadcast_shapes(in.shape, shape)}};
}

std::vector<TensorType> import_tile(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 2, 1);
  const TensorType& in = input_type(ctx, node, 0, kAnyDType);
  const std::vector<int64_t> repeats = *constant_ints(ctx, node, 1, "repeats");
  if (repeats.size() != in.shape.size()) {
    throw Error(fmt::format("repeats [{}] must have one entry per dim of {}", fmt::join(repeats, ","), in.to_string()));
  }
  TensorType out = in;
  for (size_t d = 0; d < repeats.size(); ++d) {
    if (repeats[d] < 0) throw Error(fmt::format("repeats [{}] has a negative entry", fmt::join(repeats, ",")));
    out.shape[d] *= repeats[d];
  }
  return {out};
}

// Pads (begin values for every dim, then end values; negative ones crop) are an
// attribute before opset 11 and the constant input 1 from 11; from opset 18 the optional
// constant input 3 names the axes they are for (the others get none). The fill value is
// the `value` attribute before 11 and the optional input 2 (read when the kernel runs)
// from 11. Stored: `pads` for every dim, `mode` (constant, reflect, edge, or from opset 19
// wrap).
std::vector<TensorType> import_pad(const ImportContext& ctx, Node& node) {
  const bool from_inputs = ctx.opset >= 11;
  expect_arity(node, from_inputs ? 2 : 1, from_inputs ? (ctx.opset >= 18 ? 4 : 3) : 1, 1);
  const TensorType& in = input_type(ctx, node, 0, kAnyDType);
  std::vector<int64_t> pads = from_inputs ? *constant_ints(ctx, node, 1, "pads") : node.attrs.get_ints("pads");
  const size_t rank = in.shape.size();
  if (has_input(node, 3)) {
    const std::vector<int64_t> axes = distinct_axes(*constant_ints(ctx, node, 3, "axes"), rank);
    if (pads.size() != 2 * axes.size()) {
      throw Error(fmt::format("pads [{}] must have 2 entries per axis of [{}]", fmt::join(pads, ","),
                              fmt::join(axes, ",")));
    }
    std::vector<int64_t> full(2 * rank, 0);
    for (size_t i = 0; i < axes.size(); ++i) {
      full[axes[i]] = pads[i];
      full[axes[i] + rank] = pads[i + axes.size()];
    }
    pads = full;
    node.inputs.resize(3);
  }
  if (pads.size() != 2 * rank) {
    throw Error(fmt::format("pads [{}] must have 2 entries per dim of {}", fmt::join(pads, ","), in.to_string()));
  }
  if (has_input(node, 2)) {
    const TensorType& value = ctx.graph.type_of(node.inputs[2]);
    if (value.dtype != in.dtype || value.elements() != 1) {
      throw Error(fmt::format("constant_value {} must be one element of the data's dtype {}", value.to_string(),
                              to_string(in.dtype)));
    }
  }
  const std::string mode = node.attrs.get_string("mode", "constant");
  if (mode == "wrap" && ctx.opset < 19) {
    throw Error(fmt::format("mode 'wrap' needs opset 19; the model's is {}", ctx.opset));
  }
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap") {
    throw Error(fmt::format("mode '{}' is not one of constant, reflect, edge, wrap", mode));
  }
  TensorType out = in;
  for (size_t d = 0; d < rank; ++d) {
    out.shape[d] = in.shape[d] + pads[d] + pads[d + rank];
    if (out.shape[d] < 0) throw Error(fmt::format("pads [{}] crop dim {} of {} below 0", fmt::join(pads, ","), d, in.to_string()));
    if (mode != "constant" && in.shape[d] == 0 && out.shape[d] > 0) {
      throw Error(fmt::format("mode '{}' cannot pad the empty dim {} of {}", mode, d, in.to_string()));
    }
  }
  node.attrs.set("pads", pads);
  node.attrs.set("mode", mode);
  return {out};
}

}  // namespace nee
