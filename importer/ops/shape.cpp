#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>
#include <optional>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"
#include "importer/ops/constant_inputs.h"

namespace nee {

namespace {

int64_t product(std::vector<int64_t>::const_iterator begin, std::vector<int64_t>::const_iterator end) {
  return std::accumulate(begin, end, int64_t{1}, std::multiplies<int64_t>());
}

}  // namespace

// Identity passes strings through too: its output is a view of its input, so no kernel
// touches their bytes.
std::vector<TensorType> import_identity(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const TensorType& in = ctx.graph.type_of(node.inputs[0]);
  return {in.dtype == DType::string ? in : input_type(ctx, node, 0, kAnyDType)};
}

// Output is 2-D: the dims before `axis` multiplied, and those from `axis` on.
std::vector<TensorType> import_flatten(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const TensorType& in = input_type(ctx, node, 0, kAnyDType);
  const int64_t rank = static_cast<int64_t>(in.shape.size());
  int64_t axis = node.attrs.get_int("axis", 1);
  if (axis < -rank || axis > rank) {
    throw Error(fmt::format("axis {} is out of range for rank {}", axis, rank));
  }
  if (axis < 0) axis += rank;
  node.attrs.set("axis", axis);
  return {TensorType{in.dtype,
                     {product(in.shape.begin(), in.shape.begin() + axis),
                      product(in.shape.begin() + axis, in.shape.end())}}};
}

// The shape must be a constant: 0 copies the input dim (unless allowzero=1), -1 is
// inferred from the element count.
std::vector<TensorType> import_reshape(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 2, 1);
  const TensorType& in = input_type(ctx, node, 0, kAnyDType);
  input_type(ctx, node, 1, {DType::i64});
  const Tensor& shape_tensor = constant_input(ctx, node, 1, "shape");
  if (shape_tensor.shape().size() != 1) throw Error("shape input must be 1-D");
  const bool allow_zero = node.attrs.get_int("allowzero", 0) != 0;
  const int64_t* requested = shape_tensor.data_as<int64_t>();
  std::vector<int64_t> shape(requested, requested + shape_tensor.elements());
  int64_t inferred = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && !allow_zero) {
      if (i >= in.shape.size()) throw Error(fmt::format("shape entry {} is 0 but the input has rank {}", i, in.shape.size()));
      shape[i] = in.shape[i];
    }
    if (shape[i] == -1) {
      if (inferred >= 0) throw Error("shape has more than one -1");
      inferred = static_cast<int64_t>(i);
    } else if (shape[i] < 0) {
      throw Error(fmt::format("shape entry {} is {}", i, shape[i]));
    } else if (__builtin_mul_overflow(known, shape[i], &known)) {
      throw Error(fmt::format("shape [{}] overflows", fmt::join(shape, ",")));
    }
  }
  const int64_t elements = in.elements();
  if (inferred >= 0) {
    if (known == 0 || elements % known != 0) {
      throw Error(fmt::format("cannot reshape {} to [{}]", in.to_string(), fmt::join(requested, requested + shape_tensor.elements(), ",")));
    }
    shape[inferred] = elements / known;
  } else if (known != elements) {
    throw Error(fmt::format("cannot reshape {} ({} elements) to [{}] ({} elements)", in.to_string(),
                            elements, fmt::join(shape, ","), known));
  }
  return {TensorType{in.dtype, shape}};
}

// `perm` defaults to reversing the dims; it is stored explicitly.
std::vector<TensorType> import_transpose(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const TensorType& in = input_type(ctx, node, 0, kAnyDType);
  std::vector<int64_t> reversed(in.shape.size());
  std::iota(reversed.rbegin(), reversed.rend(), 0);
  const std::vector<int64_t> perm = node.attrs.get_ints("perm", reversed);
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> identity(in.shape.size());
  std::iota(identity.begin(), identity.end(), 0);
  if (sorted != identity) {
    throw Error(fmt::format("perm [{}] is not a permutation of the {} dims of {}", fmt::join(perm, ","),
                            in.shape.size(), in.to_string()));
  }
  node.attrs.set("perm", perm);
  std::vector<int64_t> shape;
  for (int64_t p : perm) shape.push_back(in.shape[p]);
  return {TensorType{in.dtype, shape}};
}

