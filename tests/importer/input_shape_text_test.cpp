// --input-shape text (nee-run, nee-tune) and importing a model with a symbolic batch dim
// at another batch, as nee-bench's batch-8 run does with the zoo.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "importer/import_onnx.h"
#include "importer/input_shape_text.h"
#include "onnx_model_builder.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"
#include "runtime/tensor_io.h"

namespace nee {
namespace {

using test::make_i64;
using test::OnnxModelBuilder;
using test::set_attr;
using ::testing::HasSubstr;

std::string parse_error(const std::vector<std::string>& texts) {
  try {
    parse_input_shapes(texts);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "parsed";
  return "";
}

TEST(InputShapeText, ParsesNamesAndDims) {
  const InputShapes shapes = parse_input_shapes({"input=8x3x224x224", "ids=8x128", "a=b=5"});
  ASSERT_EQ(shapes.size(), 3u);
  EXPECT_EQ(shapes.at("input"), (std::vector<int64_t>{8, 3, 224, 224}));
  EXPECT_EQ(shapes.at("ids"), (std::vector<int64_t>{8, 128}));
  EXPECT_EQ(shapes.at("a=b"), (std::vector<int64_t>{5}));  // the last '=' splits
  EXPECT_TRUE(parse_input_shapes({}).empty());
}

TEST(InputShapeText, AnInputNamedAgainStartsAnotherSet) {
  const std::vector<InputShapes> sets =
      parse_input_shape_sets({"ids=1x16", "mask=1x16", "ids=1x32", "ids=1x64", "mask=1x64"});
  ASSERT_EQ(sets.size(), 3u);
  EXPECT_EQ(sets[0], (InputShapes{{"ids", {1, 16}}, {"mask", {1, 16}}}));
  EXPECT_EQ(sets[1], (InputShapes{{"ids", {1, 32}}, {"mask", {1, 16}}}));  // mask as in the set before
  EXPECT_EQ(sets[2], (InputShapes{{"ids", {1, 64}}, {"mask", {1, 64}}}));
  EXPECT_EQ(parse_input_shape_sets({}), std::vector<InputShapes>(1));  // one set: the model's own shapes
  EXPECT_THROW(parse_input_shape_sets({"ids=1x0"}), Error);
}

TEST(InputShapeText, RoundTrips) {
  const std::string text = input_shape_text("input:0", {8, 3, 7});
  EXPECT_EQ(text, "input:0=8x3x7");
  EXPECT_EQ(parse_input_shapes({text}).at("input:0"), (std::vector<int64_t>{8, 3, 7}));
}

TEST(InputShapeText, BadTextIsNamed) {
  EXPECT_THAT(parse_error({"input"}), HasSubstr("bad input shape 'input': expected NAME=DxDx...xD"));
  EXPECT_THAT(parse_error({"=8x3"}), HasSubstr("bad input shape '=8x3'"));
  EXPECT_THAT(parse_error({"input="}), HasSubstr("dim '' is not a positive integer"));
  EXPECT_THAT(parse_error({"input=8x0x2"}), HasSubstr("dim '0' is not a positive integer"));
  EXPECT_THAT(parse_error({"input=8x-3"}), HasSubstr("dim '-3'"));
  EXPECT_THAT(parse_error({"input=8xx3"}), HasSubstr("dim ''"));
  EXPECT_THAT(parse_error({"input=8x3x"}), HasSubstr("dim ''"));
  EXPECT_THAT(parse_error({"input=8,3"}), HasSubstr("dim '8,3'"));
  EXPECT_THAT(parse_error({"input= 8"}), HasSubstr("dim ' 8'"));
  EXPECT_THAT(parse_error({"input=99999999999999999999"}), HasSubstr("not a positive integer"));
  EXPECT_THAT(parse_error({"x=2", "x=3"}), HasSubstr("input shape of 'x' given twice"));
}

// The exporter's x.view(x.size(0), -1) followed by a dense layer: x [batch, 2, 3] ->
// Reshape(x, [Shape(x)[0], -1]) -> MatMul with W [6, 4].
OnnxModelBuilder dynamic_batch_model(const Tensor& w) {
  OnnxModelBuilder m;
  m.input("x", onnx::TensorProto::FLOAT, {"batch", "2", "3"}).output("y");
  m.initializer("w", w);
  m.initializer("zero", make_i64({}, {0}));
  m.initializer("axes", make_i64({1}, {0}));
  m.initializer("rest", make_i64({1}, {-1}));
  m.node("Shape", {"x"}, {"shape"});
  m.node("Gather", {"shape", "zero"}, {"n"});
  m.node("Unsqueeze", {"n", "axes"}, {"n_1d"});
  set_attr(m.node("Concat", {"n_1d", "rest"}, {"target"}), "axis", int64_t{0});
  m.node("Reshape", {"x", "target"}, {"flat"});
  m.node("MatMul", {"flat", "w"}, {"y"}, "dense");
  return m;
}

TEST(InputShapeText, DynamicBatchModelImportsAndRunsAtBatchThree) {
  const Tensor w = random_tensor({DType::f32, {6, 4}}, 11);
  const std::string bytes = dynamic_batch_model(w).bytes();
  const Graph graph = import_onnx_bytes(bytes, parse_input_shapes({"x=3x2x3"}));
  EXPECT_EQ(graph.type_of("x").shape, (std::vector<int64_t>{3, 2, 3}));
  EXPECT_EQ(graph.type_of("y").shape, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(import_onnx_bytes(bytes).type_of("y").shape, (std::vector<int64_t>{1, 4}));

  Session session(graph, {}, SessionOptions{optimize_graph});
  const Tensor x = random_tensor({DType::f32, {3, 2, 3}}, 12);
  const Tensor y = session.run({{"x", x}}).at("y");
  ASSERT_EQ(y.shape(), (std::vector<int64_t>{3, 4}));
  for (int64_t row = 0; row < 3; ++row) {
    for (int64_t j = 0; j < 4; ++j) {
      double want = 0;
      for (int64_t k = 0; k < 6; ++k) want += double{x.data_as<float>()[row * 6 + k]} * w.data_as<float>()[k * 4 + j];
      EXPECT_NEAR(y.data_as<float>()[row * 4 + j], want, 1e-5) << "row " << row << ", column " << j;
    }
  }
}

TEST(InputShapeText, ShapesTheModelRefusesAreNamed) {
  const std::string bytes = dynamic_batch_model(random_tensor({DType::f32, {6, 4}}, 13)).bytes();
  try {
    import_onnx_bytes(bytes, parse_input_shapes({"x=3x2x4"}));
    ADD_FAILURE() << "a shape contradicting the fixed dim 2 = 3 was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("contradicts its declared dim 2 = 3"));
  }
  try {
    import_onnx_bytes(bytes, parse_input_shapes({"image=3x2x3"}));
    ADD_FAILURE() << "a shape for an unknown input was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("'image', which is not a graph input"));
  }
}

}  // namespace
}  // namespace nee
