// GridSample, RoiAlign and Unique. Expected values are worked out by hand in the
// comments: GridSample on a row of powers of two, where each padding mode gives a
// different value; RoiAlign on images that are linear in (y, x), where an average of
// bilinear samples is the value at their mean position; Unique on short lists.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/half_float.h"
#include "importer/import_onnx.h"
#include "import_and_run.h"
#include "onnx_model_builder.h"
#include "runtime/passes/passes.h"
#include "runtime/staged_session.h"

namespace nee {
namespace {

using test::ints_of;
using test::make_f32;
using test::make_i64;
using test::OnnxModelBuilder;
using test::run_model;
using test::set_attr;
using test::set_string_attr;
using test::values_of;
using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using ::testing::Pointwise;

// ---- GridSample ----

// Samples x (1 x 1 x H x W) at the (gx, gy) points, giving 1 x 1 x 1 x points.
Tensor grid_sample(const Tensor& x, const std::vector<float>& points, const std::string& mode,
                   const std::string& padding, int64_t align_corners) {
  const auto count = static_cast<int64_t>(points.size() / 2);
  OnnxModelBuilder m;
  m.input("x", x.shape()).input("grid", {1, 1, count, 2}).output("y");
  onnx::NodeProto& n = m.node("GridSample", {"x", "grid"}, {"y"});
  set_string_attr(n, "mode", mode);
  set_string_attr(n, "padding_mode", padding);
  set_attr(n, "align_corners", align_corners);
  const Tensor y = run_model(m, {{"x", x}, {"grid", make_f32({1, 1, count, 2}, points)}}).at("y");
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 1, 1, count}));
  return y;
}

// The row [1, 2, 4, 8] at gx = -3, -2, -1, 0, 0.6, 1, 1.5, 5 (gy = 0, the row's centre).
// Without align_corners x = 2 gx + 1.5 and the samples may lie in [-0.5, 3.5]:
//   -4.5: far left: zeros 0; border clamps to 0 -> 1; reflection: 4 past -0.5 is one
//         full width (4), so it flips once and lands on 3.5 -> taps 3, 4 (4 reflects to 3) -> 8
//   -2.5: zeros 0; border 1; reflection: 2 past -0.5 -> 1.5 -> (2 + 4) / 2 = 3
//   -0.5: taps -1, 0 at 1/2 each: zeros 1/2; border and reflection read pixel 0 twice -> 1
//    1.5: (2 + 4) / 2 = 3;  2.7: 0.3 * 4 + 0.7 * 8 = 6.8 in every mode
//    3.5: taps 3, 4: zeros 8 / 2 = 4; border and reflection 8
//    4.5: zeros 0; border clamps to 3 -> 8; reflection: 1 past 3.5 -> 2.5 -> (4 + 8) / 2 = 6
//   11.5: zeros 0; border 8; reflection: 8 past 3.5, two widths -> 3.5 -> 8
TEST(GridSample, BilinearPaddingModes) {
  const Tensor row = make_f32({1, 1, 1, 4}, {1, 2, 4, 8});
  const std::vector<float> gx = {-3, -2, -1, 0, 0.6f, 1, 1.5f, 5};
  std::vector<float> points;
  for (float g : gx) points.insert(points.end(), {g, 0});
  const auto near = [](std::vector<float> expected) { return Pointwise(FloatNear(1e-5f), expected); };
  EXPECT_THAT(values_of(grid_sample(row, points, "bilinear", "zeros", 0)), near({0, 0, 0.5f, 3, 6.8f, 4, 0, 0}));
  EXPECT_THAT(values_of(grid_sample(row, points, "bilinear", "border", 0)), near({1, 1, 1, 3, 6.8f, 8, 8, 8}));
  EXPECT_THAT(values_of(grid_sample(row, points, "bilinear", "reflection", 0)), near({8, 3, 1, 3, 6.8f, 8, 6, 8}));
}

