#include <fmt/format.h>

#include <limits>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"

namespace nee {

// Relu: float and, from opset 14, signed integers.
std::vector<TensorType> import_relu(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  return {input_type(ctx, node, 0, {DType::f32, DType::i64, DType::i32, DType::i8})};
}

// Sigmoid Tanh Sqrt Exp Log Erf Reciprocal HardSwish, the trigonometric and hyperbolic
// functions, Ceil Floor Round, Softplus Softsign Mish: float only, no attributes; Swish
// (opset 24) too, its alpha read by the kernels (default 1).
std::vector<TensorType> import_float_unary(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  return {input_type(ctx, node, 0, {DType::f32})};
}

// Gelu (opset 20): float only; `approximate` none (x * 0.5 * (1 + erf(x / sqrt(2)))) or
// tanh, stored explicitly.
std::vector<TensorType> import_gelu(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const std::string approximate = node.attrs.get_string("approximate", "none");
  if (approximate != "none" && approximate != "tanh") {
    throw Error(fmt::format("approximate '{}' is not one of none, tanh", approximate));
  }
  node.attrs.set("approximate", approximate);
  return {input_type(ctx, node, 0, {DType::f32})};
}

std::vector<TensorType> import_neg(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  return {input_type(ctx, node, 0, {DType::f32, DType::i64, DType::i32, DType::i8})};
}

// Abs, Sign: every numeric dtype.
std::vector<TensorType> import_numeric_unary(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  return {input_type(ctx, node, 0, {DType::f32, DType::i64, DType::i32, DType::i8, DType::u8})};
}

// LeakyRelu (alpha 0.01), HardSigmoid (alpha 0.2, beta 0.5), Elu, Celu and
// ThresholdedRelu (alpha 1), Selu (alpha and gamma, the spec's float values): the
// defaults are stored so the kernel reads plain attributes.
std::vector<TensorType> import_parametric_activation(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const TensorType& in = input_type(ctx, node, 0, {DType::f32});
  if (node.op == "LeakyRelu") {
    node.attrs.set("alpha", node.attrs.get_float("alpha", 0.01f));
  } else if (node.op == "HardSigmoid") {
    node.attrs.set("alpha", node.attrs.get_float("alpha", 0.2f));
    node.attrs.set("beta", node.attrs.get_float("beta", 0.5f));
  } else if (node.op == "Selu") {
    node.attrs.set("alpha", node.attrs.get_float("alpha", 1.67326319217681884765625f));
    node.attrs.set("gamma", node.attrs.get_float("gamma", 1.05070102214813232421875f));
  } else {
    node.attrs.set("alpha", node.attrs.get_float("alpha", 1.0f));
  }
  return {in};
}

// Shrink: every numeric dtype; lambd 0.5 and bias 0 unless given.
std::vector<TensorType> import_shrink(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const TensorType& in = input_type(ctx, node, 0, {DType::f32, DType::i64, DType::i32, DType::i8, DType::u8});
  node.attrs.set("lambd", node.attrs.get_float("lambd", 0.5f));
  node.attrs.set("bias", node.attrs.get_float("bias", 0.0f));
  return {in};
}

// IsInf (both signs unless detect_positive or detect_negative is 0) and IsNaN: f32 in,
// bool out.
std::vector<TensorType> import_float_test(const ImportContext& ctx, Node& node) {
  expect_arity(node, 1, 1, 1);
  const TensorType& in = input_type(ctx, node, 0, {DType::f32});
  if (node.op == "IsInf") {
    node.attrs.set("detect_positive", node.attrs.get_int("detect_positive", 1));
    node.attrs.set("detect_negative", node.attrs.get_int("detect_negative", 1));
  }
  return {TensorType{DType::boolean, in.shape}};
}

// Clip: before opset 11 the bounds are float attributes (defaults: the float range),
// stored explicitly here; from 11 they are optional scalar inputs of the input's dtype
// (float only before opset 12), read at run time, and an omitted one means no bound.
std::vector<TensorType> import_clip(const ImportContext& ctx, Node& node) {
  if (ctx.opset < 11) {
    expect_arity(node, 1, 1, 1);
    const TensorType& in = input_type(ctx, node, 0, {DType::f32});
    node.attrs.set("min", node.attrs.get_float("min", std::numeric_limits<float>::lowest()));
    node.attrs.set("max", node.attrs.get_float("max", std::numeric_limits<float>::max()));
    return {in};
  }
  expect_arity(node, 1, 3, 1);
  const TensorType& in =
      ctx.opset < 12 ? input_type(ctx, node, 0, {DType::f32})
                     : input_type(ctx, node, 0, {DType::f32, DType::i64, DType::i32, DType::i8, DType::u8});
  for (size_t i = 1; i < node.inputs.size(); ++i) {
    if (node.inputs[i].empty()) continue;
    const TensorType& bound = ctx.graph.type_of(node.inputs[i]);
    if (bound.dtype != in.dtype || bound.elements() != 1 || bound.shape.size() > 1) {
      throw Error(fmt::format("bound input {} ('{}') is {}; it must be a scalar of the input's dtype {}", i,
                              node.inputs[i], bound.to_string(), to_string(in.dtype)));
    }
  }
  return {in};
}

}  // namespace nee
