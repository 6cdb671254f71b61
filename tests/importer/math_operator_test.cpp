// Elementwise, logical, cast, softmax, normalization and reduction operators: one tiny
// model each, imported and run on the reference provider; expected values are written
// out by hand or computed with plain loops here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "import_and_run.h"
#include "onnx_model_builder.h"

namespace nee {
namespace {

using test::OnnxModelBuilder;
using test::expect_near_all;
using test::import_error;
using test::make_f32;
using test::make_i64;
using test::run_model;
using test::run_single_output;
using test::set_attr;
using test::values_of;
using ::testing::HasSubstr;

template <typename T>
Tensor make_tensor(DType dtype, const std::vector<int64_t>& shape, const std::vector<T>& values) {
  Tensor t(dtype, shape);
  std::copy(values.begin(), values.end(), t.data_as<T>());
  return t;
}

Tensor make_bool(const std::vector<int64_t>& shape, const std::vector<bool>& values) {
  Tensor t(DType::boolean, shape);
  std::copy(values.begin(), values.end(), t.data_as<bool>());
  return t;
}

template <typename T>
std::vector<T> elements_of(const Tensor& t) {
  return std::vector<T>(t.data_as<T>(), t.data_as<T>() + t.elements());
}

std::vector<int> bools_of(const Tensor& t) {
  EXPECT_EQ(t.dtype(), DType::boolean);
  std::vector<int> out;
  for (bool b : elements_of<bool>(t)) out.push_back(b ? 1 : 0);
  return out;
}

// A model with one f32 input "x" of `shape`, one node `op` and one f32 output "y".
OnnxModelBuilder unary_model(const std::string& op, const std::vector<int64_t>& shape, int64_t opset = 17) {
  OnnxModelBuilder m(opset);
  m.input("x", shape).output("y");
  m.node(op, {"x"}, {"y"});
  return m;
}

TEST(MathOperator, FloatUnaryOps) {
  const std::vector<float> x = {0.25f, 1.0f, 2.5f};
  const std::map<std::string, float (*)(float)> ops = {
      {"Sqrt", [](float v) { return std::sqrt(v); }},      {"Exp", [](float v) { return std::exp(v); }},
      {"Log", [](float v) { return std::log(v); }},        {"Erf", [](float v) { return std::erf(v); }},
      {"Reciprocal", [](float v) { return 1 / v; }},       {"Neg", [](float v) { return -v; }},
      {"Abs", [](float v) { return std::fabs(v); }},
  };
  for (const auto& [op, f] : ops) {
    std::vector<float> expected;
    for (float v : x) expected.push_back(f(v));
    SCOPED_TRACE(op);
    expect_near_all(values_of(run_single_output(unary_model(op, {3}), {{"x", make_f32({3}, x)}})), expected);
  }
}

TEST(MathOperator, NegAndAbsOnIntegers) {
  for (const char* op : {"Neg", "Abs"}) {
    OnnxModelBuilder m;
    m.input("x", onnx::TensorProto::INT32, {"3"}).output("y", onnx::TensorProto::INT32);
    m.node(op, {"x"}, {"y"});
    Tensor y = run_single_output(m, {{"x", make_tensor<int32_t>(DType::i32, {3}, {-4, 0, 7})}});
    const std::vector<int32_t> expected =
        std::string(op) == "Neg" ? std::vector<int32_t>{4, 0, -7} : std::vector<int32_t>{4, 0, 7};
    EXPECT_EQ(elements_of<int32_t>(y), expected);
  }
}

TEST(MathOperator, ActivationsWithDefaultAndGivenAttributes) {
  const std::vector<float> x = {-3, -1, 0, 1, 4};
  expect_near_all(values_of(run_single_output(unary_model("LeakyRelu", {5}), {{"x", make_f32({5}, x)}})),
                  {-0.03f, -0.01f, 0, 1, 4});
  OnnxModelBuilder leaky = unary_model("LeakyRelu", {5});
  set_attr(*leaky.model().mutable_graph()->mutable_node(0), "alpha", 0.5f);
  expect_near_all(values_of(run_single_output(leaky, {{"x", make_f32({5}, x)}})), {-1.5f, -0.5f, 0, 1, 4});
  // HardSigmoid defaults: max(0, min(1, 0.2 x + 0.5)).
  expect_near_all(values_of(run_single_output(unary_model("HardSigmoid", {5}), {{"x", make_f32({5}, x)}})),
                  {0, 0.3f, 0.5f, 0.7f, 1});
  // HardSwish: x * max(0, min(1, x / 6 + 0.5)).
  expect_near_all(values_of(run_single_output(unary_model("HardSwish", {5}), {{"x", make_f32({5}, x)}})),
                  {0, -1.0f / 3, 0, 2.0f / 3, 4});
}

TEST(MathOperator, ClipBeforeOpset11UsesAttributes) {
  OnnxModelBuilder m = unary_model("Clip", {4}, 10);
  set_attr(*m.model().mutable_graph()->mutable_node(0), "min", -1.0f);
  expect_near_all(values_of(run_single_output(m, {{"x", make_f32({4}, {-5, -0.5f, 3, 1e30f})}})), {-1, -0.5f, 3, 1e30f});
}

TEST(MathOperator, ClipOpset13BoundsAreOptionalInputs) {
  OnnxModelBuilder m(13);
  m.input("x", {4}).output("y");
  m.initializer("hi", make_f32({}, {2}));
  m.node("Clip", {"x", "", "hi"}, {"y"});
  expect_near_all(values_of(run_single_output(m, {{"x", make_f32({4}, {-5, 0, 3, 1})}})), {-5, 0, 2, 1});

  OnnxModelBuilder both(13);
  both.input("x", onnx::TensorProto::INT8, {"4"}).input("lo", onnx::TensorProto::INT8, {})
      .output("y", onnx::TensorProto::INT8);
  both.initializer("hi", make_tensor<int8_t>(DType::i8, {}, {3}));
  both.node("Clip", {"x", "lo", "hi"}, {"y"});
  Tensor y = run_single_output(both, {{"x", make_tensor<int8_t>(DType::i8, {4}, {-100, -1, 2, 100})},
                            {"lo", make_tensor<int8_t>(DType::i8, {}, {-2})}});
  EXPECT_EQ(elements_of<int8_t>(y), (std::vector<int8_t>{-2, -1, 2, 3}));
}

TEST(MathOperator, ArithmeticOnUint8Wraps) {
  OnnxModelBuilder m;
  m.input("a", onnx::TensorProto::UINT8, {"3"}).input("b", onnx::TensorProto::UINT8, {"1"})
      .output("y", onnx::TensorProto::UINT8);
  m.node("Add", {"a", "b"}, {"y"});
  Tensor y = run_single_output(m, {{"a", make_tensor<uint8_t>(DType::u8, {3}, {1, 200, 255})},
                         {"b", make_tensor<uint8_t>(DType::u8, {1}, {100})}});
  EXPECT_EQ(elements_of<uint8_t>(y), (std::vector<uint8_t>{101, 44, 99}));
}

TEST(MathOperator, PowIntegerBaseWithFloatExponentBroadcasts) {
  OnnxModelBuilder m(15);
  m.input("x", onnx::TensorProto::INT64, {"2", "2"}).input("e", {2}).output("y", onnx::TensorProto::INT64);
  m.node("Pow", {"x", "e"}, {"y"});
  Tensor y = run_single_output(m, {{"x", make_i64({2, 2}, {2, 3, 4, 5})}, {"e", make_f32({2}, {3, 2})}});
  EXPECT_EQ(y.dtype(), DType::i64);
  EXPECT_EQ(elements_of<int64_t>(y), (std::vector<int64_t>{8, 9, 64, 25}));
}

TEST(MathOperator, PowFloat) {
  OnnxModelBuilder m(7);
  m.input("x", {3}).input("e", {1}).output("y");
  m.node("Pow", {"x", "e"}, {"y"});
  expect_near_all(values_of(run_single_output(m, {{"x", make_f32({3}, {4, 9, 2})}, {"e", make_f32({1}, {0.5f})}})),
                  {2, 3, std::sqrt(2.0f)});
}

TEST(MathOperator, MinMaxSumAreVariadicAndBroadcast) {
  for (const char* op : {"Min", "Max", "Sum"}) {
    OnnxModelBuilder m;
    m.input("a", {2, 2}).input("b", {2}).input("c", {1}).output("y");
    m.node(op, {"a", "b", "c"}, {"y"});
    Tensor y = run_single_output(m, {{"a", make_f32({2, 2}, {1, 5, -2, 8})},
                           {"b", make_f32({2}, {3, 4})},
                           {"c", make_f32({1}, {2})}});
    EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 2}));
    const std::string name = op;
    SCOPED_TRACE(name);
    if (name == "Min") expect_near_all(values_of(y), {1, 2, -2, 2});
    if (name == "Max") expect_near_all(values_of(y), {3, 5, 3, 8});
    if (name == "Sum") expect_near_all(values_of(y), {6, 11, 3, 14});
  }
  OnnxModelBuilder single;
  single.input("a", {2}).output("y");
  single.node("Max", {"a"}, {"y"});
  expect_near_all(values_of(run_single_output(single, {{"a", make_f32({2}, {1, -1})}})), {1, -1});
}