std::vector<TensorType> import_concat(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, std::max<size_t>(1, node.inputs.size()), 1);  // any number of inputs
  const TensorType& first = input_type(ctx, node, 0, kAnyDType);
  if (first.shape.empty()) throw Error("cannot concatenate scalars");
  const int64_t axis = normalize_axis(node.attrs.get_int("axis"), first.shape.size(), "axis");
  node.attrs.set("axis", axis);
  TensorType out = first;
  for (size_t i = 1; i < node.inputs.size(); ++i) {
    if (node.inputs[i].empty()) throw Error(fmt::format("input {} is omitted", i));
    const TensorType& t = ctx.graph.type_of(node.inputs[i]);
    bool compatible = t.dtype == first.dtype && t.shape.size() == first.shape.size();
    for (size_t d = 0; compatible && d < t.shape.size(); ++d) {
      compatible = static_cast<int64_t>(d) == axis || t.shape[d] == first.shape[d];
    }
    if (!compatible) {
      throw Error(fmt::format("input {} {} does not match input 0 {} outside axis {}", i,
                              t.to_string(), first.to_string(), axis));
    }
    out.shape[axis] += t.shape[axis];
  }
  return {out};
}

// Axes come from the `axes` attribute before opset 13 and from the optional input 1
// from opset 13 on. Without axes every dim of extent 1 is removed.
std::vector<TensorType> import_squeeze(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, ctx.opset >= 13 ? 2 : 1, 1);
  const TensorType& in = input_type(ctx, node, 0, kAnyDType);
  std::optional<std::vector<int64_t>> axes =
      ctx.opset >= 13 ? constant_ints(ctx, node, 1, "axes")
                      : (node.attrs.has("axes") ? std::optional(node.attrs.get_ints("axes")) : std::nullopt);
  std::vector<bool> removed(in.shape.size(), false);
  if (axes) {
    for (int64_t a : *axes) {
      const int64_t axis = normalize_axis(a, in.shape.size(), "axes entry");
      if (in.shape[axis] != 1) {
        throw Error(fmt::format("cannot squeeze dim {} of {}: its extent is not 1", axis, in.to_string()));
      }
      removed[axis] = true;
    }
  } else {
    for (size_t d = 0; d < in.shape.size(); ++d) removed[d] = in.shape[d] == 1;
  }
  TensorType out{in.dtype, {}};
  for (size_t d = 0; d < in.shape.size(); ++d) {
    if (!removed[d]) out.shape.push_back(in.shape[d]);
  }
  return {out};
}

// Axes (attribute before opset 13, required input 1 from 13) index the output, whose
// rank is the input rank plus the number of axes.
std::vector<TensorType> import_unsqueeze(const ImportContext& ctx, Node& node) {
  expect_arity(node, ctx.opset >= 13 ? 2 : 1, ctx.opset >= 13 ? 2 : 1, 1);
  const TensorType& in = input_type(ctx, node, 0, kAnyDType);
  const std::vector<int64_t> axes = ctx.opset >= 13 ? *constant_ints(ctx, node, 1, "axes") : node.attrs.get_ints("axes");
  const size_t rank = in.shape.size() + axes.size();
  std::vector<bool> inserted(rank, false);
  for (int64_t a : axes) {
    const int64_t axis = normalize_axis(a, rank, "axes entry");
    if (inserted[axis]) throw Error(fmt::format("axes [{}] repeat axis {}", fmt::join(axes, ","), axis));
    inserted[axis] = true;
  }
  TensorType out{in.dtype, {}};
  auto next = in.shape.begin();
  for (size_t d = 0; d < rank; ++d) out.shape.push_back(inserted[d] ? 1 : *next++);
  return {out};
}

// Inference only: output 0 is the input and the optional mask is all true (in the
// input's dtype before opset 10, bool after). Training mode, which drops at random, is
// accepted only with a constant ratio of 0, where it drops nothing.
std::vector<TensorType> import_dropout(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, ctx.opset >= 12 ? 3 : 1, node.outputs.size() == 2 ? 2 : 1);
  const TensorType& in = input_type(ctx, node, 0, {DType::f32});
  if (has_input(node, 2)) {
    const Tensor& training = constant_input(ctx, node, 2, "training_mode");
    if (training.dtype() != DType::boolean || training.elements() != 1) throw Error("training_mode must be a bool scalar");
    if (*training.data_as<uint8_t>() != 0) {
      const std::optional<std::vector<float>> ratio = constant_floats(ctx, node, 1, "ratio");
      if (!ratio || ratio->size() != 1 || (*ratio)[0] != 0) {
        throw Error("training mode with a nonzero ratio (random dropout) is not supported");
      }
    }
  }
  std::vector<TensorType> outs = {in};
  if (node.outputs.size() == 2) outs.push_back(TensorType{ctx.opset >= 10 ? DType::boolean : in.dtype, in.shape});
  return outs;
}

}  // namespace nee
