#include "runtime/reference/non_max_suppression.h"

#include <algorithm>
#include <numeric>

#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

struct Corners {
  float y1, x1, y2, x2;
  float area() const { return (y2 - y1) * (x2 - x1); }
};

Corners corners(const float* b, bool center_point_box) {
  if (center_point_box) {
    const float xc = b[0], yc = b[1], w = b[2], h = b[3];
    return {yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2};
  }
  // The two corners may come in either order ("flipped coordinates").
  return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

// Intersection over union; boxes of no area overlap nothing.
float iou(const Corners& a, const Corners& b) {
  if (a.area() <= 0 || b.area() <= 0) return 0;
  const float h = std::min(a.y2, b.y2) - std::max(a.y1, b.y1), w = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
  if (h <= 0 || w <= 0) return 0;
  const float inter = h * w;
  return inter / (a.area() + b.area() - inter);
}

}  // namespace

std::vector<std::array<int64_t, 3>> non_max_suppression(const Tensor& boxes, const Tensor& scores,
                                                        const NonMaxSuppressionParams& params) {
  const int64_t batches = scores.shape()[0], classes = scores.shape()[1], count = scores.shape()[2];
  std::vector<std::array<int64_t, 3>> selected;
  if (params.max_output_boxes_per_class <= 0) return selected;
  for (int64_t b = 0; b < batches; ++b) {
    std::vector<Corners> box(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) box[i] = corners(boxes.data_as<float>() + (b * count + i) * 4, params.center_point_box);
    for (int64_t c = 0; c < classes; ++c) {
      const float* score = scores.data_as<float>() + (b * classes + c) * count;
      std::vector<int64_t> order;
      for (int64_t i = 0; i < count; ++i) {
        if (!params.has_score_threshold || score[i] > params.score_threshold) order.push_back(i);
      }
      std::stable_sort(order.begin(), order.end(), [score](int64_t i, int64_t j) { return score[i] > score[j]; });
      std::vector<int64_t> kept;
      for (int64_t i : order) {
        if (static_cast<int64_t>(kept.size()) >= params.max_output_boxes_per_class) break;
        const bool overlaps = std::any_of(kept.begin(), kept.end(),
                                          [&](int64_t k) { return iou(box[i], box[k]) > params.iou_threshold; });
        if (!overlaps) kept.push_back(i);
      }
      for (int64_t i : kept) selected.push_back({b, c, i});
    }
  }
  return selected;
}

// The importer stores the parameters as attributes; boxes and scores are inputs 0 and 1.
ReferenceFn make_reference_non_max_suppression(const Graph&, const Node& node) {
  NonMaxSuppressionParams params;
  params.center_point_box = node.attrs.get_int("center_point_box", 0) != 0;
  params.max_output_boxes_per_class = node.attrs.get_int("max_output_boxes_per_class");
  params.iou_threshold = node.attrs.get_float("iou_threshold");
  params.has_score_threshold = node.attrs.has("score_threshold");
  params.score_threshold = node.attrs.get_float("score_threshold", 0);
  return [params](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const auto selected = non_max_suppression(*in[0], *in[1], params);
    int64_t* y = out[0]->data_as<int64_t>();
    for (const auto& triple : selected) y = std::copy(triple.begin(), triple.end(), y);
  };
}

}  // namespace nee