TEST(MathOperator, MaxPropagatesNaN) {
  OnnxModelBuilder m;
  m.input("a", {2}).input("b", {2}).output("y");
  m.node("Max", {"a", "b"}, {"y"});
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> y = values_of(run_single_output(m, {{"a", make_f32({2}, {nan, 1})}, {"b", make_f32({2}, {0, nan})}}));
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_TRUE(std::isnan(y[1]));
}

TEST(MathOperator, ComparisonsGiveBoolAndBroadcast) {
  // a = [[1, 2, 3], [4, 5, 6]] against b = [2, 5, 3] on every row.
  const std::map<std::string, std::vector<int>> expected = {
      {"Equal", {0, 0, 1, 0, 1, 0}},       {"Less", {1, 1, 0, 0, 0, 0}},
      {"Greater", {0, 0, 0, 1, 0, 1}},     {"LessOrEqual", {1, 1, 1, 0, 1, 0}},
      {"GreaterOrEqual", {0, 0, 1, 1, 1, 1}},
  };
  for (const auto& [op, want] : expected) {
    OnnxModelBuilder m;
    m.input("a", onnx::TensorProto::INT32, {"2", "3"}).input("b", onnx::TensorProto::INT32, {"3"})
        .output("y", onnx::TensorProto::BOOL);
    m.node(op, {"a", "b"}, {"y"});
    Tensor y = run_single_output(m, {{"a", make_tensor<int32_t>(DType::i32, {2, 3}, {1, 2, 3, 4, 5, 6})},
                           {"b", make_tensor<int32_t>(DType::i32, {3}, {2, 5, 3})}});
    SCOPED_TRACE(op);
    EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(bools_of(y), want);
  }
}

