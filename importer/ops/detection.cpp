#include <fmt/format.h>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"
#include "importer/ops/constant_inputs.h"
#include "runtime/reference/non_max_suppression.h"

namespace nee {

// NonMaxSuppression: how many boxes it selects depends on their values, so boxes and
// scores must be known (a staged run specializes on them); the limits, thresholds and
// box format become attributes of the two-input node.
std::vector<TensorType> import_non_max_suppression(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 5, 1);
  const TensorType& boxes_type = input_type(ctx, node, 0, {DType::f32});
  const TensorType& scores_type = input_type(ctx, node, 1, {DType::f32});
  if (boxes_type.shape.size() != 3 || boxes_type.shape[2] != 4 || scores_type.shape.size() != 3 ||
      scores_type.shape[0] != boxes_type.shape[0] || scores_type.shape[2] != boxes_type.shape[1]) {
    throw Error(fmt::format("boxes {} must be [batches, boxes, 4] and scores {} [batches, classes, boxes]",
                            boxes_type.to_string(), scores_type.to_string()));
  }
  const int64_t center_point_box = node.attrs.get_int("center_point_box", 0);
  if (center_point_box != 0 && center_point_box != 1) throw Error("center_point_box must be 0 or 1");
  NonMaxSuppressionParams params;
  params.center_point_box = center_point_box == 1;
  const auto one = [&](const auto& values, const char* role) {
    if (values->size() != 1) throw Error(fmt::format("{} must hold one value", role));
    return (*values)[0];
  };
  if (auto v = constant_ints(ctx, node, 2, "max_output_boxes_per_class")) {
    params.max_output_boxes_per_class = one(v, "max_output_boxes_per_class");
  }
  if (auto v = constant_floats(ctx, node, 3, "iou_threshold")) params.iou_threshold = one(v, "iou_threshold");
  if (auto v = constant_floats(ctx, node, 4, "score_threshold")) {
    params.has_score_threshold = true;
    params.score_threshold = one(v, "score_threshold");
  }
  const Tensor& boxes = constant_input(ctx, node, 0, "boxes");
  const Tensor& scores = constant_input(ctx, node, 1, "scores");
  const auto selected = static_cast<int64_t>(non_max_suppression(boxes, scores, params).size());
  node.attrs.set("center_point_box", center_point_box);
  node.attrs.set("max_output_boxes_per_class", params.max_output_boxes_per_class);
  node.attrs.set("iou_threshold", params.iou_threshold);
  if (params.has_score_threshold) node.attrs.set("score_threshold", params.score_threshold);
  node.inputs.resize(2);
  return {TensorType{DType::i64, {selected, 3}}};
}

}  // namespace nee