// Nearest rounds halves to even (as PyTorch's 2-D sampler): x = 2 gx + 1.5 is -0.1 -> 0,
// 0.5 -> 0, 1.5 -> 2, 2 -> 2, 2.5 -> 2, 3 -> 3, 3.5 -> 4 (outside: zero).
TEST(GridSample, NearestRoundsHalvesToEven) {
  const Tensor row = make_f32({1, 1, 1, 4}, {1, 2, 4, 8});
  std::vector<float> points;
  for (float g : {-0.8f, -0.5f, 0.0f, 0.25f, 0.5f, 0.75f, 1.0f}) points.insert(points.end(), {g, 0});
  EXPECT_THAT(values_of(grid_sample(row, points, "nearest", "zeros", 0)), ElementsAre(1, 1, 4, 4, 4, 8, 0));
  EXPECT_THAT(values_of(grid_sample(row, points, "nearest", "border", 0)), ElementsAre(1, 1, 4, 4, 4, 8, 8));
}

// Keys' cubic weights (A = -0.75) at t = 0.5 are -3/32, 19/32, 19/32, -3/32, and at t = 0
// 0, 1, 0, 0 (so the single row, at y = 0, is read alone). On [1, 2, 4, 8, 16] (W = 5,
// x = (5 (gx + 1) - 1) / 2):
//   x = 1.5 (gx = -0.2): -3/32 (1 + 8) + 19/32 (2 + 4) = 2.71875
//   x = 0.5 (gx = -0.6): taps -1..2: zeros -3/32 (0 + 4) + 19/32 (1 + 2) = 1.40625;
//                        border reads pixel 0 for tap -1: -3/32 (1 + 4) + 19/32 * 3 = 1.3125
//   x = 2 (gx = 0): pixel 2 = 4
TEST(GridSample, BicubicWeights) {
  const Tensor row = make_f32({1, 1, 1, 5}, {1, 2, 4, 8, 16});
  const std::vector<float> points = {-0.2f, 0, -0.6f, 0, 0, 0};
  EXPECT_THAT(values_of(grid_sample(row, points, "bicubic", "zeros", 0)),
              Pointwise(FloatNear(1e-5f), std::vector<float>{2.71875f, 1.40625f, 4}));
  EXPECT_THAT(values_of(grid_sample(row, points, "bicubic", "border", 0)),
              Pointwise(FloatNear(1e-5f), std::vector<float>{2.71875f, 1.3125f, 4}));
}

// With align_corners, -1 and 1 are the centres of the end pixels: x = 1.5 (gx + 1) on
// [1, 2, 4, 8]: gx -1 -> 1, 0 -> x 1.5 -> 3, 0.5 -> x 2.25 -> 0.75 * 4 + 0.25 * 8 = 5, 1 -> 8.
TEST(GridSample, AlignCornersMapsEndsToPixelCentres) {
  const Tensor row = make_f32({1, 1, 1, 4}, {1, 2, 4, 8});
  EXPECT_THAT(values_of(grid_sample(row, {-1, 0, 0, 0, 0.5f, 0, 1, 0}, "bilinear", "zeros", 1)),
              ElementsAre(1, 3, 5, 8));
}

// Two images of two channels, x[n][c] = [[1, 2], [3, 4]] + 10 c + 100 n, each sampled at
// its own points with align_corners (so every tap is inside and the offsets carry over):
// (0, 0) is the middle -> 2.5; (1, -1) is the top right pixel -> 2; (-1, 1) the bottom left
// -> 3; (0.5, -0.5) is x 0.75, y 0.25: rows 1.75 and 3.75 -> 0.75 * 1.75 + 0.25 * 3.75 = 2.25.
TEST(GridSample, BatchesChannelsAndAxesOrder) {
  std::vector<float> x;
  for (int n = 0; n < 2; ++n) {
    for (int c = 0; c < 2; ++c) {
      for (float v : {1, 2, 3, 4}) x.push_back(v + 10.0f * c + 100.0f * n);
    }
  }
  OnnxModelBuilder m;
  m.input("x", {2, 2, 2, 2}).input("grid", {2, 1, 2, 2}).output("y");
  set_attr(m.node("GridSample", {"x", "grid"}, {"y"}), "align_corners", int64_t{1});
  const Tensor y = run_model(m, {{"x", make_f32({2, 2, 2, 2}, x)},
                                 {"grid", make_f32({2, 1, 2, 2}, {0, 0, 1, -1, -1, 1, 0.5f, -0.5f})}})
                       .at("y");
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 2, 1, 2}));
  EXPECT_THAT(values_of(y), ElementsAre(2.5f, 2, 12.5f, 12, 103, 102.25f, 113, 112.25f));
}

