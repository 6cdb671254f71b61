#include "core/resize_workload.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/family.h"
#include "core/json_numbers.h"
#include "core/shape_text.h"

namespace nee {

namespace {

const std::vector<std::string> kModes = {"nearest", "linear"};
const std::vector<std::string> kCoordinates = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                               "tf_half_pixel_for_nn"};
const std::vector<std::string> kNearestModes = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};

bool one_of(const std::vector<std::string>& choices, const std::string& v) {
  return std::find(choices.begin(), choices.end(), v) != choices.end();
}

struct StoredResizeAttrs final : WorkloadAttrs {
  ResizeAttrs attrs;

  nlohmann::json to_json() const override {
    nlohmann::json j = {{"mode", attrs.mode},
                        {"coordinates", attrs.coordinates},
                        {"nearest_mode", attrs.nearest_mode},
                        {"scale_h", attrs.scale_h},
                        {"scale_w", attrs.scale_w}};
    // Only where there are lanes: the keys of resizes from before lanes stay as they were.
    if (attrs.lanes != 0) j["lanes"] = attrs.lanes;
    return j;
  }
};

std::shared_ptr<const WorkloadAttrs> resize_attrs_from_json(const nlohmann::json& j) {
  auto stored = std::make_shared<StoredResizeAttrs>();
  stored->attrs.mode = j.at("mode").get<std::string>();
  stored->attrs.coordinates = j.at("coordinates").get<std::string>();
  stored->attrs.nearest_mode = j.at("nearest_mode").get<std::string>();
  stored->attrs.scale_h = json_double(j.at("scale_h"), "scale_h");
  stored->attrs.scale_w = json_double(j.at("scale_w"), "scale_w");
  stored->attrs.lanes = j.value("lanes", int64_t{0});
  return stored;
}

// FLOPs per output element: linear weighs two neighbours along W in each of two rows and
// then the two rows, 3 multiplies and adds of pairs (a weight times each neighbour and
// their sum): 9; nearest copies.
double resize_flops(const Workload& w) {
  return resize_attrs(w).mode == "linear" ? 9.0 * static_cast<double>(w.output.elements()) : 0.0;
}

}  // namespace

Workload make_resize_workload(const TensorType& input, const ResizeAttrs& attrs, const std::vector<int64_t>& output_shape) {
  if (input.dtype != DType::f32) throw Error("resize kernels take f32 tensors, got " + input.to_string());
  const size_t rank = input.shape.size();
  if (rank < 2) throw Error("resize kernels resize a tensor's two innermost dims; " + input.to_string() + " has fewer");
  // The resized dims: the two innermost, or the two before the lanes.
  const size_t lane_dims = attrs.lanes != 0 ? 1 : 0;
  if (attrs.lanes != 0 && (rank < 3 || attrs.lanes < 0 || input.shape.back() != attrs.lanes)) {
    throw Error(fmt::format("resize of {} with {} lanes: the innermost dim must hold them, after H and W",
                            input.to_string(), attrs.lanes));
  }
  const size_t h_dim = rank - 2 - lane_dims, w_dim = rank - 1 - lane_dims;
  if (output_shape.size() != rank) {
    throw Error(fmt::format("resize of {} needs an output of rank {}, got [{}]", input.to_string(), rank,
                            fmt::join(output_shape, ",")));
  }
  for (size_t d = 0; d < rank; ++d) {
    if (input.shape[d] <= 0 || output_shape[d] <= 0) {
      throw Error(fmt::format("resize of {} to [{}]: an empty dimension", input.to_string(), fmt::join(output_shape, ",")));
    }
    if (d != h_dim && d != w_dim && output_shape[d] != input.shape[d]) {
      throw Error(fmt::format("resize kernels keep every dim but H and W; {} to [{}] changes dim {}",
                              input.to_string(), fmt::join(output_shape, ","), d));
    }
  }
  if (!one_of(kModes, attrs.mode)) {
    throw Error(fmt::format("resize mode '{}' is not one of {}", attrs.mode, fmt::join(kModes, ", ")));
  }
  if (!one_of(kCoordinates, attrs.coordinates)) {
    throw Error(fmt::format("resize coordinate transformation '{}' is not one of {}", attrs.coordinates,
                            fmt::join(kCoordinates, ", ")));
  }
  if (attrs.mode == "nearest" && !one_of(kNearestModes, attrs.nearest_mode)) {
    throw Error(fmt::format("resize nearest_mode '{}' is not one of {}", attrs.nearest_mode,
                            fmt::join(kNearestModes, ", ")));
  }
  // ONNX resizes every dim: an outer dim at scale 1 keeps its indices under every
  // transformation but tf_half_pixel_for_nn, which maps index x to x + 0.5, and from
  // there to x + 1 when rounding up (ceil, round_prefer_ceil) or interpolating.
  const bool rounds_down = attrs.mode == "nearest" &&
                           (attrs.nearest_mode == "floor" || attrs.nearest_mode == "round_prefer_floor");
  if (attrs.coordinates == "tf_half_pixel_for_nn" && rank > 2 && !rounds_down) {
    throw Error(fmt::format("resize of {}: tf_half_pixel_for_nn moves the outer dims unless nearest rounds down "
                            "(floor, round_prefer_floor), which the resize kernels do not cover",
                            input.to_string()));
  }
  if (!(attrs.scale_h > 0 && attrs.scale_w > 0) || !std::isfinite(attrs.scale_h) || !std::isfinite(attrs.scale_w)) {
    throw Error(fmt::format("resize scales {} and {} must be positive and finite", attrs.scale_h, attrs.scale_w));
  }
  // ONNX makes floor(in * scale) elements, and a scale taken from sizes is out / in: the
  // margin absorbs that division's rounding.
  for (size_t d : {h_dim, w_dim}) {
    const double scale = d == w_dim ? attrs.scale_w : attrs.scale_h;
    const auto made = static_cast<int64_t>(std::floor(static_cast<double>(input.shape[d]) * scale + 1e-6));
    if (output_shape[d] != made) {
      throw Error(fmt::format("resize of {} by scales {} and {} makes [{}] with {} elements in dim {}, not {}",
                              input.to_string(), attrs.scale_h, attrs.scale_w, fmt::join(output_shape, ","), made, d,
                              output_shape[d]));
    }
  }
  Workload w;
  w.op = "resize";
  auto stored = std::make_shared<StoredResizeAttrs>();
  stored->attrs = attrs;
  // Linear interpolation never reads nearest_mode: two nodes differing only there share a kernel.
  if (attrs.mode == "linear") stored->attrs.nearest_mode = "";
  w.attrs = stored;
  w.inputs = {input};
  w.output = TensorType{DType::f32, output_shape};
  return w;
}

