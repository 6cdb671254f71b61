// Shape and data-movement operators: one tiny model each, imported and run on the
// reference provider, with expected values written out by hand.
#include <gtest/gtest.h>

#include "core/error.h"
#include "importer/import_onnx.h"
#include "import_and_run.h"
#include "onnx_model_builder.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"

namespace nee {
namespace {

using test::OnnxModelBuilder;
using test::ints_of;
using test::make_f32;
using test::make_i64;
using test::run_model;
using test::run_single_output;
using test::set_attr;
using test::set_string_attr;
using test::values_of;

Tensor iota_f32(const std::vector<int64_t>& shape) {
  Tensor t(DType::f32, shape);
  for (int64_t i = 0; i < t.elements(); ++i) t.data_as<float>()[i] = static_cast<float>(i);
  return t;
}

TEST(ShapeOperator, SliceWithNegativeStepAndClamping) {
  OnnxModelBuilder m;
  m.input("x", {3, 4}).output("y");
  m.initializer("starts", make_i64({2}, {-1, 100}));
  m.initializer("ends", make_i64({2}, {-100, 0}));
  m.initializer("axes", make_i64({2}, {0, 1}));
  m.initializer("steps", make_i64({2}, {-2, -1}));
  m.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
  Tensor y = run_single_output(m, {{"x", iota_f32({3, 4})}});
  // Rows 2, 0; columns 3, 2, 1 (end 0 is exclusive).
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values_of(y), (std::vector<float>{11, 10, 9, 3, 2, 1}));
}

TEST(ShapeOperator, SliceOpset9Attributes) {
  OnnxModelBuilder m(9);
  m.input("x", {3, 4}).output("y");
  auto& n = m.node("Slice", {"x"}, {"y"});
  set_attr(n, "starts", std::vector<int64_t>{1});
  set_attr(n, "ends", std::vector<int64_t>{1000});
  set_attr(n, "axes", std::vector<int64_t>{-1});
  Tensor y = run_single_output(m, {{"x", iota_f32({3, 4})}});
  EXPECT_EQ(values_of(y), (std::vector<float>{1, 2, 3, 5, 6, 7, 9, 10, 11}));
}

TEST(ShapeOperator, SliceNonConstantStartsNamesNodeAndInput) {
  OnnxModelBuilder m;
  m.input("x", {3, 4}).input("starts", onnx::TensorProto::INT64, {"1"}).output("y");
  m.initializer("ends", make_i64({1}, {2}));
  m.node("Slice", {"x", "starts", "ends"}, {"y"}, "my_slice");
  try {
    import_onnx_bytes(m.bytes());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("my_slice"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("input 1 (starts, 'starts') is not a constant"), std::string::npos) << e.what();
  }
}

TEST(ShapeOperator, GatherInt64DataNegativeIndicesAxis1) {
  OnnxModelBuilder m;
  m.input("x", onnx::TensorProto::INT64, {"2", "3"}).output("y", onnx::TensorProto::INT64);
  m.initializer("idx", make_i64({2}, {-1, 0}));
  set_attr(m.node("Gather", {"x", "idx"}, {"y"}), "axis", int64_t{1});
  Tensor y = run_single_output(m, {{"x", make_i64({2, 3}, {1, 2, 3, 4, 5, 6})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(ints_of(y), (std::vector<int64_t>{3, 1, 6, 4}));
}

TEST(ShapeOperator, GatherOutOfRangeIndexFails) {
  OnnxModelBuilder m;
  m.input("x", {3}).input("i", onnx::TensorProto::INT64, {"1"}).output("y");
  m.node("Gather", {"x", "i"}, {"y"});
  Session session(import_onnx_bytes(m.bytes()), {}, SessionOptions{optimize_graph});
  EXPECT_THROW(session.run({{"x", iota_f32({3})}, {"i", make_i64({1}, {3})}}), Error);
}

TEST(ShapeOperator, SqueezeUnsqueezeAttributeAndInputForms) {
  for (int64_t opset : {11, 13}) {
    OnnxModelBuilder m(opset);
    m.input("x", {1, 3, 1}).output("y");
    if (opset >= 13) {
      m.initializer("sq", make_i64({1}, {-1}));
      m.initializer("unsq", make_i64({2}, {0, 3}));
      m.node("Squeeze", {"x", "sq"}, {"s"});
      m.node("Unsqueeze", {"s", "unsq"}, {"y"});
    } else {
      set_attr(m.node("Squeeze", {"x"}, {"s"}), "axes", std::vector<int64_t>{-1});
      set_attr(m.node("Unsqueeze", {"s"}, {"y"}), "axes", std::vector<int64_t>{0, 3});
    }
    Tensor y = run_single_output(m, {{"x", iota_f32({1, 3, 1})}});
    EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 1, 3, 1})) << "opset " << opset;
  }
}

TEST(ShapeOperator, SplitBySizesAndEqually) {
  OnnxModelBuilder m;
  m.input("x", {2, 4}).output("a").output("b").output("c").output("d");
  m.initializer("sizes", make_i64({2}, {1, 3}));
  set_attr(m.node("Split", {"x", "sizes"}, {"a", "b"}), "axis", int64_t{-1});
  m.node("Split", {"x"}, {"c", "d"});
  auto out = run_model(m, {{"x", iota_f32({2, 4})}});
  EXPECT_EQ(values_of(out["a"]), (std::vector<float>{0, 4}));
  EXPECT_EQ(values_of(out["b"]), (std::vector<float>{1, 2, 3, 5, 6, 7}));
  EXPECT_EQ(values_of(out["c"]), (std::vector<float>{0, 1, 2, 3}));
  EXPECT_EQ(values_of(out["d"]), (std::vector<float>{4, 5, 6, 7}));
}

TEST(ShapeOperator, ExpandAndTile) {
  OnnxModelBuilder m;
  m.input("x", {2, 1}).output("e").output("t");
  m.initializer("shape", make_i64({3}, {2, 1, 3}));
  m.initializer("repeats", make_i64({2}, {2, 2}));
  m.node("Expand", {"x", "shape"}, {"e"});
  m.node("Tile", {"x", "repeats"}, {"t"});
  auto out = run_model(m, {{"x", make_f32({2, 1}, {1, 2})}});
  EXPECT_EQ(out["e"].shape(), (std::vector<int64_t>{2, 2, 3}));
  EXPECT_EQ(values_of(out["e"]), (std::vector<float>{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2}));
  EXPECT_EQ(out["t"].shape(), (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(values_of(out["t"]), (std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2}));
}

TEST(ShapeOperator, PadModes) {
  OnnxModelBuilder m;
  m.input("x", {1, 3}).output("c").output("r").output("e").output("old");
  m.initializer("pads", make_i64({4}, {0, 2, 0, 1}));
  m.initializer("value", make_f32({}, {9}));
  m.node("Pad", {"x", "pads", "value"}, {"c"});
  set_string_attr(m.node("Pad", {"x", "pads"}, {"r"}), "mode", "reflect");
  set_string_attr(m.node("Pad", {"x", "pads"}, {"e"}), "mode", "edge");
  m.initializer("crop", make_i64({4}, {0, -1, 0, 0}));
  m.node("Pad", {"x", "crop"}, {"old"});
  auto out = run_model(m, {{"x", make_f32({1, 3}, {1, 2, 3})}});
  EXPECT_EQ(values_of(out["c"]), (std::vector<float>{9, 9, 1, 2, 3, 9}));
  EXPECT_EQ(values_of(out["r"]), (std::vector<float>{3, 2, 1, 2, 3, 2}));
  EXPECT_EQ(values_of(out["e"]), (std::vector<float>{1, 1, 1, 2, 3, 3}));
  EXPECT_EQ(values_of(out["old"]), (std::vector<float>{2, 3}));
}

TEST(ShapeOperator, PadOpset10Attributes) {
  OnnxModelBuilder m(10);
  m.input("x", {2}).output("y");
  auto& n = m.node("Pad", {"x"}, {"y"});
  set_attr(n, "pads", std::vector<int64_t>{1, 2});
  set_attr(n, "value", 5.0f);
  Tensor y = run_single_output(m, {{"x", make_f32({2}, {1, 2})}});
  EXPECT_EQ(values_of(y), (std::vector<float>{5, 1, 2, 5, 5}));
}

TEST(ShapeOperator, ShapeWithStartEndAndConstantOfShape) {
  OnnxModelBuilder m(15);
  m.input("x", {2, 3, 4}).output("s", onnx::TensorProto::INT64).output("c");
  auto& shape = m.node("Shape", {"x"}, {"s"});
  set_attr(shape, "start", int64_t{1});
  set_attr(shape, "end", int64_t{-1});
  set_attr(m.node("ConstantOfShape", {"s"}, {"c"}), "value", make_f32({1}, {2.5f}));
  auto out = run_model(m, {{"x", iota_f32({2, 3, 4})}});
  EXPECT_EQ(ints_of(out["s"]), (std::vector<int64_t>{3}));
  EXPECT_EQ(values_of(out["c"]), (std::vector<float>{2.5f, 2.5f, 2.5f}));
}

TEST(ShapeOperator, RangeAndConstantNodes) {
  OnnxModelBuilder m;
  m.output("r", onnx::TensorProto::INT64);
  auto& start = m.node("Constant", {}, {"start"});
  set_attr(start, "value_int", int64_t{10});
  m.initializer("limit", make_i64({}, {4}));
  m.initializer("delta", make_i64({}, {-3}));
  m.node("Range", {"start", "limit", "delta"}, {"r"});
  auto out = run_model(m, {});
  EXPECT_EQ(ints_of(out["r"]), (std::vector<int64_t>{10, 7}));
}

TEST(ShapeOperator, DropoutInferenceWithMask) {
  OnnxModelBuilder m;
  m.input("x", {2}).output("y").output("mask", onnx::TensorProto::BOOL);
  m.node("Dropout", {"x"}, {"y", "mask"});
  auto out = run_model(m, {{"x", make_f32({2}, {1, -1})}});
  EXPECT_EQ(values_of(out["y"]), (std::vector<float>{1, -1}));
  EXPECT_EQ(out["mask"].data_as<uint8_t>()[0], 1);
  EXPECT_EQ(out["mask"].data_as<uint8_t>()[1], 1);
}

OnnxModelBuilder resize_model(const std::string& mode, const std::string& coordinates, const Tensor& scales) {
  OnnxModelBuilder m;
  m.input("x", {1, 1, 2, 2}).output("y");
  m.initializer("scales", scales);
  auto& n = m.node("Resize", {"x", "", "scales"}, {"y"});
  set_string_attr(n, "mode", mode);
  set_string_attr(n, "coordinate_transformation_mode", coordinates);
  return m;
}

TEST(ShapeOperator, ResizeNearestAsymmetricUpsample) {
  Tensor y = run_single_output(resize_model("nearest", "asymmetric", make_f32({4}, {1, 1, 2, 2})),
                     {{"x", make_f32({1, 1, 2, 2}, {1, 2, 3, 4})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 1, 4, 4}));
  EXPECT_EQ(values_of(y), (std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
}

TEST(ShapeOperator, ResizeLinearAlignCornersAndHalfPixel) {
  Tensor aligned = run_single_output(resize_model("linear", "align_corners", make_f32({4}, {1, 1, 1, 1.5f})),
                           {{"x", make_f32({1, 1, 2, 2}, {0, 2, 4, 6})}});
  EXPECT_EQ(values_of(aligned), (std::vector<float>{0, 1, 2, 4, 5, 6}));
  // half_pixel, scale 2: output x maps to (x + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25.
  Tensor half = run_single_output(resize_model("linear", "half_pixel", make_f32({4}, {1, 1, 1, 2})),
                        {{"x", make_f32({1, 1, 2, 2}, {0, 4, 0, 4})}});
  EXPECT_EQ(values_of(half), (std::vector<float>{0, 1, 3, 4, 0, 1, 3, 4}));
}

TEST(ShapeOperator, ResizeNonConstantScalesIsAnError) {
  OnnxModelBuilder m;
  m.input("x", {1, 1, 2, 2}).input("scales", {4}).output("y");
  m.node("Resize", {"x", "", "scales"}, {"y"}, "up");
  EXPECT_THROW(import_onnx_bytes(m.bytes()), Error);
}

}  // namespace
}  // namespace nee