TEST(GridSample, DoubleInput) {
  OnnxModelBuilder m;
  m.input("x", onnx::TensorProto::DOUBLE, {"1", "1", "2", "2"})
      .input("grid", onnx::TensorProto::DOUBLE, {"1", "1", "1", "2"})
      .output("y", onnx::TensorProto::DOUBLE);
  set_attr(m.node("GridSample", {"x", "grid"}, {"y"}), "align_corners", int64_t{1});
  Tensor x(DType::f64, {1, 1, 2, 2}), grid(DType::f64, {1, 1, 1, 2});
  const double image[] = {1, 2, 3, 4}, point[] = {0.5, -0.5};
  std::copy(image, image + 4, x.data_as<double>());
  std::copy(point, point + 2, grid.data_as<double>());
  const Tensor y = run_model(m, {{"x", x}, {"grid", grid}}).at("y");
  ASSERT_EQ(y.dtype(), DType::f64);
  EXPECT_EQ(y.data_as<double>()[0], 2.25);  // as in BatchesChannelsAndAxesOrder
}

TEST(GridSample, BadInputsAreClearErrors) {
  const auto model = [](const std::vector<int64_t>& grid, const std::string& mode, int64_t opset) {
    OnnxModelBuilder m(opset);
    m.input("x", {1, 1, 2, 2}).input("grid", grid).output("y");
    set_string_attr(m.node("GridSample", {"x", "grid"}, {"y"}), "mode", mode);
    return m;
  };
  EXPECT_THAT(test::import_error(model({1, 2, 2, 3}, "bilinear", 17)), HasSubstr("must be [N, H_out, W_out, 2]"));
  EXPECT_THAT(test::import_error(model({2, 2, 2, 2}, "bilinear", 17)), HasSubstr("must be [N, H_out, W_out, 2]"));
  EXPECT_THAT(test::import_error(model({1, 2, 2, 2}, "linear", 17)),
              HasSubstr("mode 'linear' is not one of bilinear, nearest, bicubic"));
  EXPECT_THAT(test::import_error(model({1, 2, 2, 2}, "bilinear", 15)),
              HasSubstr("operator 'GridSample' came with opset 16; the model's default-domain opset is 15"));
}

