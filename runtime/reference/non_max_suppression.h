#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "runtime/tensor.h"

namespace nee {

struct NonMaxSuppressionParams {
  bool center_point_box = false;  // boxes as [x_center, y_center, width, height]; else two corners [y1, x1, y2, x2]
  int64_t max_output_boxes_per_class = 0;
  float iou_threshold = 0;
  bool has_score_threshold = false;
  float score_threshold = 0;
};

// ONNX NonMaxSuppression: for each batch and class, the boxes in order of falling score
// (ties: the lower index first) whose score passes the threshold, each kept unless it
// overlaps a kept one by more than the IoU threshold, at most max_output_boxes_per_class.
// Returns (batch, class, box) triples, by batch, then class, then selection. `boxes`:
// f32 [batches, boxes, 4]; `scores`: f32 [batches, classes, boxes]. The importer calls it
// for the output's shape, the kernel for its values.
std::vector<std::array<int64_t, 3>> non_max_suppression(const Tensor& boxes, const Tensor& scores,
                                                        const NonMaxSuppressionParams& params);

}  // namespace nee