TEST(MathOperator, LogicalOps) {
  const std::map<std::string, std::vector<int>> expected = {
      {"And", {0, 0, 0, 1}}, {"Or", {0, 1, 1, 1}}, {"Xor", {0, 1, 1, 0}}};
  for (const auto& [op, want] : expected) {
    OnnxModelBuilder m;
    m.input("a", onnx::TensorProto::BOOL, {"2", "1"}).input("b", onnx::TensorProto::BOOL, {"2"})
        .output("y", onnx::TensorProto::BOOL);
    m.node(op, {"a", "b"}, {"y"});
    SCOPED_TRACE(op);
    EXPECT_EQ(bools_of(run_single_output(m, {{"a", make_bool({2, 1}, {false, true})}, {"b", make_bool({2}, {false, true})}})),
              want);
  }
  OnnxModelBuilder m;
  m.input("a", onnx::TensorProto::BOOL, {"3"}).output("y", onnx::TensorProto::BOOL);
  m.node("Not", {"a"}, {"y"});
  EXPECT_EQ(bools_of(run_single_output(m, {{"a", make_bool({3}, {true, false, true})}})), (std::vector<int>{0, 1, 0}));
}

TEST(MathOperator, WhereBroadcastsAllThreeInputs) {
  OnnxModelBuilder m;
  m.input("c", onnx::TensorProto::BOOL, {"2", "1"}).input("x", onnx::TensorProto::INT64, {"3"})
      .input("y", onnx::TensorProto::INT64, {"1"}).output("z", onnx::TensorProto::INT64);
  m.node("Where", {"c", "x", "y"}, {"z"});
  Tensor z = run_single_output(m, {{"c", make_bool({2, 1}, {true, false})},
                         {"x", make_i64({3}, {1, 2, 3})},
                         {"y", make_i64({1}, {-1})}});
  EXPECT_EQ(z.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(elements_of<int64_t>(z), (std::vector<int64_t>{1, 2, 3, -1, -1, -1}));
}

TEST(MathOperator, CastFloatToIntegersTruncatesTowardZero) {
  const std::vector<float> x = {-2.7f, -0.5f, 0.0f, 1.9f, 300.0f};
  OnnxModelBuilder m;
  m.input("x", {5}).output("y", onnx::TensorProto::INT32);
  set_attr(m.node("Cast", {"x"}, {"y"}), "to", int64_t{onnx::TensorProto::INT32});
  Tensor y = run_single_output(m, {{"x", make_f32({5}, x)}});
  EXPECT_EQ(y.dtype(), DType::i32);
  EXPECT_EQ(elements_of<int32_t>(y), (std::vector<int32_t>{-2, 0, 0, 1, 300}));

  OnnxModelBuilder to_bool;
  to_bool.input("x", {5}).output("y", onnx::TensorProto::BOOL);
  set_attr(to_bool.node("Cast", {"x"}, {"y"}), "to", int64_t{onnx::TensorProto::BOOL});
  EXPECT_EQ(bools_of(run_single_output(to_bool, {{"x", make_f32({5}, x)}})), (std::vector<int>{1, 1, 0, 1, 1}));
}

TEST(MathOperator, CastBoolAndIntegersToFloat) {
  OnnxModelBuilder m;
  m.input("b", onnx::TensorProto::BOOL, {"2"}).input("i", onnx::TensorProto::INT8, {"2"})
      .output("fb").output("fi");
  set_attr(m.node("Cast", {"b"}, {"fb"}), "to", int64_t{onnx::TensorProto::FLOAT});
  set_attr(m.node("Cast", {"i"}, {"fi"}), "to", int64_t{onnx::TensorProto::FLOAT});
  auto out = run_model(m, {{"b", make_bool({2}, {true, false})}, {"i", make_tensor<int8_t>(DType::i8, {2}, {-128, 7})}});
  expect_near_all(values_of(out.at("fb")), {1, 0});
  expect_near_all(values_of(out.at("fi")), {-128, 7});
}

TEST(MathOperator, CastToUnsupportedDtypeIsAnError) {
  OnnxModelBuilder m;
  m.input("x", {2}).output("y", onnx::TensorProto::COMPLEX64);
  set_attr(m.node("Cast", {"x"}, {"y"}), "to", int64_t{onnx::TensorProto::COMPLEX64});
  EXPECT_THAT(import_error(m), HasSubstr("COMPLEX64"));
}

std::vector<float> softmax_of(const std::vector<float>& x) {
  float max = x[0], sum = 0;
  for (float v : x) max = std::max(max, v);
  for (float v : x) sum += std::exp(v - max);
  std::vector<float> y;
  for (float v : x) y.push_back(std::exp(v - max) / sum);
  return y;
}

TEST(MathOperator, SoftmaxBeforeOpset13CoercesTo2D) {
  // Opset 11, axis 1 on [2, 2, 2]: each batch row of 4 values is normalized together.
  OnnxModelBuilder m = unary_model("Softmax", {2, 2, 2}, 11);
  const std::vector<float> x = {1, 2, 3, 4, 0, 0, 1, -1};
  std::vector<float> expected = softmax_of({1, 2, 3, 4});
  for (float v : softmax_of({0, 0, 1, -1})) expected.push_back(v);
  expect_near_all(values_of(run_single_output(m, {{"x", make_f32({2, 2, 2}, x)}})), expected);
}

TEST(MathOperator, SoftmaxOpset13UsesOneAxis) {
  OnnxModelBuilder m = unary_model("Softmax", {2, 2, 2}, 13);
  set_attr(*m.model().mutable_graph()->mutable_node(0), "axis", int64_t{1});
  const std::vector<float> x = {1, 2, 3, 4, 0, 0, 1, -1};
  const std::vector<float> a = softmax_of({1, 3}), b = softmax_of({2, 4}), c = softmax_of({0, 1}),
                           d = softmax_of({0, -1});
  expect_near_all(values_of(run_single_output(m, {{"x", make_f32({2, 2, 2}, x)}})), {a[0], b[0], a[1], b[1], c[0], d[0], c[1], d[1]});
}

TEST(MathOperator, LogSoftmaxIsLogOfSoftmax) {
  for (int64_t opset : {11, 13}) {
    OnnxModelBuilder m = unary_model("LogSoftmax", {2, 3}, opset);
    const std::vector<float> x = {1, 2, 3, 1000, 1001, 1002};
    std::vector<float> expected;
    for (float v : softmax_of({1, 2, 3})) expected.push_back(std::log(v));
    for (float v : softmax_of({1000, 1001, 1002})) expected.push_back(std::log(v));
    expect_near_all(values_of(run_single_output(m, {{"x", make_f32({2, 3}, x)}})), expected);
  }
}

TEST(MathOperator, LayerNormalizationWithStatistics) {
  OnnxModelBuilder m(17);
  m.input("x", {2, 1, 3}).output("y").output("mean").output("inv_std_dev");
  m.initializer("scale", make_f32({1, 3}, {1, 2, 3}));
  m.initializer("bias", make_f32({3}, {0, 0, 1}));
  auto& node = m.node("LayerNormalization", {"x", "scale", "bias"}, {"y", "mean", "inv_std_dev"});
  set_attr(node, "axis", int64_t{-2});
  set_attr(node, "epsilon", 0.0f);
  auto out = run_model(m, {{"x", make_f32({2, 1, 3}, {1, 2, 3, 0, 0, 6})}});
  // Row 1: mean 2, variance 2/3. Row 2: mean 2, variance 8.
  const float r1 = 1 / std::sqrt(2.0f / 3), r2 = 1 / std::sqrt(8.0f);
  expect_near_all(values_of(out.at("y")), {-r1, 0, 3 * r1 + 1, -2 * r2, -4 * r2, 12 * r2 + 1});
  EXPECT_EQ(out.at("mean").shape(), (std::vector<int64_t>{2, 1, 1}));
  expect_near_all(values_of(out.at("mean")), {2, 2});
  expect_near_all(values_of(out.at("inv_std_dev")), {r1, r2});
}

TEST(MathOperator, LayerNormalizationDefaultsWithoutBias) {
  OnnxModelBuilder m(17);
  m.input("x", {1, 2}).output("y");
  m.initializer("scale", make_f32({2}, {1, 1}));
  m.node("LayerNormalization", {"x", "scale"}, {"y"});
  const float inv = 1 / std::sqrt(1.0f + 1e-5f);
  expect_near_all(values_of(run_single_output(m, {{"x", make_f32({1, 2}, {1, 3})}})), {-inv, inv});
}

const std::vector<float> kCube = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};  // shape [2, 3, 2]

