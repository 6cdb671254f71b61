#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"

namespace nee {

// Inference mode: Y = (X - mean) / sqrt(var + epsilon) * scale + B per channel. Opset 7's
// spatial=0 gives every parameter the shape C x D1 x ... x Dn (one value per element of
// a sample); the kernel takes either shape.
// Training mode (training_mode=1, opset 14 on): Y normalizes X by its own per-channel
// mean and biased variance over every axis but 1, and the optional outputs running_mean
// and running_var are input_mean * momentum + batch mean * (1 - momentum), and the same
// for the variance. Stored: epsilon, and for training training_mode=1 and momentum
// (defaults filled in). Training before opset 14, asked for by extra outputs (the saved
// statistics among them), is not computed.
std::vector<TensorType> import_batch_norm(const ImportContext& ctx, Node& node) {
  const int64_t training_mode = node.attrs.get_int("training_mode", 0);
  if (training_mode != 0 && training_mode != 1) {
    throw Error(fmt::format("training_mode is {}; it must be 0 or 1", training_mode));
  }
  if (training_mode == 1 && ctx.opset < 14) {
    throw Error(fmt::format("training_mode came at opset 14; the model's is {}", ctx.opset));
  }
  size_t outputs = node.outputs.size();
  while (outputs > 1 && node.outputs[outputs - 1].empty()) --outputs;
  if (training_mode == 1 && outputs > 3) {
    throw Error(fmt::format("expects at most 3 outputs (Y, running_mean, running_var), got {}", outputs));
  }
  if (training_mode == 0 && outputs != 1) {
    if (ctx.opset >= 14) {
      throw Error(fmt::format("{} outputs: running_mean and running_var are computed in training mode only "
                              "(training_mode=1)", outputs));
    }
    throw Error(fmt::format("{} outputs request training-mode statistics, which NEE computes from opset 14's "
                            "training_mode=1 on; below it NEE runs BatchNormalization in inference mode only "
                            "(one output, Y)", outputs));
  }
  expect_arity(node, 5, 5, node.outputs.size());
  const TensorType& x = input_type(ctx, node, 0, {DType::f32});
  if (x.shape.size() < 2) throw Error(fmt::format("X {} must be N x C x ...", x.to_string()));
  const bool spatial = ctx.opset >= 9 || node.attrs.get_int("spatial", 1) != 0;
  const std::vector<int64_t> param_shape =
      spatial ? std::vector<int64_t>{x.shape[1]} : std::vector<int64_t>(x.shape.begin() + 1, x.shape.end());
  static const char* const names[] = {"X", "scale", "B", "mean", "var"};
  for (size_t i = 1; i < 5; ++i) {
    const TensorType& param = input_type(ctx, node, i, {DType::f32});
    if (param.shape != param_shape) {
      throw Error(fmt::format("{} {} must have shape [{}] for X {}{}", names[i], param.to_string(),
                              fmt::join(param_shape, ","), x.to_string(), spatial ? "" : " with spatial=0"));
    }
  }
  node.attrs.set("epsilon", node.attrs.get_float("epsilon", 1e-5f));
  node.attrs.erase("spatial");
  std::vector<TensorType> types(node.outputs.size(), x);
  if (training_mode == 1) {
    node.attrs.set("momentum", node.attrs.get_float("momentum", 0.9f));
    node.attrs.set("training_mode", training_mode);
    for (size_t i = 1; i < types.size(); ++i) types[i] = TensorType{DType::f32, param_shape};
  }
  return types;
}

}  // namespace nee