// Volumes (opset 20): a 2x2x2 volume of 0..7 sampled trilinearly at its centre (the mean,
// 3.5) and at (x, y, z) = (1, -1, -1) with align_corners (the corner x = 1, y = z = 0: 1),
// and by nearest at the same corner; opset 19 reads images only, and cubic no volumes.
TEST(GridSample, VolumesFromOpset20) {
  const auto model = [](const std::string& mode, int64_t opset) {
    OnnxModelBuilder m(opset);
    m.input("x", {1, 1, 2, 2, 2}).input("grid", {1, 1, 1, 2, 3}).output("y");
    onnx::NodeProto& node = m.node("GridSample", {"x", "grid"}, {"y"});
    set_string_attr(node, "mode", mode);
    set_attr(node, "align_corners", int64_t{1});
    return m;
  };
  const Tensor x = make_f32({1, 1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  const Tensor grid = make_f32({1, 1, 1, 2, 3}, {0, 0, 0, 1, -1, -1});
  const Tensor linear = test::run_single_output(model("linear", 20), {{"x", x}, {"grid", grid}});
  EXPECT_EQ(linear.shape(), (std::vector<int64_t>{1, 1, 1, 1, 2}));
  test::expect_near_all(values_of(linear), {3.5f, 1});
  test::expect_near_all(values_of(test::run_single_output(model("nearest", 20), {{"x", x}, {"grid", grid}})),
                        {0, 1});  // the centre's halves round to even: voxel 0
  EXPECT_THAT(test::import_error(model("linear", 19)), HasSubstr("must be 4-D"));
  EXPECT_THAT(test::import_error(model("cubic", 20)), HasSubstr("a volume takes linear or nearest"));
}

// ---- RoiAlign ----

// x[n][c][y][x] = 10 y + x + 100 c + 1000 n, for n, c < 2 and 4 x 4 pixels. Bilinear
// samples inside it are exact, so an average of samples is the value at their mean.
Tensor linear_images() {
  std::vector<float> v;
  for (int n = 0; n < 2; ++n) {
    for (int c = 0; c < 2; ++c) {
      for (int y = 0; y < 4; ++y) {
        for (int x = 0; x < 4; ++x) v.push_back(10.0f * y + x + 100.0f * c + 1000.0f * n);
      }
    }
  }
  return make_f32({2, 2, 4, 4}, v);
}

struct RoiAlignAttrs {
  std::string mode = "avg";
  int64_t output_height = 1, output_width = 1, sampling_ratio = 0;
  float spatial_scale = 1;
  std::string coordinates;  // empty: not set
};

OnnxModelBuilder roi_align_model(const std::vector<float>& rois, const std::vector<int64_t>& batch_indices,
                                 const RoiAlignAttrs& a, int64_t opset = 17) {
  const auto count = static_cast<int64_t>(batch_indices.size());
  OnnxModelBuilder m(opset);
  m.input("x", {2, 2, 4, 4}).output("y");
  m.initializer("rois", make_f32({count, 4}, rois));
  m.initializer("batch_indices", make_i64({count}, batch_indices));
  onnx::NodeProto& n = m.node("RoiAlign", {"x", "rois", "batch_indices"}, {"y"});
  set_string_attr(n, "mode", a.mode);
  set_attr(n, "output_height", a.output_height);
  set_attr(n, "output_width", a.output_width);
  set_attr(n, "sampling_ratio", a.sampling_ratio);
  set_attr(n, "spatial_scale", a.spatial_scale);
  if (!a.coordinates.empty()) set_string_attr(n, "coordinate_transformation_mode", a.coordinates);
  return m;
}

Tensor roi_align(const std::vector<float>& rois, const std::vector<int64_t>& batch_indices, const RoiAlignAttrs& a,
                 int64_t opset = 17) {
  return run_model(roi_align_model(rois, batch_indices, a, opset), {{"x", linear_images()}}).at("y");
}

// output_half_pixel, 2 x 2 bins of one sample each: ROI [0, 0, 2, 2] on image 1 samples
// (y, x) = (0.5, 0.5), (0.5, 1.5), (1.5, 0.5), (1.5, 1.5) -> 5.5, 6.5, 15.5, 16.5 (+1000,
// +100 for channel 1); ROI [1, 0, 3, 2] (x from 1 to 3) on image 0 samples x = 1.5, 2.5
// -> 6.5, 7.5, 16.5, 17.5.
TEST(RoiAlign, BinsRoisChannelsAndBatchIndices) {
  RoiAlignAttrs a;
  a.output_height = a.output_width = 2;
  a.sampling_ratio = 1;
  a.coordinates = "output_half_pixel";
  const Tensor y = roi_align({0, 0, 2, 2, 1, 0, 3, 2}, {1, 0}, a);
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 2, 2, 2}));
  EXPECT_THAT(values_of(y), Pointwise(FloatNear(1e-3f), std::vector<float>{1005.5f, 1006.5f, 1015.5f, 1016.5f,
                                                                          1105.5f, 1106.5f, 1115.5f, 1116.5f,
                                                                          6.5f, 7.5f, 16.5f, 17.5f,
                                                                          106.5f, 107.5f, 116.5f, 117.5f}));
}