TEST(MathOperator, ReduceWithAttributeAxesBeforeOpset13) {
  const std::map<std::string, std::vector<float>> expected = {
      // Over axes {0, 2} of [2, 3, 2]: the pairs (1,2,7,8), (3,4,9,10), (5,6,11,12).
      {"ReduceSum", {18, 26, 34}}, {"ReduceMean", {4.5f, 6.5f, 8.5f}},
      {"ReduceMax", {8, 10, 12}},  {"ReduceMin", {1, 3, 5}}};
  for (const auto& [op, want] : expected) {
    OnnxModelBuilder m = unary_model(op, {2, 3, 2}, 11);
    auto& node = *m.model().mutable_graph()->mutable_node(0);
    set_attr(node, "axes", std::vector<int64_t>{-1, 0});
    set_attr(node, "keepdims", int64_t{0});
    SCOPED_TRACE(op);
    Tensor y = run_single_output(m, {{"x", make_f32({2, 3, 2}, kCube)}});
    EXPECT_EQ(y.shape(), (std::vector<int64_t>{3}));
    expect_near_all(values_of(y), want);
  }
}

// Max and min over trailing dims run 16 lanes a step, the last 16 elements once more,
// and rows split among threads: rows of every length around a step, a NaN in the first
// element, in the middle and in the overlapped tail, and a 1.2 MB input.
TEST(MathOperator, ReduceMaxAndMinOverTrailingDimsMatchPlainLoops) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-100.0f, 100.0f);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{
           {3, 1}, {3, 7}, {4, 16}, {4, 17}, {2, 5, 8}, {3, 40}, {300, 1024}}) {
    const int64_t rows = shape[0];
    int64_t n = 1;
    for (size_t d = 1; d < shape.size(); ++d) n *= shape[d];
    std::vector<float> x(static_cast<size_t>(rows * n));
    for (float& v : x) v = uniform(rng);
    if (n > 2) {
      x[static_cast<size_t>(n)] = nan;                       // row 1, first element
      x[static_cast<size_t>((rows - 1) * n + n / 2)] = nan;  // the last row, middle
      x[static_cast<size_t>(n - 2)] = nan;                   // row 0, in the overlapped tail
    }
    std::vector<int64_t> axes;
    for (int64_t d = 1; d < static_cast<int64_t>(shape.size()); ++d) axes.push_back(d);
    for (const std::string op : {"ReduceMax", "ReduceMin"}) {
      SCOPED_TRACE(op + " over rows of " + std::to_string(n));
      OnnxModelBuilder m = unary_model(op, shape, 13);
      auto& node = *m.model().mutable_graph()->mutable_node(0);
      set_attr(node, "axes", axes);
      set_attr(node, "keepdims", int64_t{0});
      const std::vector<float> y = values_of(run_single_output(m, {{"x", make_f32(shape, x)}}));
      ASSERT_EQ(y.size(), static_cast<size_t>(rows));
      for (int64_t r = 0; r < rows; ++r) {
        float want = x[static_cast<size_t>(r * n)];
        bool has_nan = false;
        for (int64_t k = 0; k < n; ++k) {
          const float v = x[static_cast<size_t>(r * n + k)];
          has_nan = has_nan || std::isnan(v);
          want = op == "ReduceMax" ? std::max(want, v) : std::min(want, v);
        }
        if (has_nan) {
          EXPECT_TRUE(std::isnan(y[static_cast<size_t>(r)])) << "row " << r;
        } else {
          EXPECT_EQ(y[static_cast<size_t>(r)], want) << "row " << r;
        }
      }
    }
  }
}

