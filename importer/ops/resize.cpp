// Resize (opsets 10, 11, 13, 18, 19): nearest, linear and cubic interpolation over any
// dims, antialiased when linear or cubic downsample; and
// Upsample (opsets 7, 9), which is a Resize of opset 10.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include "core/error.h"
#include "importer/node_checks.h"
#include "importer/op_importers.h"
#include "importer/ops/constant_inputs.h"

namespace nee {

namespace {

// The interpolation settings Resize's kernel reads, with the attributes of modes not
// chosen (cubic's, tf_crop_and_resize's) at their defaults unless given.
void store_interpolation(Node& node, const std::string& mode, const std::string& coordinates,
                         const std::string& nearest) {
  node.attrs.set("mode", mode);
  node.attrs.set("coordinate_transformation_mode", coordinates);
  node.attrs.set("nearest_mode", nearest);
  node.attrs.set("cubic_coeff_a", node.attrs.get_float("cubic_coeff_a", -0.75f));
  node.attrs.set("exclude_outside", node.attrs.get_int("exclude_outside", 0));
  node.attrs.set("extrapolation_value", node.attrs.get_float("extrapolation_value", 0.0f));
}

}  // namespace

// Inputs: opset 10 (X, scales); 11 (X, roi, scales, sizes?); 13 (X, roi?, scales?, sizes?).
// Scales or sizes (exactly one; an empty scales tensor counts as absent) must be
// constants. Opset 10 has no coordinate attributes: it maps an output index x to
// x / scale and takes the floor for nearest. Stored for the kernel: every attribute
// with its default filled in, `scales` when scales were given (otherwise the kernel
// uses output / input extent), `roi` (start values per dim, then end values) for
// tf_crop_and_resize.
std::vector<TensorType> import_resize(const ImportContext& ctx, Node& node) {
  const bool opset10 = ctx.opset < 11;
  expect_arity(node, opset10 ? 2 : 1, opset10 ? 2 : 4, 1);
  const TensorType& in = input_type(ctx, node, 0, {DType::f32, DType::i64, DType::i32, DType::i8, DType::u8});
  const size_t rank = in.shape.size();
  const std::string mode = node.attrs.get_string("mode", "nearest");
  if (mode != "nearest" && mode != "linear" && mode != "cubic") {
    throw Error(fmt::format("mode '{}' is not one of nearest, linear, cubic", mode));
  }
  if (opset10 && mode == "cubic") throw Error("mode 'cubic' needs opset 11 or later");
  if (mode != "nearest" && in.dtype != DType::f32) throw Error(fmt::format("mode '{}' needs float data", mode));
  const std::string coordinates =
      opset10 ? "asymmetric" : node.attrs.get_string("coordinate_transformation_mode", "half_pixel");
  static const std::set<std::string> kCoordinateModes = {"half_pixel", "pytorch_half_pixel", "align_corners",
                                                         "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize",
                                                         "half_pixel_symmetric"};
  if (!kCoordinateModes.count(coordinates) || (coordinates == "half_pixel_symmetric" && ctx.opset < 19)) {
    throw Error(fmt::format("coordinate_transformation_mode '{}' is not supported at opset {}", coordinates,
                            ctx.opset));
  }
  const std::string nearest = opset10 ? "floor" : node.attrs.get_string("nearest_mode", "round_prefer_floor");
  if (nearest != "round_prefer_floor" && nearest != "round_prefer_ceil" && nearest != "floor" && nearest != "ceil") {
    throw Error(fmt::format("nearest_mode '{}' is not supported", nearest));
  }

  std::optional<std::vector<float>> scales = constant_floats(ctx, node, opset10 ? 1 : 2, "scales");
  if (scales && scales->empty()) scales.reset();
  std::optional<std::vector<int64_t>> sizes = opset10 ? std::nullopt : constant_ints(ctx, node, 3, "sizes");
  if (scales.has_value() == sizes.has_value()) throw Error("exactly one of scales and sizes must be given");
  // Opset 18: `axes` names the dims scales or sizes are for (the others keep their extent)
  // and is stored expanded to every dim; antialias widens linear and cubic filters by
  // 1 / scale where they downsample (stored, 0 or 1); keep_aspect_ratio_policy scales the
  // axes' sizes by one factor, their smallest ratio (not_larger) or largest (not_smaller).
  const int64_t antialias = node.attrs.get_int("antialias", 0);
  if (antialias != 0 && antialias != 1) throw Error(fmt::format("antialias is {}; it must be 0 or 1", antialias));
  const std::string policy = node.attrs.get_string("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller") {
    throw Error(fmt::format("keep_aspect_ratio_policy '{}' is not one of stretch, not_larger, not_smaller", policy));
  }
  std::vector<int64_t> axes(rank);
  for (size_t d = 0; d < rank; ++d) axes[d] = static_cast<int64_t>(d);
  const bool some_axes = node.attrs.has("axes");
  if (some_axes) {
    axes = distinct_axes(node.attrs.get_ints("axes"), rank);
    const size_t given = scales ? scales->size() : sizes->size();
    if (given != axes.size()) {
      throw Error(fmt::format("axes [{}] needs one {} per axis, got {}", fmt::join(axes, ","),
                              scales ? "scale" : "size", given));
    }
    std::vector<float> all_scales(rank, 1.0f);
    std::vector<int64_t> all_sizes(in.shape);
    for (size_t i = 0; i < axes.size(); ++i) {
      if (scales) all_scales[axes[i]] = (*scales)[i];
      if (sizes) all_sizes[axes[i]] = (*sizes)[i];
    }
    if (scales) scales = all_scales;
    if (sizes) sizes = all_sizes;
    node.attrs.erase("axes");
  }
  if (sizes && policy != "stretch" && sizes->size() == rank) {
    double scale = policy == "not_larger" ? std::numeric_limits<double>::infinity() : 0.0;
    for (int64_t d : axes) {
      if (in.shape[d] == 0) throw Error(fmt::format("cannot keep the aspect ratio of the empty dim {}", d));
      const double ratio = static_cast<double>((*sizes)[d]) / static_cast<double>(in.shape[d]);
      scale = policy == "not_larger" ? std::min(scale, ratio) : std::max(scale, ratio);
    }
    std::vector<float> all_scales(rank, 1.0f);
    for (int64_t d : axes) {
      (*sizes)[d] = static_cast<int64_t>(scale * static_cast<double>(in.shape[d]) + 0.5);
      all_scales[d] = static_cast<float>(scale);
    }
    node.attrs.set("scales", all_scales);
  }
  node.attrs.set("antialias", mode == "nearest" ? int64_t{0} : antialias);
  node.attrs.erase("keep_aspect_ratio_policy");

  std::vector<float> roi;
  if (coordinates == "tf_crop_and_resize") {
    if (in.dtype != DType::f32) throw Error("tf_crop_and_resize needs float data");
    roi = constant_floats(ctx, node, 1, "roi").value_or(std::vector<float>{});
    if (some_axes && roi.size() == 2 * axes.size()) {  // starts and ends of the axes only
      std::vector<float> all(2 * rank, 0.0f);
      std::fill(all.begin() + static_cast<std::ptrdiff_t>(rank), all.end(), 1.0f);
      for (size_t i = 0; i < axes.size(); ++i) {
        all[axes[i]] = roi[i];
        all[rank + axes[i]] = roi[axes.size() + i];
      }
      roi = all;
    }
    if (roi.size() != 2 * rank) throw Error(fmt::format("roi [{}] must have 2 entries per dim", fmt::join(roi, ",")));
    node.attrs.set("roi", roi);
  }

  TensorType out = in;
  if (scales) {
    if (scales->size() != rank) {
      throw Error(fmt::format("scales [{}] must have one entry per dim of {}", fmt::join(*scales, ","), in.to_string()));
    }
    for (size_t d = 0; d < rank; ++d) {
      if (!((*scales)[d] > 0)) throw Error(fmt::format("scales [{}] must be positive", fmt::join(*scales, ",")));
      const double extent = roi.empty() ? 1.0 : roi[d + rank] - roi[d];
      out.shape[d] = static_cast<int64_t>(std::floor(in.shape[d] * extent * (*scales)[d]));
    }
    node.attrs.set("scales", *scales);
  } else {
    if (sizes->size() != rank) {
      throw Error(fmt::format("sizes [{}] must have one entry per dim of {}", fmt::join(*sizes, ","), in.to_string()));
    }
    for (size_t d = 0; d < rank; ++d) {
      if ((*sizes)[d] < 0) throw Error(fmt::format("sizes [{}] has a negative entry", fmt::join(*sizes, ",")));
      if ((*sizes)[d] > 0 && in.shape[d] == 0) throw Error(fmt::format("cannot resize the empty dim {}", d));
    }
    out.shape = *sizes;
  }
  store_interpolation(node, mode, coordinates, nearest);
  return {out};
}

// Upsample: scales (one per dim, each at least 1) from the attribute at opsets 7 and 8,
// from a constant second input at opset 9; output dims floor(dim * scale). Output index
// x reads input coordinate x / scale, floored for nearest, interpolated between its
// neighbours (clamped at the edge) for linear, over every dim: Resize of opset 10 (mode
// nearest or linear, asymmetric coordinates, floor). The node becomes that Resize, X its
// only input, its settings stored as import_resize stores them.
std::vector<TensorType> import_upsample(const ImportContext& ctx, Node& node) {
  if (ctx.opset >= 10) {
    throw Error(fmt::format("Upsample is deprecated from opset 10 on (the model's is {}); Resize replaces it",
                            ctx.opset));
  }
  const bool scales_input = ctx.opset >= 9;
  expect_arity(node, scales_input ? 2 : 1, scales_input ? 2 : 1, 1);
  const TensorType& in = input_type(ctx, node, 0, {DType::f32, DType::i64, DType::i32, DType::i8, DType::u8});
  const std::string mode = node.attrs.get_string("mode", "nearest");
  if (mode != "nearest" && mode != "linear") throw Error(fmt::format("mode '{}' is not one of nearest, linear", mode));
  if (mode == "linear" && in.dtype != DType::f32) throw Error("mode 'linear' needs float data");
  const std::vector<float> scales =
      scales_input ? *constant_floats(ctx, node, 1, "scales") : node.attrs.get_floats("scales");
  if (scales.size() != in.shape.size()) {
    throw Error(fmt::format("scales [{}] must have one entry per dim of {}", fmt::join(scales, ","), in.to_string()));
  }
  TensorType out = in;
  for (size_t d = 0; d < scales.size(); ++d) {
    const double extent = std::floor(static_cast<double>(in.shape[d]) * scales[d]);
    if (!(scales[d] >= 1) || !(extent < 0x1p62)) {  // NaN and infinity fail too
      throw Error(fmt::format("scales [{}] must each be at least 1 (and keep every dim below 2^62)",
                              fmt::join(scales, ",")));
    }
    out.shape[d] = static_cast<int64_t>(extent);
  }
  node.op = "Resize";
  node.inputs.resize(1);
  node.attrs.set("scales", scales);
  store_interpolation(node, mode, "asymmetric", "floor");
  return {out};
}

}  // namespace nee
