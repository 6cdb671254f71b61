#include <gtest/gtest.h>

#include "core/matmul_workload.h"
#include "core/resize_workload.h"
#include "core/strided_copy_workload.h"
#include "graph_builder.h"
#include "importer/import_onnx.h"
#include "onnx_model_builder.h"
#include "runtime/node_workload.h"
#include "runtime/passes/passes.h"

namespace nee {
namespace {

using test::add_node;
using test::f32;
using test::make_i64;
using test::OnnxModelBuilder;
using test::set_attr;
using test::set_string_attr;

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

// The workload of the imported model's only node.
std::optional<Workload> workload_of_only_node(const OnnxModelBuilder& m) {
  const Graph g = import_onnx_bytes(m.bytes());
  EXPECT_EQ(g.nodes().size(), 1u);
  return workload_of(g, g.nodes().at(0));
}

Workload strided_copy(const std::vector<int64_t>& in, const std::vector<int64_t>& perm,
                      const std::vector<int64_t>& starts, const std::vector<int64_t>& steps,
                      const std::vector<int64_t>& out) {
  return make_strided_copy_workload(f32(in), StridedCopyAttrs{perm, starts, steps}, out);
}

// A Resize of the two innermost dims, linear or nearest, is the resize family's: its
// scales from the scales input, or the output's extents over the input's where sizes
// were given. Cubic interpolation, tf_crop_and_resize, opset 18's antialiasing, opset 19's
// half_pixel_symmetric and a resize of an outer dim stay on the reference kernels.
TEST(NodeWorkload, ResizeOfThePlaneMapsToTheResizeFamily) {
  const auto resize = [](const std::vector<float>& scales, const std::string& mode, const std::string& coordinates,
                         int64_t antialias = 0) {
    OnnxModelBuilder m(19);
    m.input("x", {1, 3, 5, 7}).output("y");
    m.initializer("scales", test::make_f32({4}, scales));
    onnx::NodeProto& node = m.node("Resize", {"x", "", "scales"}, {"y"});
    set_string_attr(node, "mode", mode);
    set_string_attr(node, "coordinate_transformation_mode", coordinates);
    set_attr(node, "antialias", antialias);
    return workload_of_only_node(m);
  };
  const auto up = resize({1, 1, 2, 1.5f}, "linear", "pytorch_half_pixel");
  ASSERT_TRUE(up);
  EXPECT_EQ(up->op, "resize");
  EXPECT_EQ(up->output.shape, (std::vector<int64_t>{1, 3, 10, 10}));
  EXPECT_EQ(resize_attrs(*up).scale_w, 1.5);
  EXPECT_EQ(resize_attrs(*up).coordinates, "pytorch_half_pixel");
  const auto nearest = resize({1, 1, 2, 2}, "nearest", "asymmetric");
  ASSERT_TRUE(nearest);
  EXPECT_EQ(resize_attrs(*nearest).nearest_mode, "round_prefer_floor");
  EXPECT_FALSE(resize({1, 1, 2, 2}, "cubic", "half_pixel"));
  EXPECT_FALSE(resize({1, 2, 1, 1}, "linear", "half_pixel"));
  EXPECT_TRUE(resize({1, 1, 0.5f, 0.5f}, "linear", "half_pixel"));
  EXPECT_FALSE(resize({1, 1, 0.5f, 0.5f}, "linear", "half_pixel", 1));
  EXPECT_FALSE(resize({1, 1, 0.5f, 0.5f}, "linear", "half_pixel_symmetric"));

  OnnxModelBuilder by_sizes(13);
  by_sizes.input("x", {1, 3, 5, 7}).output("y");
  by_sizes.initializer("sizes", make_i64({4}, {1, 3, 4, 21}));
  set_string_attr(by_sizes.node("Resize", {"x", "", "", "sizes"}, {"y"}), "mode", "linear");
  const auto sized = workload_of_only_node(by_sizes);
  ASSERT_TRUE(sized);
  EXPECT_EQ(resize_attrs(*sized).scale_h, 0.8);
  EXPECT_EQ(resize_attrs(*sized).scale_w, 3.0);
}

TEST(NodeWorkload, TransposeMapsToStridedCopy) {
  OnnxModelBuilder m;
  m.input("x", {1, 7, 3, 13}).output("y");
  set_attr(m.node("Transpose", {"x"}, {"y"}), "perm", std::vector<int64_t>{0, 2, 3, 1});
  const auto w = workload_of_only_node(m);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->key(), strided_copy({1, 7, 3, 13}, {0, 2, 3, 1}, {0, 0, 0, 0}, {1, 1, 1, 1}, {1, 3, 13, 7}).key());
  EXPECT_EQ(w->output.shape, (std::vector<int64_t>{1, 3, 13, 7}));
  EXPECT_EQ(w->flops(), 0.0);
}

TEST(NodeWorkload, TransposeWithoutPermReversesTheDims) {
  OnnxModelBuilder m;
  m.input("x", {2, 5, 3}).output("y");
  m.node("Transpose", {"x"}, {"y"});
  const auto w = workload_of_only_node(m);
  ASSERT_TRUE(w);
  EXPECT_EQ(strided_copy_attrs(*w).perm, (std::vector<int64_t>{2, 1, 0}));
  EXPECT_EQ(w->output.shape, (std::vector<int64_t>{3, 5, 2}));

  // A hand-built node without the attribute reads it the same way.
  Graph g;
  g.add_value("x", f32({2, 5, 3}));
  g.add_input("x");
  add_node(g, "Transpose", "t", {"x"}, "y", f32({3, 5, 2}));
  const auto hand_built = workload_of(g, g.nodes()[0]);
  ASSERT_TRUE(hand_built);
  EXPECT_EQ(hand_built->key(), w->key());
}

// Negative starts and ends count from the end, out-of-range ones are clamped, axes may
// be negative and name a subset of the dims in any order.
TEST(NodeWorkload, SliceMapsWithOnnxClamping) {
  OnnxModelBuilder m;
  m.input("x", {4, 10, 6}).output("y");
  m.initializer("starts", make_i64({2}, {1, -8}));
  m.initializer("ends", make_i64({2}, {100, -1}));
  m.initializer("axes", make_i64({2}, {-1, 1}));
  m.initializer("steps", make_i64({2}, {1, 2}));
  m.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
  const auto w = workload_of_only_node(m);
  ASSERT_TRUE(w);
  // Axis 1: indices 2, 4, 6, 8 (from 10 - 8 up to 10 - 1); axis 2: 1 to the end.
  EXPECT_EQ(w->key(), strided_copy({4, 10, 6}, {0, 1, 2}, {0, 2, 1}, {1, 2, 1}, {4, 4, 5}).key());
  EXPECT_EQ(w->inputs.size(), 1u) << "the constants are attributes, not operands";

  OnnxModelBuilder below;
  below.input("x", {4, 10}).output("y");
  below.initializer("starts", make_i64({1}, {-100}));
  below.initializer("ends", make_i64({1}, {3}));
  below.node("Slice", {"x", "starts", "ends"}, {"y"});
  const auto clamped = workload_of_only_node(below);
  ASSERT_TRUE(clamped);
  EXPECT_EQ(clamped->key(), strided_copy({4, 10}, {0, 1}, {0, 0}, {1, 1}, {3, 10}).key());
}

TEST(NodeWorkload, SliceOfTheLastAxisWithOpset9Attributes) {
  OnnxModelBuilder m(9);
  m.input("x", {3, 12}).output("y");
  auto& n = m.node("Slice", {"x"}, {"y"});
  set_attr(n, "starts", std::vector<int64_t>{-9});
  set_attr(n, "ends", std::vector<int64_t>{1000});
  set_attr(n, "axes", std::vector<int64_t>{-1});
  const auto w = workload_of_only_node(m);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->key(), strided_copy({3, 12}, {0, 1}, {0, 3}, {1, 1}, {3, 9}).key());
}

