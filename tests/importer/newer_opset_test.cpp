// Opsets 18 to 27 and IR versions 9 to 13, which PyTorch's dynamo exporter and onnx
// 1.13-1.22 write: what changed in the operators NEE reads, each run on the reference
// kernels against values worked out here, and what NEE refuses by name.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "import_and_run.h"
#include "importer/import_onnx.h"

namespace nee {
namespace {

using test::make_f32;
using test::make_i64;
using test::OnnxModelBuilder;
using test::set_attr;
using test::set_string_attr;
using test::values_of;
using testing::HasSubstr;

// ReduceMean's axes as an input (opset 18), over the last dim of [2, 3].
TEST(NewerOpsets, ReduceMeanTakesItsAxesAsAnInput) {
  OnnxModelBuilder m(18);
  m.input("x", {2, 3}).output("y");
  m.initializer("axes", make_i64({1}, {-1}));
  m.node("ReduceMean", {"x", "axes"}, {"y"});
  const Tensor y = test::run_single_output(m, {{"x", make_f32({2, 3}, {1, 2, 3, 4, 5, 9})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 1}));
  test::expect_near_all(values_of(y), {2, 6});
}

// Split's num_outputs (opset 18): 7 into parts of ceil(7 / 3) = 3, the last one 1.
TEST(NewerOpsets, SplitIntoNumOutputsPartsTheLastSmaller) {
  OnnxModelBuilder m(18);
  m.input("x", {7}).output("a").output("b").output("c");
  set_attr(m.node("Split", {"x"}, {"a", "b", "c"}), "num_outputs", int64_t{3});
  const auto out = test::run_model(m, {{"x", make_f32({7}, {0, 1, 2, 3, 4, 5, 6})}});
  test::expect_near_all(values_of(out.at("a")), {0, 1, 2});
  test::expect_near_all(values_of(out.at("b")), {3, 4, 5});
  test::expect_near_all(values_of(out.at("c")), {6});
  OnnxModelBuilder wrong(18);
  wrong.input("x", {7}).output("a").output("b");
  set_attr(wrong.node("Split", {"x"}, {"a", "b"}), "num_outputs", int64_t{3});
  EXPECT_THAT(test::import_error(wrong), HasSubstr("num_outputs 3 but the node has 2 outputs"));
}

// Pad's axes input (opset 18): pads for dim 1 of [1, 2] only, 1 before and 2 after.
TEST(NewerOpsets, PadOfTheAxesItNames) {
  OnnxModelBuilder m(18);
  m.input("x", {1, 2}).output("y");
  m.initializer("pads", make_i64({2}, {1, 2}));
  m.initializer("value", make_f32({}, {7}));
  m.initializer("axes", make_i64({1}, {-1}));
  m.node("Pad", {"x", "pads", "value", "axes"}, {"y"});
  const Tensor y = test::run_single_output(m, {{"x", make_f32({1, 2}, {1, 2})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 5}));
  test::expect_near_all(values_of(y), {7, 1, 2, 7, 7});
  OnnxModelBuilder wrap(19);
  wrap.input("x", {1, 2}).output("y");
  wrap.initializer("pads", make_i64({4}, {0, 1, 0, 1}));
  set_string_attr(wrap.node("Pad", {"x", "pads"}, {"y"}), "mode", "wrap");
  EXPECT_THAT(test::import_error(wrap), HasSubstr("mode 'wrap' is not one of constant, reflect, edge"));
}

// Resize's axes (opset 18): nearest, scales 2 for dim 3 of [1, 1, 1, 2] only; antialias
// and aspect-ratio policies are refused by name.
TEST(NewerOpsets, ResizeOfTheAxesItNames) {
  const auto resize = [](const std::string& attribute, int64_t value) {
    OnnxModelBuilder m(18);
    m.input("x", {1, 1, 1, 2}).output("y");
    m.initializer("scales", make_f32({1}, {2}));
    onnx::NodeProto& n = m.node("Resize", {"x", "", "scales"}, {"y"});
    set_string_attr(n, "mode", "nearest");
    set_attr(n, "axes", std::vector<int64_t>{3});
    if (!attribute.empty()) set_attr(n, attribute, value);
    return m;
  };
  const Tensor y = test::run_single_output(resize("", 0), {{"x", make_f32({1, 1, 1, 2}, {1, 2})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 1, 1, 4}));
  test::expect_near_all(values_of(y), {1, 1, 2, 2});
  EXPECT_THAT(test::import_error(resize("antialias", 1)), HasSubstr("antialias 1 (opset 18) is not supported"));
}

// Gelu (opset 20), exact and tanh-approximated, against the formulas at a few points.
TEST(NewerOpsets, GeluBothForms) {
  const std::vector<float> x = {-2.0f, -0.5f, 0.0f, 0.7f, 3.0f};
  for (const char* approximate : {"none", "tanh"}) {
    OnnxModelBuilder m(20);
    m.input("x", {5}).output("y");
    set_string_attr(m.node("Gelu", {"x"}, {"y"}), "approximate", approximate);
    std::vector<float> want;
    for (float v : x) {
      want.push_back(std::string(approximate) == "none"
                         ? 0.5f * v * (1.0f + std::erf(v / std::sqrt(2.0f)))
                         : 0.5f * v * (1.0f + std::tanh(std::sqrt(2.0f / 3.14159265f) * (v + 0.044715f * v * v * v))));
    }
    test::expect_near_all(values_of(test::run_single_output(m, {{"x", make_f32({5}, x)}})), want);
  }
  OnnxModelBuilder bad(20);
  bad.input("x", {5}).output("y");
  set_string_attr(bad.node("Gelu", {"x"}, {"y"}), "approximate", "sigmoid");
  EXPECT_THAT(test::import_error(bad), HasSubstr("approximate 'sigmoid' is not one of none, tanh"));
}

// GridSample's mode "linear" (opset 20) samples as "bilinear" did: the middle of a 2x2
// image is the mean of its pixels.
TEST(NewerOpsets, GridSampleLinearIsBilinear) {
  OnnxModelBuilder m(20);
  m.input("x", {1, 1, 2, 2}).input("grid", {1, 1, 1, 2}).output("y");
  onnx::NodeProto& n = m.node("GridSample", {"x", "grid"}, {"y"});
  set_string_attr(n, "mode", "linear");
  set_attr(n, "align_corners", int64_t{1});
  const Tensor y = test::run_single_output(
      m, {{"x", make_f32({1, 1, 2, 2}, {1, 2, 3, 6})}, {"grid", make_f32({1, 1, 1, 2}, {0, 0})}});
  test::expect_near_all(values_of(y), {3});
}

// DFT's axis as the constant input 2 (opset 20): the transform of 1, 2, 3, 4 along dim 1.
TEST(NewerOpsets, DftTakesItsAxisAsAnInput) {
  OnnxModelBuilder m(20);
  m.input("x", {1, 4, 1}).output("y");
  m.initializer("axis", make_i64({}, {1}));
  m.node("DFT", {"x", "", "axis"}, {"y"});
  const Tensor y = test::run_single_output(m, {{"x", make_f32({1, 4, 1}, {1, 2, 3, 4})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 4, 2}));
  test::expect_near_all(values_of(y), {10, 0, -2, 2, -2, 0, -2, -2}, 1e-4f);
}

// Blocked quantization (opset 21) is refused by name.
TEST(NewerOpsets, BlockedQuantizationIsRefused) {
  OnnxModelBuilder m(21);
  m.input("x", {1, 4}).output("y", onnx::TensorProto::UINT8);
  m.initializer("scale", make_f32({1, 2}, {0.5f, 0.25f}));
  set_attr(m.node("QuantizeLinear", {"x", "scale"}, {"y"}), "block_size", int64_t{2});
  EXPECT_THAT(test::import_error(m), HasSubstr("blocked quantization (block_size, opset 21) is not supported"));
}

// RMSNormalization (opset 23) over the last dim: rows 3, 4 (rms sqrt(12.5)) and 0, 2
// (rms sqrt(2)), scales 1 and 2; its stash_type other than float is refused.
TEST(NewerOpsets, RmsNormalization) {
  const auto model = [](int64_t stash_type) {
    OnnxModelBuilder m(23);
    m.input("x", {2, 2}).output("y");
    m.initializer("scale", make_f32({2}, {1, 2}));
    onnx::NodeProto& n = m.node("RMSNormalization", {"x", "scale"}, {"y"});
    set_attr(n, "epsilon", 0.0f);
    set_attr(n, "stash_type", stash_type);
    return m;
  };
  const Tensor y = test::run_single_output(model(1), {{"x", make_f32({2, 2}, {3, 4, 0, 2})}});
  const float first = std::sqrt(12.5f), second = std::sqrt(2.0f);
  test::expect_near_all(values_of(y), {3 / first, 8 / first, 0, 4 / second});
  EXPECT_THAT(test::import_error(model(10)), HasSubstr("only stash_type 1 (float) is supported"));
}

// Swish (opset 24): x * sigmoid(alpha * x).
TEST(NewerOpsets, Swish) {
  OnnxModelBuilder m(24);
  m.input("x", {3}).output("y");
  set_attr(m.node("Swish", {"x"}, {"y"}), "alpha", 2.0f);
  const std::vector<float> x = {-1.5f, 0.0f, 2.0f};
  std::vector<float> want;
  for (float v : x) want.push_back(v / (1.0f + std::exp(-2.0f * v)));
  test::expect_near_all(values_of(test::run_single_output(m, {{"x", make_f32({3}, x)}})), want);
}

// QuantizeLinear's precision (opset 23): float, or the input's, which for f32 is float.
TEST(NewerOpsets, QuantizePrecisionOtherThanFloatIsRefused) {
  OnnxModelBuilder m(23);
  m.input("x", {1, 4}).output("y", onnx::TensorProto::UINT8);
  m.initializer("scale", make_f32({}, {0.5f}));
  set_attr(m.node("QuantizeLinear", {"x", "scale"}, {"y"}), "precision", int64_t{10});
  EXPECT_THAT(test::import_error(m), HasSubstr("precision 10 is not supported"));
}

// IR version 13 and opset 27 import; IR version 14 is refused by name (opset 28:
// ImportVersions.OpsetsAbove27AreRefusedByNumber).
TEST(NewerOpsets, IrVersion13AndOpset27ImportIrVersion14DoesNot) {
  OnnxModelBuilder m(27);
  m.input("x", {2}).output("y");
  m.node("Relu", {"x"}, {"y"});
  m.model().set_ir_version(13);
  test::expect_near_all(values_of(test::run_single_output(m, {{"x", make_f32({2}, {-1, 2})}})), {0, 2});
  m.model().set_ir_version(14);
  EXPECT_THAT(test::import_error(m), HasSubstr("NEE reads IR versions 3 to 13"));
}

}  // namespace
}  // namespace nee
