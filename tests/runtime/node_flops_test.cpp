// FLOPs of one execution of each kind of node, on hand-built graphs with exact counts.
#include <gtest/gtest.h>

#include "core/conv2d_workload.h"
#include "graph_builder.h"
#include "runtime/node_flops.h"
#include "runtime/node_workload.h"

namespace nee {
namespace {

using test::add_node;
using test::f32;

// A graph with one input x of the given type; nodes are added by the tests.
Graph graph_with_input(const TensorType& x) {
  Graph g;
  g.add_value("x", x);
  g.add_input("x");
  return g;
}

double flops_of_last_node(const Graph& g) { return node_flops(g, g.nodes().back()); }

TEST(NodeFlops, NeeMatMulCountsItsWorkload) {
  Graph g = graph_with_input(f32({4, 8}));
  g.add_constant("w", Tensor(DType::f32, {8, 3}));
  g.add_constant("b", Tensor(DType::f32, {3}));
  Attributes attrs;
  attrs.set("relu", int64_t{1});
  add_node(g, "NeeMatMul", "mm", {"x", "w", "b"}, "y", f32({4, 3}), attrs);
  ASSERT_TRUE(workload_of(g, g.nodes()[0]));
  EXPECT_EQ(flops_of_last_node(g), 2.0 * 4 * 3 * 8);
}

// DynamicQuantizeLinear reads x once, whether or not its bytes are made
// (integer_products_as_float omits them where the products read x).
TEST(NodeFlops, DynamicQuantizeLinearCountsItsInput) {
  Graph g = graph_with_input(f32({4, 8}));
  g.add_value("scale", f32({}));
  g.add_value("zero", TensorType{DType::u8, {}});
  Node quantize;
  quantize.op = "DynamicQuantizeLinear";
  quantize.name = "q";
  quantize.inputs = {"x"};
  quantize.outputs = {"", "scale", "zero"};
  g.add_node(quantize);
  EXPECT_EQ(flops_of_last_node(g), 32.0);
}

TEST(NodeFlops, NeeConvCountsItsWorkload) {
  Graph g = graph_with_input(f32({1, 2, 5, 5}));
  g.add_constant("w", Tensor(DType::f32, {3, 2, 3, 3}));
  Attributes attrs;
  attrs.set("strides", std::vector<int64_t>{1, 1});
  attrs.set("pads", std::vector<int64_t>{0, 0, 0, 0});
  attrs.set("dilations", std::vector<int64_t>{1, 1});
  attrs.set("group", int64_t{1});
  attrs.set("bias", int64_t{0});
  attrs.set("residual", int64_t{0});
  attrs.set("activation", std::string("relu"));
  attrs.set("clip_min", 0.0f);
  attrs.set("clip_max", 0.0f);
  add_node(g, "NeeConv", "conv", {"x", "w"}, "y", f32({1, 3, 3, 3}), attrs);
  ASSERT_TRUE(workload_of(g, g.nodes()[0]));
  EXPECT_EQ(flops_of_last_node(g), 2.0 * 27 * (2 * 3 * 3));  // 27 outputs, 18 taps each
}

// A recurrent layer: gates x H dot products a step and direction, over X's I and the
// state's H units; lowered, over the state's alone.
TEST(NodeFlops, RecurrentLayersCountTheirProducts) {
  Graph g = graph_with_input(f32({5, 2, 6}));  // 5 steps, batch 2, 6 inputs
  Attributes attrs;
  attrs.set("hidden_size", int64_t{7});
  attrs.set("direction", std::string("bidirectional"));
  add_node(g, "LSTM", "lstm", {"x"}, "y", f32({5, 2, 2, 7}), attrs);
  EXPECT_EQ(flops_of_last_node(g), 2.0 * 5 * 2 * 2 * (4 * 7) * (6 + 7));
  attrs.set("direction", std::string("forward"));
  attrs.set("cell", std::string("GRU"));
  add_node(g, "NeeRecurrence", "gru", {"x"}, "z", f32({5, 1, 2, 7}), attrs);
  EXPECT_EQ(flops_of_last_node(g), 2.0 * 5 * 2 * (3 * 7) * 7);
}

TEST(NodeFlops, UnfusedMatMulAndGemm) {
  Graph g = graph_with_input(f32({2, 4, 8}));
  g.add_constant("w", Tensor(DType::f32, {8, 3}));
  add_node(g, "MatMul", "batched", {"x", "w"}, "y", f32({2, 4, 3}));
  EXPECT_EQ(flops_of_last_node(g), 2.0 * 2 * 4 * 3 * 8);

  g.add_constant("a", Tensor(DType::f32, {8, 4}));
  Attributes trans_a;
  trans_a.set("transA", int64_t{1});
  add_node(g, "Gemm", "gemm", {"a", "w"}, "z", f32({4, 3}), trans_a);  // A^T is 4 x 8
  EXPECT_EQ(flops_of_last_node(g), 2.0 * 4 * 3 * 8);
}

TEST(NodeFlops, ConvAndConvTransposeCountMultiplyAdds) {
  Graph g = graph_with_input(f32({1, 2, 5, 5}));
  g.add_constant("w", Tensor(DType::f32, {4, 1, 3, 3}));  // group 2: one input channel per output
  add_node(g, "Conv", "conv", {"x", "w"}, "y", f32({1, 4, 3, 3}));
  EXPECT_EQ(flops_of_last_node(g), 2.0 * 36 * 9);

  g.add_constant("wt", Tensor(DType::f32, {2, 3, 2, 2}));  // each input element meets 3 x 2 x 2 weights
  add_node(g, "ConvTranspose", "deconv", {"x", "wt"}, "t", f32({1, 3, 6, 6}));
  EXPECT_EQ(flops_of_last_node(g), 2.0 * 50 * 12);
}

TEST(NodeFlops, PoolsCountWindowElements) {
  Graph g = graph_with_input(f32({1, 3, 4, 4}));
  Attributes window;
  window.set("kernel_shape", std::vector<int64_t>{3, 2});
  add_node(g, "MaxPool", "pool", {"x"}, "y", f32({1, 3, 2, 3}), window);
  EXPECT_EQ(flops_of_last_node(g), 18.0 * 6);
  add_node(g, "GlobalAveragePool", "gap", {"x"}, "z", f32({1, 3, 1, 1}));
  EXPECT_EQ(flops_of_last_node(g), 48.0);
}

TEST(NodeFlops, ReductionsAndNormalizationsCountInputElements) {
  Graph g = graph_with_input(f32({2, 5}));
  for (const char* op : {"ReduceMean", "ArgMax", "Softmax", "LayerNormalization"}) {
    add_node(g, op, std::string(op) + "_node", {"x"}, std::string(op) + "_out", f32({2, 1}));
    EXPECT_EQ(flops_of_last_node(g), 10.0) << op;
  }
}

TEST(NodeFlops, ElementwiseCountsOutputElementsAndVariadicOperands) {
  Graph g = graph_with_input(f32({2, 3}));
  g.add_constant("row", Tensor(DType::f32, {3}));
  add_node(g, "Relu", "relu", {"x"}, "r", f32({2, 3}));
  EXPECT_EQ(flops_of_last_node(g), 6.0);
  add_node(g, "Add", "add", {"x", "row"}, "a", f32({2, 3}));
  EXPECT_EQ(flops_of_last_node(g), 6.0);
  add_node(g, "Sum", "sum3", {"x", "r", "a"}, "s", f32({2, 3}));
  EXPECT_EQ(flops_of_last_node(g), 12.0);
}

TEST(NodeFlops, DataMovementIsFree) {
  Graph g = graph_with_input(f32({2, 3}));
  add_node(g, "Transpose", "t", {"x"}, "xt", f32({3, 2}));
  EXPECT_EQ(flops_of_last_node(g), 0.0);
  add_node(g, "Reshape", "r", {"x"}, "xr", f32({6}));
  EXPECT_EQ(flops_of_last_node(g), 0.0);
  add_node(g, "Resize", "nearest", {"x"}, "up", f32({4, 6}));
  EXPECT_EQ(flops_of_last_node(g), 0.0);
  Attributes linear;
  linear.set("mode", std::string("linear"));
  add_node(g, "Resize", "linear", {"x"}, "up2", f32({4, 6}), linear);
  EXPECT_EQ(flops_of_last_node(g), 24.0);
}

}  // namespace
}  // namespace nee
