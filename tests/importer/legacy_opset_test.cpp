// Models of opsets 1 to 6: each upgrade of importer/legacy_opsets.cpp, run on the
// reference provider against values worked out by hand, and the old semantics NEE refuses.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "import_and_run.h"
#include "onnx_model_builder.h"

namespace nee {
namespace {

using test::OnnxModelBuilder;
using test::import_error;
using test::make_f32;
using test::run_single_output;
using test::set_attr;
using test::values_of;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Opset-6 Add with broadcast=1 and axis=1: B [3] lines up with A's dim 1 of [2,3,2], so
// B[j] is added to A[i][j][k]. Numpy broadcasting alone would line B up with the last dim.
TEST(LegacyOpsets, BroadcastFromAnAxisAddsBAlongThatDim) {
  OnnxModelBuilder m(6);
  m.input("a", {2, 3, 2}).input("b", {3}).output("y");
  onnx::NodeProto& add = m.node("Add", {"a", "b"}, {"y"});
  set_attr(add, "broadcast", int64_t{1});
  set_attr(add, "axis", int64_t{1});
  const Tensor a = make_f32({2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  const Tensor y = run_single_output(m, {{"a", a}, {"b", make_f32({3}, {100, 200, 300})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 3, 2}));
  EXPECT_THAT(values_of(y), ElementsAre(100, 101, 202, 203, 304, 305, 106, 107, 208, 209, 310, 311));
}

// Without broadcast=1 the old binary operators need operands of one shape.
TEST(LegacyOpsets, BinaryOperandsOfTwoShapesNeedBroadcast) {
  OnnxModelBuilder m(6);
  m.input("a", {2, 3}).input("b", {3}).output("y");
  m.node("Mul", {"a", "b"}, {"y"}, "mul");
  const std::string error = import_error(m);
  EXPECT_THAT(error, HasSubstr("node 'mul' (Mul of opset 6)"));
  EXPECT_THAT(error, HasSubstr("only with broadcast=1"));
}

TEST(LegacyOpsets, BroadcastThatDoesNotLineUpIsRefused) {
  OnnxModelBuilder m(6);
  m.input("a", {2, 3}).input("b", {2}).output("y");
  set_attr(m.node("Sub", {"a", "b"}, {"y"}), "broadcast", int64_t{1});
  EXPECT_THAT(import_error(m), HasSubstr("does not broadcast to A"));
}

// is_test=0, the default before opset 7, asks for training mode.
TEST(LegacyOpsets, TrainingModeBatchNormalizationIsRefused) {
  OnnxModelBuilder m(6);
  m.input("x", {1, 2, 2}).output("y");
  for (const char* name : {"s", "b", "mean", "var"}) m.initializer(name, make_f32({2}, {1, 1}));
  m.node("BatchNormalization", {"x", "s", "b", "mean", "var"}, {"y"});
  EXPECT_THAT(import_error(m), HasSubstr("is_test=0"));
}

TEST(LegacyOpsets, InferenceBatchNormalizationRuns) {
  OnnxModelBuilder m(6);
  m.input("x", {1, 2, 2}).output("y");
  m.initializer("s", make_f32({2}, {2, 3})).initializer("b", make_f32({2}, {1, -1}));
  m.initializer("mean", make_f32({2}, {0, 1})).initializer("var", make_f32({2}, {1, 4}));
  onnx::NodeProto& bn = m.node("BatchNormalization", {"x", "s", "b", "mean", "var"}, {"y"});
  set_attr(bn, "is_test", int64_t{1});
  set_attr(bn, "epsilon", 0.0f);
  const Tensor y = run_single_output(m, {{"x", make_f32({1, 2, 2}, {1, 2, 3, 5})}});
  EXPECT_THAT(values_of(y), ElementsAre(3, 5, 2, 5));  // 2x+1; 3(x-1)/2-1
}

// Opset-1 Reshape takes its target shape as an attribute.
TEST(LegacyOpsets, ReshapeShapeAttributeBecomesAnInput) {
  OnnxModelBuilder m(4);
  m.input("x", {2, 3}).output("y");
  set_attr(m.node("Reshape", {"x"}, {"y"}), "shape", std::vector<int64_t>{3, -1});
  const Tensor y = run_single_output(m, {{"x", make_f32({2, 3}, {1, 2, 3, 4, 5, 6})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{3, 2}));
}

// Opset-1 Split takes the part sizes as a second input; Concat's axis defaults to 1.
TEST(LegacyOpsets, SplitSizesInputAndConcatDefaultAxis) {
  OnnxModelBuilder m(1);
  m.input("x", {2, 3}).output("y");
  m.initializer("sizes", make_f32({2}, {1, 2}));  // Split-1 types its sizes as the data, T
  set_attr(m.node("Split", {"x", "sizes"}, {"p", "q"}), "axis", int64_t{1});
  m.node("Concat", {"q", "p"}, {"y"});
  const Tensor y = run_single_output(m, {{"x", make_f32({2, 3}, {1, 2, 3, 4, 5, 6})}});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_THAT(values_of(y), ElementsAre(2, 3, 1, 5, 6, 4));
}

// Opset-1 Pad calls its pads `paddings`; opset-1 Cast names its dtype as a string.
TEST(LegacyOpsets, PadPaddingsAndCastDtypeName) {
  OnnxModelBuilder m(1);
  m.input("x", {1, 2}).output("y", onnx::TensorProto::INT64);
  set_attr(m.node("Pad", {"x"}, {"p"}), "paddings", std::vector<int64_t>{0, 1, 0, 0});
  onnx::NodeProto& cast = m.node("Cast", {"p"}, {"y"});
  onnx::AttributeProto* to = cast.add_attribute();
  to->set_name("to");
  to->set_type(onnx::AttributeProto::STRING);
  to->set_s("INT64");
  const Tensor y = run_single_output(m, {{"x", make_f32({1, 2}, {7.5f, -2})}});
  ASSERT_EQ(y.dtype(), DType::i64);
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{1, 3}));
  EXPECT_THAT(std::vector<int64_t>(y.data_as<int64_t>(), y.data_as<int64_t>() + 3), ElementsAre(0, 7, -2));
}

// Opset-6 PRelu with one slope per channel of a rank-3 X.
TEST(LegacyOpsets, PreluSlopePerChannel) {
  OnnxModelBuilder m(6);
  m.input("x", {1, 2, 2}).output("y");
  m.initializer("slope", make_f32({2}, {0.5f, 0.25f}));
  m.node("PRelu", {"x", "slope"}, {"y"});
  const Tensor y = run_single_output(m, {{"x", make_f32({1, 2, 2}, {-2, 2, -4, 4})}});
  EXPECT_THAT(values_of(y), ElementsAre(-1, 2, -1, 4));
}

}  // namespace
}  // namespace nee
