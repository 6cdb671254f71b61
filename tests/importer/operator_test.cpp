// One tiny model per operator, imported and run on the reference provider; expected
// values are written out by hand or computed with plain loops here.
#include <gtest/gtest.h>

#include <cmath>

#include "import_and_run.h"
#include "onnx_model_builder.h"

namespace nee {
namespace {

using test::OnnxModelBuilder;
using test::expect_near_all;
using test::make_f32;
using test::make_i64;
using test::run_single_output;
using test::set_attr;
using test::values_of;

TEST(Operator, MatMul) {
  OnnxModelBuilder m;
  m.input("a", {2, 3}).input("b", {3, 2}).output("y");
  m.node("MatMul", {"a", "b"}, {"y"});
  Tensor y = run_single_output(m, {{"a", make_f32({2, 3}, {1, 2, 3, 4, 5, 6})},
                                   {"b", make_f32({3, 2}, {7, 8, 9, 10, 11, 12})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 2}));
  expect_near_all(values_of(y), {58, 64, 139, 154});
}

TEST(Operator, MatMulBatchBroadcastAndVector) {
  OnnxModelBuilder m;
  m.input("a", {2, 1, 2}).input("b", {2}).output("y");
  m.node("MatMul", {"a", "b"}, {"y"});
  Tensor y = run_single_output(m, {{"a", make_f32({2, 1, 2}, {1, 2, 3, 4})}, {"b", make_f32({2}, {10, 1})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 1}));
  expect_near_all(values_of(y), {12, 34});
}

TEST(Operator, MatMulBatched) {
  OnnxModelBuilder m;
  m.input("a", {2, 1, 2}).input("b", {2, 2}).output("y");
  m.node("MatMul", {"a", "b"}, {"y"});
  Tensor y = run_single_output(m, {{"a", make_f32({2, 1, 2}, {1, 2, 3, 4})},
                                   {"b", make_f32({2, 2}, {1, 0, 0, 2})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 1, 2}));
  expect_near_all(values_of(y), {1, 4, 3, 8});
}

TEST(Operator, GemmTransposedWithScaledBias) {
  OnnxModelBuilder m;
  m.input("a", {3, 2}).input("b", {2, 3}).output("y");
  m.initializer("c", make_f32({2}, {1, -1}));
  auto& n = m.node("Gemm", {"a", "b", "c"}, {"y"});
  set_attr(n, "transA", int64_t{1});
  set_attr(n, "transB", int64_t{1});
  set_attr(n, "alpha", 2.0f);
  set_attr(n, "beta", 0.5f);
  // A^T = [[1,3,5],[2,4,6]], B^T = [[1,0],[0,1],[1,1]]: A^T B^T = [[6,8],[8,10]].
  Tensor y = run_single_output(m, {{"a", make_f32({3, 2}, {1, 2, 3, 4, 5, 6})},
                                   {"b", make_f32({2, 3}, {1, 0, 1, 0, 1, 1})}});
  expect_near_all(values_of(y), {12.5f, 15.5f, 16.5f, 19.5f});
}

TEST(Operator, AddBroadcasts) {
  OnnxModelBuilder m;
  m.input("a", {2, 3}).input("b", {3}).output("y");
  m.node("Add", {"a", "b"}, {"y"});
  Tensor y = run_single_output(m, {{"a", make_f32({2, 3}, {1, 2, 3, 4, 5, 6})},
                                   {"b", make_f32({3}, {10, 20, 30})}});
  expect_near_all(values_of(y), {11, 22, 33, 14, 25, 36});
}

TEST(Operator, AddWithTypedFieldInitializer) {
  OnnxModelBuilder m;
  m.input("a", {2}).output("y");
  auto& init = m.raw_initializer();
  init.set_name("k");
  init.set_data_type(onnx::TensorProto::FLOAT);
  init.add_dims(2);
  init.add_float_data(0.5f);
  init.add_float_data(-2.0f);
  m.node("Add", {"a", "k"}, {"y"});
  expect_near_all(values_of(run_single_output(m, {{"a", make_f32({2}, {1, 1})}})), {1.5f, -1.0f});
}

TEST(Operator, AddBroadcastsBothWays) {
  OnnxModelBuilder m;
  m.input("a", {2, 1}).input("b", {1, 3}).output("y");
  m.node("Add", {"a", "b"}, {"y"});
  Tensor y = run_single_output(m, {{"a", make_f32({2, 1}, {1, 2})}, {"b", make_f32({1, 3}, {10, 20, 30})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 3}));
  expect_near_all(values_of(y), {11, 21, 31, 12, 22, 32});
}

TEST(Operator, SubMulDiv) {
  for (const char* op : {"Sub", "Mul", "Div"}) {
    OnnxModelBuilder m;
    m.input("a", {2, 2}).input("b", {2}).output("y");
    m.node(op, {"a", "b"}, {"y"});
    Tensor y = run_single_output(m, {{"a", make_f32({2, 2}, {1, 2, 3, 4})}, {"b", make_f32({2}, {2, 4})}});
    const std::string name = op;
    if (name == "Sub") expect_near_all(values_of(y), {-1, -2, 1, 0});
    if (name == "Mul") expect_near_all(values_of(y), {2, 8, 6, 16});
    if (name == "Div") expect_near_all(values_of(y), {0.5f, 0.5f, 1.5f, 1});
  }
}

TEST(Operator, Relu) {
  OnnxModelBuilder m;
  m.input("x", {4}).output("y");
  m.node("Relu", {"x"}, {"y"});
  expect_near_all(values_of(run_single_output(m, {{"x", make_f32({4}, {-1, 0, 2, -3})}})), {0, 0, 2, 0});
}

TEST(Operator, SigmoidAndTanh) {
  const std::vector<float> x = {-2, 0, 0.5f};
  for (const char* op : {"Sigmoid", "Tanh"}) {
    OnnxModelBuilder m;
    m.input("x", {3}).output("y");
    m.node(op, {"x"}, {"y"});
    std::vector<float> expected;
    for (float v : x) expected.push_back(std::string(op) == "Tanh" ? std::tanh(v) : 1 / (1 + std::exp(-v)));
    expect_near_all(values_of(run_single_output(m, {{"x", make_f32({3}, x)}})), expected);
  }
}

TEST(Operator, FlattenWithNegativeAxis) {
  OnnxModelBuilder m;
  m.input("x", {2, 3, 4}).output("y");
  set_attr(m.node("Flatten", {"x"}, {"y"}), "axis", int64_t{-1});
  Tensor x = make_f32({2, 3, 4}, std::vector<float>(24, 1.0f));
  Tensor y = run_single_output(m, {{"x", x}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{6, 4}));
}

TEST(Operator, ReshapeWithZeroAndMinusOne) {
  OnnxModelBuilder m;
  m.input("x", {2, 3, 4}).output("y");
  m.initializer("shape", make_i64({3}, {0, -1, 2}));
  m.node("Reshape", {"x", "shape"}, {"y"});
  std::vector<float> data(24);
  for (int i = 0; i < 24; ++i) data[i] = static_cast<float>(i);
  Tensor y = run_single_output(m, {{"x", make_f32({2, 3, 4}, data)}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 6, 2}));
  expect_near_all(values_of(y), data);
}

TEST(Operator, ReshapeShapeFromConstantNode) {
  OnnxModelBuilder m;
  m.input("x", {2, 2}).output("y");
  set_attr(m.node("Constant", {}, {"shape"}), "value", make_i64({1}, {4}));
  m.node("Reshape", {"x", "shape"}, {"y"});
  Tensor y = run_single_output(m, {{"x", make_f32({2, 2}, {1, 2, 3, 4})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{4}));
}

TEST(Operator, Identity) {
  OnnxModelBuilder m;
  m.input("x", {2}).output("y");
  m.node("Identity", {"x"}, {"y"});
  expect_near_all(values_of(run_single_output(m, {{"x", make_f32({2}, {3, 4})}})), {3, 4});
}

TEST(Operator, SoftmaxLastAxis) {
  OnnxModelBuilder m;
  m.input("x", {2, 3}).output("y");
  m.node("Softmax", {"x"}, {"y"});
  const std::vector<float> x = {1, 2, 3, 0, 0, 0};
  std::vector<float> expected;
  const float s = std::exp(1.0f) + std::exp(2.0f) + std::exp(3.0f);
  for (float v : {1.0f, 2.0f, 3.0f}) expected.push_back(std::exp(v) / s);
  for (int i = 0; i < 3; ++i) expected.push_back(1.0f / 3);
  expect_near_all(values_of(run_single_output(m, {{"x", make_f32({2, 3}, x)}})), expected);
}

TEST(Operator, SoftmaxFirstAxis) {
  OnnxModelBuilder m;
  m.input("x", {2, 2}).output("y");
  set_attr(m.node("Softmax", {"x"}, {"y"}), "axis", int64_t{0});
  const float e = 1.0f / (1.0f + std::exp(-1.0f));  // softmax([1, 0])[0]
  expect_near_all(values_of(run_single_output(m, {{"x", make_f32({2, 2}, {1, 0, 0, 0})}})),
                  {e, 0.5f, 1 - e, 0.5f});
}

TEST(Operator, Transpose) {
  OnnxModelBuilder m;
  m.input("x", {2, 3}).output("y");
  m.node("Transpose", {"x"}, {"y"});
  Tensor y = run_single_output(m, {{"x", make_f32({2, 3}, {1, 2, 3, 4, 5, 6})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{3, 2}));
  expect_near_all(values_of(y), {1, 4, 2, 5, 3, 6});
}

TEST(Operator, TransposeWithPerm) {
  OnnxModelBuilder m;
  m.input("x", {1, 2, 3}).output("y");
  set_attr(m.node("Transpose", {"x"}, {"y"}), "perm", std::vector<int64_t>{2, 0, 1});
  Tensor y = run_single_output(m, {{"x", make_f32({1, 2, 3}, {1, 2, 3, 4, 5, 6})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{3, 1, 2}));
  expect_near_all(values_of(y), {1, 4, 2, 5, 3, 6});
}

TEST(Operator, ConcatNegativeAxis) {
  OnnxModelBuilder m;
  m.input("a", {2, 1}).input("b", {2, 2}).output("y");
  set_attr(m.node("Concat", {"a", "b"}, {"y"}), "axis", int64_t{-1});
  Tensor y = run_single_output(m, {{"a", make_f32({2, 1}, {1, 2})}, {"b", make_f32({2, 2}, {3, 4, 5, 6})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 3}));
  expect_near_all(values_of(y), {1, 3, 4, 2, 5, 6});
}

}  // namespace
}  // namespace nee