TEST(MathOperator, ReduceDefaultsToAllAxesKeepingDims) {
  Tensor y = run_single_output(unary_model("ReduceMean", {2, 3, 2}, 13), {{"x", make_f32({2, 3, 2}, kCube)}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 1, 1}));
  expect_near_all(values_of(y), {6.5f});
}

TEST(MathOperator, ReduceSumAxesInputFromOpset13) {
  OnnxModelBuilder m(13);
  m.input("x", {2, 3, 2}).output("y");
  m.initializer("axes", make_i64({1}, {1}));
  m.node("ReduceSum", {"x", "axes"}, {"y"});
  Tensor y = run_single_output(m, {{"x", make_f32({2, 3, 2}, kCube)}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 1, 2}));
  expect_near_all(values_of(y), {9, 12, 27, 30});
}

TEST(MathOperator, ReduceSumEmptyAxesWithNoopCopies) {
  OnnxModelBuilder m(13);
  m.input("x", {2, 3, 2}).output("y");
  set_attr(m.node("ReduceSum", {"x"}, {"y"}), "noop_with_empty_axes", int64_t{1});
  Tensor y = run_single_output(m, {{"x", make_f32({2, 3, 2}, kCube)}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 3, 2}));
  expect_near_all(values_of(y), kCube);
}