// ROI [0, 0, 2, 2], one bin of 2 x 2 samples: without the half-pixel shift they lie at
// 0.5 and 1.5 (mean (1, 1) -> 11); half_pixel shifts the ROI to [-0.5, 1.5] (mean
// (0.5, 0.5) -> 5.5). Opset 16's default is half_pixel; opset 10 has no shift.
TEST(RoiAlign, CoordinateTransformationModeAndOpset10) {
  RoiAlignAttrs a;
  a.sampling_ratio = 2;
  const std::vector<float> roi = {0, 0, 2, 2};
  EXPECT_THAT(values_of(roi_align(roi, {0}, a)), ElementsAre(5.5f, 105.5f));
  a.coordinates = "half_pixel";
  EXPECT_THAT(values_of(roi_align(roi, {0}, a)), ElementsAre(5.5f, 105.5f));
  a.coordinates = "output_half_pixel";
  EXPECT_THAT(values_of(roi_align(roi, {0}, a)), ElementsAre(11, 111));
  a.coordinates.clear();
  EXPECT_THAT(values_of(roi_align(roi, {0}, a, 10)), ElementsAre(11, 111));
  // spatial_scale 0.5 maps [0, 0, 4, 4] onto the same ROI.
  a.spatial_scale = 0.5f;
  EXPECT_THAT(values_of(roi_align({0, 0, 4, 4}, {0}, a, 10)), ElementsAre(11, 111));
}

// max takes, over the samples, the largest of the four weighted pixels each reads (as
// the reference does), not the largest interpolated value. ROI [0, 0, 2, 2]
// (output_half_pixel, 2 x 2 samples): the sample at (1.5, 1.5) reads 11, 12, 21, 22 with
// weight 1/4 each -> 22 / 4 = 5.5 (the largest sample value would be 16.5); channel 1
// reads 122 there -> 30.5.
TEST(RoiAlign, MaxTakesTheLargestWeightedPixel) {
  RoiAlignAttrs a;
  a.mode = "max";
  a.sampling_ratio = 2;
  a.coordinates = "output_half_pixel";
  EXPECT_THAT(values_of(roi_align({0, 0, 2, 2}, {0}, a)), ElementsAre(5.5f, 30.5f));
}

// sampling_ratio 0 takes ceil(bin size) samples per dim: ROI [0, 0, 3, 3] in one bin has
// 3 x 3, at 0.5, 1.5, 2.5; in max mode the last, (2.5, 2.5), reads 22, 23, 32, 33 at 1/4
// -> 33 / 4 = 8.25, 133 / 4 = 33.25 in channel 1 (2 samples would give 12.375, 1 gives 5.5).
TEST(RoiAlign, AdaptiveSamplingRatio) {
  RoiAlignAttrs a;
  a.mode = "max";
  a.coordinates = "output_half_pixel";
  EXPECT_THAT(values_of(roi_align({0, 0, 3, 3}, {0}, a)), ElementsAre(8.25f, 33.25f));
}

// A sample more than a pixel outside the image reads nothing; one within the last pixel
// is moved onto it. ROI [4, 0, 8, 2] samples x = 5 and 7 (beyond 4) -> 0; ROI [3, 0, 4, 1]
// samples (0.5, 3.5), moved to x = 3 -> 8.
TEST(RoiAlign, SamplesAtAndBeyondTheEdge) {
  RoiAlignAttrs a;
  a.sampling_ratio = 2;
  a.coordinates = "output_half_pixel";
  EXPECT_THAT(values_of(roi_align({4, 0, 8, 2}, {0}, a)), ElementsAre(0, 0));
  a.sampling_ratio = 1;
  EXPECT_THAT(values_of(roi_align({3, 0, 4, 1}, {0}, a)), ElementsAre(8, 108));
}

