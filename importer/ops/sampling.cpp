// Operators that sample an image at computed positions: GridSample and RoiAlign.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <initializer_list>
#include <string>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"

namespace nee {

namespace {

// X as both operators read it: f32 or f64 [N, C, H, W] with pixels to sample.
const TensorType& image_input(const ImportContext& ctx, const Node& node) {
  const TensorType& x = input_type(ctx, node, 0, {DType::f32, DType::f64});
  if (x.shape.size() != 4) throw Error(fmt::format("X {} must be 4-D [N, C, H, W]", x.to_string()));
  if (x.shape[2] == 0 || x.shape[3] == 0) throw Error(fmt::format("X {} has no pixels to sample", x.to_string()));
  return x;
}

std::string one_of(const Node& node, const std::string& attribute, const std::string& fallback,
                    std::initializer_list<const char*> allowed) {
  const std::string value = node.attrs.get_string(attribute, fallback);
  for (const char* a : allowed) {
    if (value == a) return value;
  }
  throw Error(fmt::format("{} '{}' is not one of {}", attribute, value, fmt::join(allowed, ", ")));
}

}  // namespace

// GridSample (opset 16): X sampled at the grid's [N, Hout, Wout, 2] normalized (x, y)
// positions, giving [N, C, Hout, Wout]; from opset 20 also volumes, X [N, C, D, H, W] at
// [N, Dout, Hout, Wout, 3] (x, y, z) positions, by linear or nearest interpolation.
// Stored: mode, padding_mode and align_corners, defaults filled in.
std::vector<TensorType> import_grid_sample(const ImportContext& ctx, Node& node) {
  expect_arity(node, 2, 2, 1);
  const TensorType& volume = input_type(ctx, node, 0, {DType::f32, DType::f64});
  const bool volumetric = ctx.opset >= 20 && volume.shape.size() == 5;
  const TensorType& x = volumetric ? volume : image_input(ctx, node);
  const size_t rank = x.shape.size() - 2;
  for (size_t d = 2; d < x.shape.size(); ++d) {
    if (x.shape[d] == 0) throw Error(fmt::format("X {} has no positions to sample", x.to_string()));
  }
  const TensorType& grid = input_type(ctx, node, 1, {DType::f32, DType::f64});
  if (grid.shape.size() != rank + 2 || grid.shape[0] != x.shape[0] ||
      grid.shape.back() != static_cast<int64_t>(rank) || grid.dtype != x.dtype) {
    throw Error(fmt::format("grid {} must be [N, {}] of X {}'s N and dtype", grid.to_string(),
                            volumetric ? "D_out, H_out, W_out, 3" : "H_out, W_out, 2", x.to_string()));
  }
  // Opset 20 renamed the modes (and allows volumes, above).
  if (ctx.opset >= 20) {
    const std::string mode = one_of(node, "mode", "linear", {"linear", "nearest", "cubic"});
    node.attrs.set("mode", mode == "linear" ? std::string("bilinear") : mode == "cubic" ? std::string("bicubic") : mode);
  } else {
    node.attrs.set("mode", one_of(node, "mode", "bilinear", {"bilinear", "nearest", "bicubic"}));
  }
  node.attrs.set("padding_mode", one_of(node, "padding_mode", "zeros", {"zeros", "border", "reflection"}));
  const int64_t align_corners = node.attrs.get_int("align_corners", 0);
  if (align_corners != 0 && align_corners != 1) {
    throw Error(fmt::format("align_corners is {}; it must be 0 or 1", align_corners));
  }
  node.attrs.set("align_corners", align_corners);
  if (volumetric && node.attrs.get_string("mode") == "bicubic") {
    throw Error("mode 'cubic' samples images only; a volume takes linear or nearest");
  }
  std::vector<int64_t> shape = {x.shape[0], x.shape[1]};
  shape.insert(shape.end(), grid.shape.begin() + 1, grid.shape.end() - 1);
  return {TensorType{x.dtype, shape}};
}

// RoiAlign (opsets 10 and 16): for each ROI [x1, y1, x2, y2] of rois [R, 4] (X's dtype)
// on image batch_indices[r] (int64 [R]), output_height x output_width bins pooled from
// bilinear samples, giving [R, C, output_height, output_width]. Opset 16 added
// coordinate_transformation_mode (default half_pixel); opset 10 behaves as
// output_half_pixel. Stored: every attribute with its default, that one included.
std::vector<TensorType> import_roi_align(const ImportContext& ctx, Node& node) {
  expect_arity(node, 3, 3, 1);
  const TensorType& x = image_input(ctx, node);
  const TensorType& rois = input_type(ctx, node, 1, {DType::f32, DType::f64});
  const TensorType& batch_indices = input_type(ctx, node, 2, {DType::i64});
  if (rois.shape.size() != 2 || rois.shape[1] != 4 || rois.dtype != x.dtype) {
    throw Error(fmt::format("rois {} must be [num_rois, 4] of X {}'s dtype", rois.to_string(), x.to_string()));
  }
  const int64_t num_rois = rois.shape[0];
  if (batch_indices.shape != std::vector<int64_t>{num_rois}) {
    throw Error(fmt::format("batch_indices {} must be [{}], one per ROI", batch_indices.to_string(), num_rois));
  }
  if (const Tensor* known = ctx.graph.constant(node.inputs[2])) {
    for (int64_t r = 0; r < num_rois; ++r) {
      const int64_t image = known->data_as<int64_t>()[r];
      if (image < 0 || image >= x.shape[0]) {
        throw Error(fmt::format("batch index {} (ROI {}) is out of range for X's {} images", image, r, x.shape[0]));
      }
    }
  }
  node.attrs.set("mode", one_of(node, "mode", "avg", {"avg", "max"}));
  const int64_t output_height = node.attrs.get_int("output_height", 1);
  const int64_t output_width = node.attrs.get_int("output_width", 1);
  if (output_height < 1 || output_width < 1) {
    throw Error(fmt::format("output_height {} and output_width {} must be positive", output_height, output_width));
  }
  const int64_t sampling_ratio = node.attrs.get_int("sampling_ratio", 0);
  if (sampling_ratio < 0) {
    throw Error(fmt::format("sampling_ratio is {}; it must be 0 (adaptive) or more", sampling_ratio));
  }
  const float spatial_scale = node.attrs.get_float("spatial_scale", 1.0f);
  if (!std::isfinite(spatial_scale)) throw Error(fmt::format("spatial_scale is {}; it must be finite", spatial_scale));
  if (ctx.opset < 16 && node.attrs.has("coordinate_transformation_mode")) {
    throw Error(fmt::format("coordinate_transformation_mode is an attribute from opset 16; the model's is {}",
                            ctx.opset));
  }
  node.attrs.set("coordinate_transformation_mode",
                 ctx.opset < 16 ? std::string("output_half_pixel")
                                : one_of(node, "coordinate_transformation_mode", "half_pixel",
                                         {"half_pixel", "output_half_pixel"}));
  node.attrs.set("output_height", output_height);
  node.attrs.set("output_width", output_width);
  node.attrs.set("sampling_ratio", sampling_ratio);
  node.attrs.set("spatial_scale", spatial_scale);
  return {TensorType{x.dtype, {num_rois, x.shape[1], output_height, output_width}}};
}

}  // namespace nee