TEST(MathOperator, ReduceSumOnIntegers) {
  OnnxModelBuilder m(13);
  m.input("x", onnx::TensorProto::INT64, {"2", "2"}).output("y", onnx::TensorProto::INT64);
  m.initializer("axes", make_i64({1}, {0}));
  set_attr(m.node("ReduceSum", {"x", "axes"}, {"y"}), "keepdims", int64_t{0});
  EXPECT_EQ(elements_of<int64_t>(run_single_output(m, {{"x", make_i64({2, 2}, {1, 2, 30, 40})}})),
            (std::vector<int64_t>{31, 42}));
}

TEST(MathOperator, ReduceSumNeedsConstantAxes) {
  OnnxModelBuilder m(13);
  m.input("x", {2, 2}).input("axes", onnx::TensorProto::INT64, {"1"}).output("y");
  m.node("ReduceSum", {"x", "axes"}, {"y"}, "sum");
  const std::string error = import_error(m);
  EXPECT_THAT(error, HasSubstr("node 'sum'"));
  EXPECT_THAT(error, HasSubstr("not a constant"));
}

TEST(MathOperator, ArgMaxFirstOrLastIndex) {
  for (int64_t last : {0, 1}) {
    OnnxModelBuilder m(13);
    m.input("x", {2, 3}).output("y", onnx::TensorProto::INT64);
    auto& node = m.node("ArgMax", {"x"}, {"y"});
    set_attr(node, "axis", int64_t{-1});
    set_attr(node, "keepdims", int64_t{0});
    set_attr(node, "select_last_index", last);
    Tensor y = run_single_output(m, {{"x", make_f32({2, 3}, {1, 5, 5, 7, 2, 7})}});
    EXPECT_EQ(y.shape(), (std::vector<int64_t>{2}));
    const std::vector<int64_t> expected = last ? std::vector<int64_t>{2, 2} : std::vector<int64_t>{1, 0};
    EXPECT_EQ(elements_of<int64_t>(y), expected);
  }
  OnnxModelBuilder defaults(13);
  defaults.input("x", {2, 3}).output("y", onnx::TensorProto::INT64);
  defaults.node("ArgMax", {"x"}, {"y"});
  Tensor kept = run_single_output(defaults, {{"x", make_f32({2, 3}, {1, 5, 5, 7, 2, 7})}});
  EXPECT_EQ(kept.dtype(), DType::i64);
  EXPECT_EQ(kept.shape(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(elements_of<int64_t>(kept), (std::vector<int64_t>{1, 0, 1}));
}

}  // namespace
}  // namespace nee
