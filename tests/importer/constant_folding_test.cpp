// Constant folding at import: exporters' Shape -> Gather -> Unsqueeze -> Concat ->
// Reshape chains become constants, so Reshape sees a constant shape.
#include <gtest/gtest.h>

#include "import_and_run.h"
#include "importer/import_onnx.h"
#include "onnx_model_builder.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"

namespace nee {
namespace {

using test::make_f32;
using test::make_i64;
using test::OnnxModelBuilder;
using test::set_attr;
using test::values_of;

// y = Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1])): flattens all but dim 0,
// as PyTorch's exporter writes x.view(x.size(0), -1). The shape is also a graph output.
OnnxModelBuilder flatten_chain_model() {
  OnnxModelBuilder m;
  m.input("x", {2, 3, 4}).output("y").output("target", onnx::TensorProto::INT64);
  m.initializer("zero", make_i64({}, {0}));
  m.initializer("axes", make_i64({1}, {0}));
  m.initializer("rest", make_i64({1}, {-1}));
  m.node("Shape", {"x"}, {"shape"});
  m.node("Gather", {"shape", "zero"}, {"batch"});
  m.node("Unsqueeze", {"batch", "axes"}, {"batch_1d"});
  set_attr(m.node("Concat", {"batch_1d", "rest"}, {"target"}), "axis", int64_t{0});
  m.node("Reshape", {"x", "target"}, {"y"});
  return m;
}

TEST(ConstantFolding, ShapeChainFoldsAndReshapeSeesConstantShape) {
  Graph graph = import_onnx_bytes(flatten_chain_model().bytes());
  ASSERT_EQ(graph.nodes().size(), 1u) << graph.summary();
  EXPECT_EQ(graph.nodes()[0].op, "Reshape");
  const Tensor* target = graph.constant("target");
  ASSERT_NE(target, nullptr);
  EXPECT_EQ(std::vector<int64_t>(target->data_as<int64_t>(), target->data_as<int64_t>() + 2),
            (std::vector<int64_t>{2, -1}));
  EXPECT_EQ(graph.type_of("y").shape, (std::vector<int64_t>{2, 12}));
}

TEST(ConstantFolding, FoldedGraphOutputIsStillReturned) {
  Session session(import_onnx_bytes(flatten_chain_model().bytes()), {}, SessionOptions{optimize_graph});
  Tensor x(DType::f32, {2, 3, 4});
  auto out = session.run({{"x", x}});
  ASSERT_EQ(out.count("target"), 1u);
  EXPECT_EQ(out["target"].data_as<int64_t>()[0], 2);
  EXPECT_EQ(out["target"].data_as<int64_t>()[1], -1);
  EXPECT_EQ(out["y"].shape(), (std::vector<int64_t>{2, 12}));
}

TEST(ConstantFolding, NodesReadingGraphInputsStay) {
  OnnxModelBuilder m;
  m.input("x", {2}).output("y");
  m.initializer("a", make_f32({2}, {1, 2}));
  m.initializer("b", make_f32({2}, {3, 4}));
  set_attr(m.node("Concat", {"a", "b"}, {"ab"}), "axis", int64_t{0});
  set_attr(m.node("Concat", {"ab", "x"}, {"y"}), "axis", int64_t{0});
  Graph graph = import_onnx_bytes(m.bytes());
  ASSERT_EQ(graph.nodes().size(), 1u);
  ASSERT_NE(graph.constant("ab"), nullptr);
  EXPECT_EQ(values_of(*graph.constant("ab")), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(graph.constant("y"), nullptr);
}

TEST(ConstantFolding, LargeOutputsAreNotFolded) {
  OnnxModelBuilder m;
  m.output("big");
  m.initializer("shape", make_i64({2}, {2048, 1024}));
  m.node("ConstantOfShape", {"shape"}, {"big"});
  Graph graph = import_onnx_bytes(m.bytes());
  EXPECT_EQ(graph.nodes().size(), 1u);
  Session session(std::move(graph), {}, SessionOptions{optimize_graph});
  EXPECT_EQ(session.run({})["big"].elements(), 2048 * 1024);
}

// A Transpose of a weight larger than the cap makes no more elements than it reads, so it
// folds (a tied LM head's Transpose of its embedding ran at every run before); the weight
// it read goes, so the model does not hold it twice.
TEST(ConstantFolding, LargeOutputsNoLargerThanTheirInputsAreFolded) {
  const int64_t rows = 1100, columns = 1000;  // 1.1M elements, past kMaxFoldedElements
  OnnxModelBuilder m;
  m.input("x", {2, columns}).output("y");
  const Tensor w = test::random_f32({rows, columns}, 3);
  m.initializer("w", w);
  set_attr(m.node("Transpose", {"w"}, {"w_t"}), "perm", std::vector<int64_t>{1, 0});
  m.node("MatMul", {"x", "w_t"}, {"y"});
  Graph graph = import_onnx_bytes(m.bytes());
  ASSERT_EQ(graph.nodes().size(), 1u) << graph.summary();
  EXPECT_EQ(graph.nodes()[0].op, "MatMul");
  ASSERT_NE(graph.constant("w_t"), nullptr);
  EXPECT_FALSE(graph.has_value("w"));
  const Tensor x = test::random_f32({2, columns}, 4);
  Session session(std::move(graph), {}, SessionOptions{optimize_graph});
  const std::vector<float> y = values_of(session.run({{"x", x}})["y"]);
  const std::vector<float> xs = values_of(x), ws = values_of(w);
  for (const int64_t j : {int64_t{0}, int64_t{517}, rows - 1}) {
    double dot = 0;
    for (int64_t k = 0; k < columns; ++k) dot += static_cast<double>(xs[k]) * ws[j * columns + k];
    EXPECT_NEAR(y[j], dot, 1e-4) << "y[0, " << j << "]";
  }
}

TEST(ConstantFolding, BoundGraphInputsBecomeConstants) {
  OnnxModelBuilder m;
  m.input("x", {2, 3}).input("shape", onnx::TensorProto::INT64, {"2"}).output("y");
  m.node("Reshape", {"x", "shape"}, {"y"});
  Graph graph = import_onnx_bytes(m.bytes(), {}, {{"shape", make_i64({2}, {3, 2})}});
  EXPECT_EQ(graph.inputs(), (std::vector<std::string>{"x"}));
  EXPECT_EQ(graph.type_of("y").shape, (std::vector<int64_t>{3, 2}));
}

}  // namespace
}  // namespace nee