TEST(RoiAlign, BadInputsAreClearErrors) {
  RoiAlignAttrs a;
  EXPECT_THAT(test::import_error(roi_align_model({0, 0, 1, 1}, {2}, a)),
              HasSubstr("batch index 2 (ROI 0) is out of range for X's 2 images"));
  a.mode = "sum";
  EXPECT_THAT(test::import_error(roi_align_model({0, 0, 1, 1}, {0}, a)),
              HasSubstr("mode 'sum' is not one of avg, max"));
  a.mode = "avg";
  a.output_height = 0;
  EXPECT_THAT(test::import_error(roi_align_model({0, 0, 1, 1}, {0}, a)), HasSubstr("must be positive"));
  a.output_height = 1;
  a.coordinates = "half_pixel";
  EXPECT_THAT(test::import_error(roi_align_model({0, 0, 1, 1}, {0}, a, 10)),
              HasSubstr("coordinate_transformation_mode is an attribute from opset 16"));

  // Batch indices computed at run time are checked when the kernel reads them.
  OnnxModelBuilder m;
  m.input("x", {2, 2, 4, 4}).input("batch_indices", onnx::TensorProto::INT64, {"1"}).output("y");
  m.initializer("rois", make_f32({1, 4}, {0, 0, 1, 1}));
  m.node("RoiAlign", {"x", "rois", "batch_indices"}, {"y"});
  try {
    run_model(m, {{"x", linear_images()}, {"batch_indices", make_i64({1}, {-1})}});
    ADD_FAILURE() << "a negative batch index ran";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("RoiAlign batch index -1 (ROI 0) is out of range for X's 2 images"));
  }
}

// ---- Unique ----

// Unique of a constant (it is folded at import), outputs named in `outputs`.
std::map<std::string, Tensor> unique(const Tensor& x, const std::vector<std::string>& outputs,
                                     const std::vector<std::pair<std::string, int64_t>>& attrs) {
  OnnxModelBuilder m;
  m.initializer("x", x);
  onnx::NodeProto& n = m.node("Unique", {"x"}, outputs);
  for (const auto& [name, value] : attrs) set_attr(n, name, value);
  for (const std::string& out : outputs) {
    if (!out.empty()) m.output(out, out == "y" ? onnx::TensorProto::FLOAT : onnx::TensorProto::INT64);
  }
  return run_model(m, {});
}

// [5, 3, 5, 7, 3, 3, 1]: sorted, the distinct values are 1 (first at 6, once), 3 (at 1,
// 3 times), 5 (at 0, twice), 7 (at 3, once); unsorted they come as first seen: 5, 3, 7, 1.
TEST(Unique, FlatSortedAndUnsorted) {
  const Tensor x = make_f32({7}, {5, 3, 5, 7, 3, 3, 1});
  const std::vector<std::string> all = {"y", "indices", "inverse", "counts"};
  auto out = unique(x, all, {});
  EXPECT_THAT(values_of(out.at("y")), ElementsAre(1, 3, 5, 7));
  EXPECT_THAT(ints_of(out.at("indices")), ElementsAre(6, 1, 0, 3));
  EXPECT_THAT(ints_of(out.at("inverse")), ElementsAre(2, 1, 2, 3, 1, 1, 0));
  EXPECT_THAT(ints_of(out.at("counts")), ElementsAre(1, 3, 2, 1));
  out = unique(x, all, {{"sorted", 0}});
  EXPECT_THAT(values_of(out.at("y")), ElementsAre(5, 3, 7, 1));
  EXPECT_THAT(ints_of(out.at("indices")), ElementsAre(0, 1, 3, 6));
  EXPECT_THAT(ints_of(out.at("inverse")), ElementsAre(0, 1, 0, 2, 1, 1, 3));
  EXPECT_THAT(ints_of(out.at("counts")), ElementsAre(2, 3, 1, 1));
}

