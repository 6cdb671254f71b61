#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"

namespace nee {

// Inference only: Y = (X - mean) / sqrt(var + epsilon) * scale + B per channel. Training
// (training_mode=1 since opset 14, or the extra running/saved statistics outputs that
// request it in older opsets) computes batch statistics, which NEE does not do. Opset 7's
// spatial=0 gives every parameter the shape C x D1 x ... x Dn (one value per element of
// a sample); the kernel takes either shape.
std::vector<TensorType> import_batch_norm(const ImportContext& ctx, Node& node) {
  if (node.attrs.get_int("training_mode", 0) != 0) {
    throw Error("training_mode=1 computes batch statistics; NEE runs BatchNormalization in "
                "inference mode only (training_mode=0)");
  }
  size_t outputs = node.outputs.size();
  while (outputs > 1 && node.outputs[outputs - 1].empty()) --outputs;
  if (outputs != 1) {
    throw Error(fmt::format("{} outputs request training-mode statistics; NEE runs BatchNormalization "
                            "in inference mode only (one output, Y)", outputs));
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
  return types;
}

}  // namespace nee