TEST(NodeWorkload, SliceWithNegativeStepStaysOnTheReference) {
  OnnxModelBuilder m;
  m.input("x", {3, 4}).output("y");
  m.initializer("starts", make_i64({1}, {-1}));
  m.initializer("ends", make_i64({1}, {-100}));
  m.initializer("axes", make_i64({1}, {1}));
  m.initializer("steps", make_i64({1}, {-1}));
  m.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
  EXPECT_FALSE(workload_of_only_node(m));
}

// The importer refuses a Slice whose starts are not a constant (importer tests); a
// hand-built one, whose starts and steps were never resolved, maps to nothing.
TEST(NodeWorkload, SliceWithNonConstantStartsDoesNotMap) {
  Graph g;
  g.add_value("x", f32({3, 4}));
  g.add_input("x");
  g.add_value("starts", TensorType{DType::i64, {1}});
  g.add_input("starts");
  g.add_constant("ends", make_i64({1}, {2}));
  add_node(g, "Slice", "s", {"x", "starts", "ends"}, "y", f32({2, 4}));
  EXPECT_FALSE(workload_of(g, g.nodes()[0]));
}

TEST(NodeWorkload, NonFloatTransposeAndEmptySliceDoNotMap) {
  OnnxModelBuilder ints;
  ints.input("x", onnx::TensorProto::INT64, {"2", "3"}).output("y", onnx::TensorProto::INT64);
  ints.node("Transpose", {"x"}, {"y"});
  EXPECT_FALSE(workload_of_only_node(ints));

  OnnxModelBuilder empty;
  empty.input("x", {4, 10}).output("y");
  empty.initializer("starts", make_i64({1}, {5}));
  empty.initializer("ends", make_i64({1}, {2}));
  empty.node("Slice", {"x", "starts", "ends"}, {"y"});
  EXPECT_FALSE(workload_of_only_node(empty));
}

TEST(NodeWorkload, ExtractFindsTransposesAndSlices) {
  OnnxModelBuilder m;
  m.input("x", {6, 8}).output("y");
  m.initializer("starts", make_i64({1}, {2}));
  m.initializer("ends", make_i64({1}, {6}));
  m.initializer("axes", make_i64({1}, {0}));
  m.node("Slice", {"x", "starts", "ends", "axes"}, {"s"});
  m.node("Transpose", {"s"}, {"t"});
  m.node("Transpose", {"t"}, {"y"});
  Graph g = import_onnx_bytes(m.bytes());
  optimize_graph(g);
  const auto counts = count_workloads(g);
  ASSERT_EQ(counts.size(), 3u);
  EXPECT_EQ(counts[0].workload.key(), strided_copy({6, 8}, {0, 1}, {2, 0}, {1, 1}, {4, 8}).key());
  EXPECT_EQ(counts[1].workload.key(), strided_copy({4, 8}, {1, 0}, {0, 0}, {1, 1}, {8, 4}).key());
  EXPECT_EQ(counts[2].workload.key(), strided_copy({8, 4}, {1, 0}, {0, 0}, {1, 1}, {4, 8}).key());
}

}  // namespace
}  // namespace nee