ResizeAttrs resize_attrs(const Workload& w) { return w.attrs_as<StoredResizeAttrs>().attrs; }

Workload resize_workload_from_shape(const std::string& text) {
  const ShapeText parsed("resize", text, {"size", "mode", "coordinates", "nearest_mode", "lanes"});
  const TensorType input{DType::f32, parsed.shape()};
  if (!parsed.has("size")) parsed.refuse("size=HxW (the output's H and W) is missing");
  const std::vector<int64_t> size = parsed.integers("size", {}, 2);
  ResizeAttrs attrs;
  attrs.lanes = parsed.has("lanes") ? parsed.integers("lanes", {}, 1)[0] : 0;
  const size_t rank = input.shape.size(), lane_dims = attrs.lanes != 0 ? 1 : 0;
  if (rank < 2 + lane_dims) {
    parsed.refuse(lane_dims ? "the input needs H, W and the lanes" : "the input needs two dims or more");
  }
  const size_t h_dim = rank - 2 - lane_dims, w_dim = rank - 1 - lane_dims;
  std::vector<int64_t> output_shape = input.shape;
  output_shape[h_dim] = size[0];
  output_shape[w_dim] = size[1];
  attrs.mode = parsed.choice("mode", "linear", kModes);
  attrs.coordinates = parsed.choice("coordinates", "half_pixel", kCoordinates);
  attrs.nearest_mode = parsed.choice("nearest_mode", "round_prefer_floor", kNearestModes);
  attrs.scale_h = static_cast<double>(size[0]) / static_cast<double>(input.shape[h_dim]);
  attrs.scale_w = static_cast<double>(size[1]) / static_cast<double>(input.shape[w_dim]);
  return make_resize_workload(input, attrs, output_shape);
}

Family resize_family() {
  // Bound by moving data (each output reads two or four inputs and weighs them): speed in
  // GB/s. A linear output sums the products of four weights, rounded like a 4-term sum;
  // a nearest one is a copy, exact.
  return {FamilyId::resize,
          "resize",
          resize_flops,
          [](const Workload& w) { return resize_attrs(w).mode == "linear" ? int64_t{4} : int64_t{0}; },
          SpeedUnit::gbytes,
          resize_workload_from_shape,
          "DxDx...xD,size=HxW[,mode=linear|nearest][,coordinates=half_pixel|pytorch_half_pixel|align_corners|"
          "asymmetric|tf_half_pixel_for_nn][,nearest_mode=round_prefer_floor|round_prefer_ceil|floor|ceil]"
          "[,lanes=L] (the input shape and its output's H and W, the two innermost dims or, with lanes, the two "
          "before the innermost; e.g. a segmentation head's upsampling 1x21x28x28,size=224x224, a blocked one "
          "1x4x16x16x16,size=32x32,lanes=16)",
          {},
          0,
          resize_attrs_from_json,
          [](const Workload& w) {
            require_input_count(w, 1);
            return make_resize_workload(w.inputs[0], resize_attrs(w), w.output.shape);
          }};
}

}  // namespace nee
