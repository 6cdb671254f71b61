// Each fusion keeps the graph's output: the optimized session (fused) is compared with
// one that runs the graph as built (unfused), on random inputs.
#include <gtest/gtest.h>

#include "graph_builder.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"
#include "runtime/tensor_io.h"

namespace nee {
namespace {

using test::add_node;
using test::f32;

std::map<std::string, Tensor> random_inputs(const Graph& g) {
  std::map<std::string, Tensor> inputs;
  uint64_t seed = 10;
  for (const std::string& name : g.inputs()) inputs[name] = random_tensor(g.type_of(name), seed++);
  return inputs;
}

// Runs g fused and unfused; returns the op types of the fused graph's nodes.
std::vector<std::string> expect_fusion_preserves_outputs(const Graph& g) {
  const auto inputs = random_inputs(g);
  Session unfused(g, {}, SessionOptions{false});
  Session fused(g, {});
  const auto expected = unfused.run(inputs);
  const auto actual = fused.run(inputs);
  EXPECT_EQ(expected.size(), actual.size());
  for (const auto& [name, want] : expected) {
    const Tensor& got = actual.at(name);
    EXPECT_EQ(got.shape(), want.shape()) << name;
    for (int64_t i = 0; i < want.elements(); ++i) {
      EXPECT_NEAR(got.data_as<float>()[i], want.data_as<float>()[i], 1e-5f) << name << " at " << i;
    }
  }
  std::vector<std::string> ops;
  for (const Node& node : fused.graph().nodes()) ops.push_back(node.op);
  return ops;
}

Graph matmul_graph(const std::vector<int64_t>& a, const std::vector<int64_t>& b, const std::vector<int64_t>& out) {
  Graph g;
  g.add_value("a", f32(a));
  g.add_value("b", f32(b));
  g.add_input("a");
  g.add_input("b");
  add_node(g, "MatMul", "mm", {"a", "b"}, "p", f32(out));
  return g;
}

using Ops = std::vector<std::string>;

TEST(Passes, GemmBecomesNeeMatMul) {
  Graph g;
  g.add_value("a", f32({4, 3}));
  g.add_input("a");
  g.add_constant("b", random_tensor(f32({5, 4}), 1));
  g.add_constant("c", random_tensor(f32({5}), 2));
  Attributes attrs;
  attrs.set("transA", int64_t{1});
  attrs.set("transB", int64_t{1});
  attrs.set("alpha", 0.5f);
  attrs.set("beta", 2.0f);
  add_node(g, "Gemm", "gemm", {"a", "b", "c"}, "y", f32({3, 5}), attrs);
  g.add_output("y");
  EXPECT_EQ(expect_fusion_preserves_outputs(g), Ops{"NeeMatMul"});
}

TEST(Passes, MatMulAddReluFuseIntoOneNode) {
  Graph g = matmul_graph({2, 3, 4}, {4, 5}, {2, 3, 5});
  g.add_constant("bias", random_tensor(f32({5}), 3));
  add_node(g, "Add", "add", {"bias", "p"}, "s", f32({2, 3, 5}));
  add_node(g, "Relu", "relu", {"s"}, "y", f32({2, 3, 5}));
  g.add_output("y");
  EXPECT_EQ(expect_fusion_preserves_outputs(g), Ops{"NeeMatMul"});
  Graph optimized = g;
  optimize_graph(optimized);
  const Node& node = optimized.nodes()[0];
  EXPECT_EQ(node.inputs, (std::vector<std::string>{"a", "b", "bias"}));
  EXPECT_EQ(node.attrs.get_int("relu"), 1);
  EXPECT_FALSE(optimized.has_value("p"));
}

TEST(Passes, AddThatWidensTheProductIsNotFused) {
  Graph g = matmul_graph({3, 4}, {4, 1}, {3, 1});
  g.add_value("wide", f32({3, 6}));
  g.add_input("wide");
  add_node(g, "Add", "add", {"p", "wide"}, "y", f32({3, 6}));
  g.add_output("y");
  EXPECT_EQ(expect_fusion_preserves_outputs(g), (Ops{"NeeMatMul", "Add"}));
}

TEST(Passes, ProductWithTwoReadersIsNotFused) {
  Graph g = matmul_graph({3, 4}, {4, 2}, {3, 2});
  g.add_constant("bias", random_tensor(f32({2}), 4));
  add_node(g, "Add", "add", {"p", "bias"}, "y", f32({3, 2}));
  add_node(g, "Relu", "relu", {"p"}, "z", f32({3, 2}));
  g.add_output("y");
  g.add_output("z");
  EXPECT_EQ(expect_fusion_preserves_outputs(g), (Ops{"NeeMatMul", "Add", "Relu"}));
}

TEST(Passes, ProductThatIsAGraphOutputIsNotFused) {
  Graph g = matmul_graph({3, 4}, {4, 2}, {3, 2});
  add_node(g, "Relu", "relu", {"p"}, "y", f32({3, 2}));
  g.add_output("p");
  g.add_output("y");
  EXPECT_EQ(expect_fusion_preserves_outputs(g), (Ops{"NeeMatMul", "Relu"}));
}

TEST(Passes, VectorMatMulStaysMatMul) {
  Graph g = matmul_graph({4}, {4, 3}, {3});
  g.add_output("p");
  EXPECT_EQ(expect_fusion_preserves_outputs(g), Ops{"MatMul"});
}

TEST(Passes, IdentityIsRemoved) {
  Graph g;
  g.add_value("x", f32({2, 2}));
  g.add_input("x");
  add_node(g, "Identity", "id1", {"x"}, "i", f32({2, 2}));
  add_node(g, "Relu", "relu", {"i"}, "r", f32({2, 2}));
  add_node(g, "Identity", "id2", {"r"}, "y", f32({2, 2}));
  g.add_output("y");
  EXPECT_EQ(expect_fusion_preserves_outputs(g), Ops{"Relu"});
  Graph optimized = g;
  optimize_graph(optimized);
  EXPECT_EQ(optimized.nodes()[0].inputs[0], "x");
  EXPECT_EQ(optimized.nodes()[0].outputs[0], "y");
}

TEST(Passes, IdentityFromInputToOutputStays) {
  Graph g;
  g.add_value("x", f32({2}));
  g.add_input("x");
  add_node(g, "Identity", "id", {"x"}, "y", f32({2}));
  g.add_output("y");
  EXPECT_EQ(expect_fusion_preserves_outputs(g), Ops{"Identity"});
}

}  // namespace
}  // namespace nee
