#include <gtest/gtest.h>

#include "graph_builder.h"
#include "runtime/node_workload.h"
#include "runtime/passes/passes.h"

namespace nee {
namespace {

using test::add_node;
using test::f32;

TEST(NodeWorkload, NeeMatMulMapsToMatmulWorkload) {
  Graph g;
  g.add_value("a", f32({8, 16}));
  g.add_input("a");
  g.add_constant("b", Tensor(DType::f32, {16, 4}));
  g.add_constant("c", Tensor(DType::f32, {4}));
  Attributes attrs;
  attrs.set("trans_a", int64_t{0});
  attrs.set("trans_b", int64_t{0});
  attrs.set("alpha", 1.0f);
  attrs.set("beta", 1.0f);
  attrs.set("relu", int64_t{1});
  add_node(g, "NeeMatMul", "mm", {"a", "b", "c"}, "y", f32({8, 4}), attrs);
  add_node(g, "Relu", "r", {"y"}, "z", f32({8, 4}));
  const TensorType c = f32({4});
  MatmulAttrs expected_attrs;
  expected_attrs.relu = true;
  const Workload expected = make_matmul_workload(f32({8, 16}), f32({16, 4}), &c, expected_attrs);
  const auto w = workload_of(g, g.nodes()[0]);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->key(), expected.key());
  EXPECT_FALSE(workload_of(g, g.nodes()[1]));
}

TEST(NodeWorkload, ExtractIsDeduplicatedInNodeOrder) {
  Graph g;
  g.add_value("x", f32({4, 8}));
  g.add_input("x");
  g.add_constant("w1", Tensor(DType::f32, {8, 8}));
  g.add_constant("w2", Tensor(DType::f32, {8, 2}));
  add_node(g, "MatMul", "m1", {"x", "w1"}, "h1", f32({4, 8}));
  add_node(g, "MatMul", "m2", {"h1", "w1"}, "h2", f32({4, 8}));
  add_node(g, "MatMul", "m3", {"h2", "w2"}, "y", f32({4, 2}));
  g.add_output("y");
  optimize_graph(g);
  const auto workloads = extract_workloads(g);
  ASSERT_EQ(workloads.size(), 2u);
  EXPECT_EQ(workloads[0].inputs[1].shape, (std::vector<int64_t>{8, 8}));
  EXPECT_EQ(workloads[1].inputs[1].shape, (std::vector<int64_t>{8, 2}));
  const auto counts = count_workloads(g);
  ASSERT_EQ(counts.size(), 2u);
  EXPECT_EQ(counts[0].workload.key(), workloads[0].key());
  EXPECT_EQ(counts[0].count, 2);  // m1 and m2 compute the same 4x8x8 product
  EXPECT_EQ(counts[1].workload.key(), workloads[1].key());
  EXPECT_EQ(counts[1].count, 1);
}

}  // namespace
}  // namespace nee