// Columns of [[1, 0, 1, 0], [2, 5, 2, 4]] (int64): (1, 2), (0, 5), (1, 2), (0, 4), ordered
// by their first element, then the second: (0, 4) at 3, (0, 5) at 1, (1, 2) at 0 twice.
TEST(Unique, SlicesAlongAnAxisCompareElementByElement) {
  OnnxModelBuilder m;
  m.initializer("x", make_i64({2, 4}, {1, 0, 1, 0, 2, 5, 2, 4}));
  set_attr(m.node("Unique", {"x"}, {"y", "indices", "inverse", "counts"}), "axis", int64_t{-1});
  m.output("y", onnx::TensorProto::INT64).output("indices", onnx::TensorProto::INT64);
  m.output("inverse", onnx::TensorProto::INT64).output("counts", onnx::TensorProto::INT64);
  const auto out = run_model(m, {});
  EXPECT_EQ(out.at("y").shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_THAT(ints_of(out.at("y")), ElementsAre(0, 0, 1, 4, 5, 2));
  EXPECT_THAT(ints_of(out.at("indices")), ElementsAre(3, 1, 0));
  EXPECT_THAT(ints_of(out.at("inverse")), ElementsAre(2, 1, 2, 0));
  EXPECT_THAT(ints_of(out.at("counts")), ElementsAre(1, 1, 2));
}

TEST(Unique, OmittedOutputsAndNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto out = unique(make_f32({4}, {nan, 2, nan, 2}), {"y", "", "", "counts"}, {});
  ASSERT_EQ(out.size(), 2u);
  const std::vector<float> y = values_of(out.at("y"));
  ASSERT_EQ(y.size(), 2u);  // NaNs count as one value, after the numbers
  EXPECT_EQ(y[0], 2);
  EXPECT_TRUE(std::isnan(y[1]));
  EXPECT_THAT(ints_of(out.at("counts")), ElementsAre(2, 2));
}

// X computed by the model: a plain import cannot size the outputs; a staged run imports
// Unique once X is known, for each new X.
TEST(Unique, ComputedInputRunsInStages) {
  OnnxModelBuilder m;
  m.input("x", {5}).output("y").output("counts", onnx::TensorProto::INT64);
  m.node("Abs", {"x"}, {"abs"});
  m.node("Unique", {"abs"}, {"y", "", "", "counts"});
  EXPECT_THAT(test::import_error(m), HasSubstr("input 0 (X, 'abs') is not a constant"));
  StagedSession session(load_staged_onnx_bytes(m.bytes()),
                        [] { return std::vector<std::unique_ptr<KernelProvider>>{}; }, SessionOptions{optimize_graph});
  auto out = session.run({{"x", make_f32({5}, {-2, 2, 1, -1, 3})}});
  EXPECT_THAT(values_of(out.at("y")), ElementsAre(1, 2, 3));
  EXPECT_THAT(ints_of(out.at("counts")), ElementsAre(2, 2, 1));
  out = session.run({{"x", make_f32({5}, {4, -4, 4, -4, 4})}});
  EXPECT_THAT(values_of(out.at("y")), ElementsAre(4));
  EXPECT_THAT(ints_of(out.at("counts")), ElementsAre(5));
}

// An f16 X computed by the model: the casts around Unique, made in the stage that waited for
// X, are not made again in the stage that imports it.
TEST(Unique, HalfInputRunsInStages) {
  OnnxModelBuilder m;
  m.input("x", onnx::TensorProto::FLOAT16, {"4"}).output("y", onnx::TensorProto::FLOAT16);
  m.node("Abs", {"x"}, {"abs"});
  m.node("Unique", {"abs"}, {"y"});
  StagedSession session(load_staged_onnx_bytes(m.bytes()),
                        [] { return std::vector<std::unique_ptr<KernelProvider>>{}; }, SessionOptions{optimize_graph});
  Tensor x(DType::f16, {4});
  const float values[4] = {-2.0f, 2.0f, 0.5f, 3.0f};
  for (int i = 0; i < 4; ++i) x.data_as<uint16_t>()[i] = f32_to_f16(values[i]);
  const Tensor y = session.run({{"x", x}}).at("y");
  ASSERT_EQ(y.dtype(), DType::f16);
  ASSERT_EQ(y.elements(), 3);
  std::vector<float> got;
  for (int i = 0; i < 3; ++i) got.push_back(f16_to_f32(y.data_as<uint16_t>()[i]));
  EXPECT_THAT(got, ElementsAre(0.5f, 2.0f, 3.0f));
}

TEST(Unique, BadAttributesAreClearErrors) {
  const auto model = [](const std::string& name, int64_t value) {
    OnnxModelBuilder m;
    m.initializer("x", make_f32({2, 2}, {1, 2, 3, 4}));
    set_attr(m.node("Unique", {"x"}, {"y"}), name, value);
    m.output("y");
    return m;
  };
  EXPECT_THAT(test::import_error(model("sorted", 2)), HasSubstr("sorted is 2; it must be 0 or 1"));
  EXPECT_THAT(test::import_error(model("axis", 2)), HasSubstr("axis"));
}

}  // namespace
}  // namespace nee
