#include <fmt/format.h>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"

namespace nee {

// NegativeLogLikelihoodLoss (input, target[, weight]) and SoftmaxCrossEntropyLoss
// (scores, labels[, weights], with an optional second output, the log-probabilities):
// f32 input of shape N x C x d1..dk, integer targets of shape N x d1..dk, a weight per
// class. `reduction` (none, sum or mean; default mean) is stored; `ignore_index` is kept
// when given. The loss is N x d1..dk with reduction none, else a scalar.
std::vector<TensorType> import_loss(const ImportContext& ctx, Node& node) {
  const bool softmax = node.op == "SoftmaxCrossEntropyLoss";
  expect_arity(node, 2, 3, softmax ? std::max<size_t>(1, node.outputs.size()) : 1);
  if (node.outputs.size() > 2) throw Error("at most two outputs: the loss and the log-probabilities");
  const TensorType& input = input_type(ctx, node, 0, {DType::f32});
  const TensorType& target = input_type(ctx, node, 1, {DType::i64, DType::i32});
  if (input.shape.size() < 2) throw Error(fmt::format("input {} must be N x C x ...", input.to_string()));
  std::vector<int64_t> expected = input.shape;
  expected.erase(expected.begin() + 1);
  if (target.shape != expected) {
    throw Error(fmt::format("target {} must have the input's shape without its class dim: [{}]", target.to_string(),
                            fmt::join(expected, ",")));
  }
  if (node.inputs.size() > 2 && !node.inputs[2].empty()) {
    const TensorType& weight = input_type(ctx, node, 2, {DType::f32});
    if (weight.shape != std::vector<int64_t>{input.shape[1]}) {
      throw Error(fmt::format("weight {} must hold one value per class ({})", weight.to_string(), input.shape[1]));
    }
  }
  const std::string reduction = node.attrs.get_string("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    throw Error("reduction '" + reduction + "' is not none, sum or mean");
  }
  node.attrs.set("reduction", reduction);
  std::vector<TensorType> outputs{TensorType{DType::f32, reduction == "none" ? expected : std::vector<int64_t>{}}};
  if (node.outputs.size() > 1) outputs.push_back(input);
  return outputs;
}

}  // namespace nee
