// Shape, ConstantOfShape, Range: operators whose outputs are decided by shapes or
// constants alone; with static shapes the importer's constant folding evaluates them.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"
#include "importer/ops/constant_inputs.h"

namespace nee {

// Opset 15's `start` and `end` select a range of dims (negative ones count from the
// end, both are clamped to [0, rank]); stored non-negative.
std::vector<TensorType> import_shape(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const TensorType& in = input_type(ctx, node, 0, kAnyDType);
  const int64_t rank = static_cast<int64_t>(in.shape.size());
  auto resolve = [rank](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t{0}, rank); };
  const int64_t start = resolve(ctx.opset >= 15 ? node.attrs.get_int("start", 0) : 0);
  const int64_t end = resolve(ctx.opset >= 15 ? node.attrs.get_int("end", rank) : rank);
  node.attrs.set("start", start);
  node.attrs.set("end", std::max(start, end));
  return {TensorType{DType::i64, {std::max<int64_t>(end - start, 0)}}};
}

// Size: the input's element count, an int64 scalar.
std::vector<TensorType> import_size(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  input_type(ctx, node, 0, kAnyDType);
  return {TensorType{DType::i64, {}}};
}

// The output's dtype and fill come from the one-element `value` tensor (default: f32 0).
std::vector<TensorType> import_constant_of_shape(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const std::vector<int64_t> shape = *constant_ints(ctx, node, 0, "shape");
  for (int64_t d : shape) {
    if (d < 0) throw Error(fmt::format("shape [{}] has a negative dim", fmt::join(shape, ",")));
  }
  if (!node.attrs.has("value")) node.attrs.set("value", Tensor(DType::f32, {1}));
  const Tensor& value = node.attrs.get_tensor("value");
  if (value.elements() != 1) throw Error(fmt::format("value {} must hold one element", value.type().to_string()));
  return {TensorType{value.dtype(), shape}};
}

// start, limit and delta are constant scalars of one dtype; the output has
// max(ceil((limit - start) / delta), 0) elements.
std::vector<TensorType> import_range(const ImportContext& ctx, Node& node) {
  expect_arity(node, 3, 3, 1);
  const DType dtype = input_type(ctx, node, 0, {DType::f32, DType::i64, DType::i32}).dtype;
  double v[3];
  const char* roles[3] = {"start", "limit", "delta"};
  for (size_t i = 0; i < 3; ++i) {
    const Tensor& t = constant_input(ctx, node, i, roles[i]);
    if (t.dtype() != dtype || t.elements() != 1) {
      throw Error(fmt::format("{} {} must be a scalar of dtype {}", roles[i], t.type().to_string(), to_string(dtype)));
    }
    switch (dtype) {
      case DType::f32: v[i] = *t.data_as<float>(); break;
      case DType::i64: v[i] = static_cast<double>(*t.data_as<int64_t>()); break;
      default: v[i] = *t.data_as<int32_t>(); break;
    }
  }
  if (v[2] == 0) throw Error("delta is 0");
  // NaN or an infinite start, limit or delta gives no count; converting one to int64 is
  // undefined (fuzz/findings/model_fuzzer/range_of_nan.onnx).
  const double steps = std::ceil((v[1] - v[0]) / v[2]);
  if (std::isnan(steps) || steps >= 0x1p62) {
    throw Error(fmt::format("start {}, limit {} and delta {} give {} elements, not a tensor's element count", v[0],
                            v[1], v[2], steps));
  }
  const int64_t count = steps > 0 ? static_cast<int64_t>(steps) : 0;
  return {TensorType{dtype, {count}}};
}

}  // namespace nee
