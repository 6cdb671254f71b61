// Each fusion keeps the graph's output: the optimized session (fused) is compared with
// one that runs the graph as built (unfused), on random inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/resize_workload.h"
#include "fusion_check.h"
#include "graph_builder.h"
#include "runtime/node_workload.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"
#include "runtime/tensor_io.h"

namespace nee {
namespace {

using test::add_node;
using test::expect_fusion_preserves_outputs;
using test::random_inputs;
using test::f32;

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

Tensor test_scalar(float v) {
  Tensor t(DType::f32, {});
  *t.data_as<float>() = v;
  return t;
}

Graph einsum_graph(const std::string& equation, const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                   const std::vector<int64_t>& out) {
  Graph g;
  g.add_value("a", f32(a));
  g.add_value("b", f32(b));
  g.add_input("a");
  g.add_input("b");
  Attributes attrs;
  attrs.set("equation", equation);
  add_node(g, "Einsum", "einsum", {"a", "b"}, "p", f32(out), attrs);
  g.add_output("p");
  return g;
}

TEST(Passes, EinsumsThatAreBatchedProductsBecomeMatMuls) {
  // MaxViT's attention: Q K^T and then the weights times V, in five dims.
  EXPECT_EQ(expect_fusion_preserves_outputs(
                einsum_graph("B G H I D, B G H J D -> B G H I J", {1, 3, 2, 5, 4}, {1, 3, 2, 6, 4}, {1, 3, 2, 5, 6})),
            (Ops{"Transpose", "NeeMatMul"}));
  EXPECT_EQ(expect_fusion_preserves_outputs(
                einsum_graph("bghij,bghjd->bghid", {1, 3, 2, 5, 6}, {1, 3, 2, 6, 4}, {1, 3, 2, 5, 4})),
            (Ops{"NeeMatMul"}));
  // A in another order and the output transposed: a Transpose on each side of the product.
  EXPECT_EQ(expect_fusion_preserves_outputs(einsum_graph("kib,bkj->jbi", {4, 5, 3}, {3, 4, 6}, {6, 3, 5})),
            (Ops{"Transpose", "NeeMatMul", "Transpose"}));
  // Several free or summed labels: the operands viewed as matrices, the product viewed
  // back. "bij,jk->bik" is a Linear layer's weights; "bnhd,hdo->bno" an attention output
  // projection over heads and depth.
  EXPECT_EQ(expect_fusion_preserves_outputs(einsum_graph("bij,jk->bik", {2, 3, 4}, {4, 5}, {2, 3, 5})),
            (Ops{"Reshape", "NeeMatMul", "Reshape"}));
  EXPECT_EQ(expect_fusion_preserves_outputs(einsum_graph("bnhd,hdo->bno", {2, 3, 4, 5}, {4, 5, 6}, {2, 3, 6})),
            (Ops{"Reshape", "Reshape", "NeeMatMul", "Reshape"}));
  EXPECT_EQ(expect_fusion_preserves_outputs(einsum_graph("ij,kj->ik", {3, 4}, {5, 4}, {3, 5})),
            (Ops{"Transpose", "NeeMatMul"}));
  // An elementwise product, a diagonal and a label summed within one operand are not
  // matrix products.
  EXPECT_EQ(expect_fusion_preserves_outputs(einsum_graph("ij,jk->i", {3, 4}, {4, 5}, {3})), (Ops{"Einsum"}));
  EXPECT_EQ(expect_fusion_preserves_outputs(einsum_graph("ij,ij->ij", {3, 4}, {3, 4}, {3, 4})), (Ops{"Einsum"}));
  EXPECT_EQ(expect_fusion_preserves_outputs(einsum_graph("ii,ij->ij", {3, 3}, {3, 4}, {3, 4})), (Ops{"Einsum"}));
}

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
  // The batch dim over the shared B folds into rows: views of A and of the product.
  EXPECT_EQ(expect_fusion_preserves_outputs(g), (Ops{"Reshape", "NeeMatMul", "Reshape"}));
  Graph optimized = g;
  optimize_graph(optimized);
  const Node& node = optimized.nodes()[1];
  EXPECT_EQ(node.inputs, (std::vector<std::string>{"a.rows", "b", "bias"}));
  EXPECT_EQ(optimized.type_of("a.rows").shape, (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(optimized.type_of(node.outputs[0]).shape, (std::vector<int64_t>{6, 5}));
  EXPECT_EQ(node.attrs.get_int("relu"), 1);
  EXPECT_FALSE(optimized.has_value("p"));
}

TEST(Passes, BatchDimsFoldOnlyOverASharedUntransposedB) {
  // [4,1,8] x [8,6] (BERT's input projection, one row per batch): one 4-row product.
  Graph rows = matmul_graph({4, 1, 8}, {8, 6}, {4, 1, 6});
  rows.add_output("p");
  EXPECT_EQ(expect_fusion_preserves_outputs(rows), (Ops{"Reshape", "NeeMatMul", "Reshape"}));
  // A batched B, or a bias with rows, keeps the batched product.
  Graph batched = matmul_graph({2, 3, 4}, {2, 4, 5}, {2, 3, 5});
  batched.add_output("p");
  EXPECT_EQ(expect_fusion_preserves_outputs(batched), Ops{"NeeMatMul"});
  Graph row_bias = matmul_graph({2, 3, 4}, {4, 5}, {2, 3, 5});
  row_bias.add_constant("bias", random_tensor(f32({3, 5}), 5));
  add_node(row_bias, "Add", "add", {"p", "bias"}, "y", f32({2, 3, 5}));
  row_bias.add_output("y");
  EXPECT_EQ(expect_fusion_preserves_outputs(row_bias), Ops{"NeeMatMul"});
}

TEST(Passes, AddThatWidensTheProductIsNotFused) {
  Graph g = matmul_graph({3, 4}, {4, 1}, {3, 1});
  g.add_value("wide", f32({3, 6}));
  g.add_input("wide");
  add_node(g, "Add", "add", {"p", "wide"}, "y", f32({3, 6}));
  g.add_output("y");
  EXPECT_EQ(expect_fusion_preserves_outputs(g), (Ops{"NeeMatMul", "NeeElementwise"}));
}

TEST(Passes, ProductWithTwoReadersIsNotFused) {
  Graph g = matmul_graph({3, 4}, {4, 2}, {3, 2});
  g.add_constant("bias", random_tensor(f32({2}), 4));
  add_node(g, "Add", "add", {"p", "bias"}, "y", f32({3, 2}));
  add_node(g, "Relu", "relu", {"p"}, "z", f32({3, 2}));
  g.add_output("y");
  g.add_output("z");
  EXPECT_EQ(expect_fusion_preserves_outputs(g), (Ops{"NeeMatMul", "NeeElementwise", "NeeElementwise"}));
}

TEST(Passes, ProductThatIsAGraphOutputIsNotFused) {
  Graph g = matmul_graph({3, 4}, {4, 2}, {3, 2});
  add_node(g, "Relu", "relu", {"p"}, "y", f32({3, 2}));
  g.add_output("p");
  g.add_output("y");
  EXPECT_EQ(expect_fusion_preserves_outputs(g), (Ops{"NeeMatMul", "NeeElementwise"}));
}

TEST(Passes, VectorMatMulStaysMatMul) {
  Graph g = matmul_graph({4}, {4, 3}, {3});
  g.add_output("p");
  EXPECT_EQ(expect_fusion_preserves_outputs(g), Ops{"MatMul"});
}

// ReduceMeans over H and W become GlobalAveragePools (with a Flatten where the mean drops
// the dims); a mean over the channels stays.
TEST(Passes, MeansOverTheMapBecomeGlobalAveragePools) {
  Graph g;
  g.add_value("x", f32({2, 5, 3, 4}));
  g.add_input("x");
  const auto mean = [&g](const std::string& name, std::vector<int64_t> axes, int64_t keep,
                         const std::vector<int64_t>& out) {
    Attributes attrs;
    attrs.set("axes", std::move(axes));
    attrs.set("keepdims", keep);
    add_node(g, "ReduceMean", name, {"x"}, name + "_out", f32(out), attrs);
    g.add_output(name + "_out");
  };
  mean("dropped", {2, 3}, 0, {2, 5});
  mean("kept", {2, 3}, 1, {2, 5, 1, 1});
  mean("channels", {1}, 1, {2, 1, 3, 4});
  GraphOptions options;
  options.means_as_global_pools = true;
  Ops ops = expect_fusion_preserves_outputs(g, options);
  std::sort(ops.begin(), ops.end());
  EXPECT_EQ(ops, (Ops{"Flatten", "GlobalAveragePool", "GlobalAveragePool", "ReduceMean"}));
  EXPECT_EQ(expect_fusion_preserves_outputs(g), (Ops{"ReduceMean", "ReduceMean", "ReduceMean"}));
}

TEST(Passes, IdentityIsRemoved) {
  Graph g;
  g.add_value("x", f32({2, 2}));
  g.add_input("x");
  add_node(g, "Identity", "id1", {"x"}, "i", f32({2, 2}));
  add_node(g, "Relu", "relu", {"i"}, "r", f32({2, 2}));
  add_node(g, "Identity", "id2", {"r"}, "y", f32({2, 2}));
  g.add_output("y");
  EXPECT_EQ(expect_fusion_preserves_outputs(g), Ops{"NeeElementwise"});
  Graph optimized = g;
  optimize_graph(optimized);
  EXPECT_EQ(optimized.nodes()[0].inputs[0], "x");
  EXPECT_EQ(optimized.nodes()[0].outputs[0], "y");
}

TEST(Passes, APadOfNothingIsRemovedAndARealOneStays) {
  Graph g;
  g.add_value("x", f32({1, 2, 3, 3}));
  g.add_input("x");
  Attributes none, some;
  none.set("mode", std::string("constant"));
  none.set("pads", std::vector<int64_t>(8, 0));
  some.set("mode", std::string("constant"));
  some.set("pads", std::vector<int64_t>{0, 0, 1, 0, 0, 0, 0, 1});
  add_node(g, "Relu", "relu", {"x"}, "r", f32({1, 2, 3, 3}));
  add_node(g, "Pad", "pad_nothing", {"r"}, "p", f32({1, 2, 3, 3}), none);
  add_node(g, "Pad", "pad_some", {"p"}, "y", f32({1, 2, 4, 4}), some);
  g.add_output("y");
  EXPECT_EQ(expect_fusion_preserves_outputs(g), (Ops{"NeeElementwise", "Pad"}));
}

// With remove_whole_slices a Slice of every channel (GhostNet's cut of its concatenation to
// the count it already has) goes; one that drops a channel, or reads them reversed, stays.
TEST(Passes, ASliceOfEverythingIsRemovedAndRealOnesStay) {
  GraphOptions options;
  options.remove_whole_slices = true;
  const auto sliced = [](const std::vector<int64_t>& starts, const std::vector<int64_t>& steps, int64_t channels) {
    Graph g;
    g.add_value("x", f32({1, 4, 3, 3}));
    g.add_input("x");
    Attributes a;
    a.set("starts", starts);
    a.set("steps", steps);
    add_node(g, "Relu", "relu", {"x"}, "r", f32({1, 4, 3, 3}));
    add_node(g, "Slice", "slice", {"r"}, "s", f32({1, channels, 3, 3}), a);
    add_node(g, "Sigmoid", "sigmoid", {"s"}, "y", f32({1, channels, 3, 3}));
    g.add_output("y");
    return g;
  };
  EXPECT_EQ(expect_fusion_preserves_outputs(sliced({0, 0, 0, 0}, {1, 1, 1, 1}, 4), options), Ops{"NeeElementwise"});
  EXPECT_EQ(expect_fusion_preserves_outputs(sliced({0, 0, 0, 0}, {1, 1, 1, 1}, 3), options),
            (Ops{"NeeElementwise", "Slice", "NeeElementwise"}));
  EXPECT_EQ(expect_fusion_preserves_outputs(sliced({0, 3, 0, 0}, {1, -1, 1, 1}, 4), options),
            (Ops{"NeeElementwise", "Slice", "NeeElementwise"}));
  // Without the option (bundles from before it) the whole slice stays.
  EXPECT_EQ(expect_fusion_preserves_outputs(sliced({0, 0, 0, 0}, {1, 1, 1, 1}, 4)),
            (Ops{"NeeElementwise", "Slice", "NeeElementwise"}));
}

// With batch_norms_of_matrices a BatchNormalization of a matrix [N, C] (LeViT's BatchNorm1d
// over its tokens) runs as Mul and Add, fused with the Relu after it; one of [N, C, L]
// stays a BatchNormalization, as the matrix's does without the option.
TEST(Passes, BatchNormsOfMatricesRunAsMulAndAdd) {
  const auto normed = [](const std::vector<int64_t>& shape) {
    Graph g;
    g.add_value("x", f32(shape));
    g.add_input("x");
    const int64_t channels = shape[1];
    g.add_constant("scale", random_tensor(f32({channels}), 61));
    g.add_constant("bias", random_tensor(f32({channels}), 62));
    g.add_constant("mean", random_tensor(f32({channels}), 63));
    Tensor variance = random_tensor(f32({channels}), 64);
    float* v = variance.data_as<float>();
    for (int64_t c = 0; c < channels; ++c) v[c] = 0.5f + std::abs(v[c]);
    g.add_constant("variance", variance);
    Attributes epsilon;
    epsilon.set("epsilon", 1e-3f);
    add_node(g, "BatchNormalization", "bn", {"x", "scale", "bias", "mean", "variance"}, "n", f32(shape), epsilon);
    add_node(g, "Relu", "relu", {"n"}, "y", f32(shape));
    g.add_output("y");
    return g;
  };
  GraphOptions options;
  options.block_elementwise = true;
  options.batch_norms_of_matrices = true;
  EXPECT_EQ(expect_fusion_preserves_outputs(normed({6, 24}), options), Ops{"NeeElementwise"});
  EXPECT_EQ(expect_fusion_preserves_outputs(normed({2, 24, 5}), options),
            (Ops{"BatchNormalization", "NeeElementwise"}));
  options.batch_norms_of_matrices = false;
  EXPECT_EQ(expect_fusion_preserves_outputs(normed({6, 24}), options), (Ops{"BatchNormalization", "NeeElementwise"}));
}

// x [1,3,6,6] -> Pad `pads` with `fill` -> `pool` 3x3, stride 1, `pool_pads`,
// `count_include_pad` -> y.
// The input x of `x_shape` -> Pad `pads` (constant mode, `fill`) -> "padded"; returns
// the padded shape.
std::vector<int64_t> add_input_and_pad(Graph& g, const std::vector<int64_t>& x_shape,
                                       const std::vector<int64_t>& pads, float fill) {
  g.add_value("x", f32(x_shape));
  g.add_input("x");
  g.add_constant("fill", test_scalar(fill));
  Attributes p;
  p.set("mode", std::string("constant"));
  p.set("pads", pads);
  std::vector<int64_t> padded = x_shape;
  for (size_t d = 0; d < x_shape.size(); ++d) padded[d] += pads[d] + pads[x_shape.size() + d];
  add_node(g, "Pad", "pad", {"x", "", "fill"}, "padded", f32(padded), p);
  return padded;
}

Graph pad_then_pool(const std::vector<int64_t>& pads, float fill, const std::string& pool,
                    const std::vector<int64_t>& pool_pads, int64_t count_include_pad) {
  Graph g;
  const std::vector<int64_t> padded = add_input_and_pad(g, {1, 3, 6, 6}, pads, fill);
  const int64_t h = padded[2], w = padded[3];
  Attributes a;
  a.set("kernel_shape", std::vector<int64_t>{3, 3});
  a.set("strides", std::vector<int64_t>{1, 1});
  a.set("dilations", std::vector<int64_t>{1, 1});
  a.set("pads", pool_pads);
  a.set("ceil_mode", int64_t{0});
  if (pool == "AveragePool") a.set("count_include_pad", count_include_pad);
  if (pool == "MaxPool") a.set("storage_order", int64_t{0});
  const int64_t oh = h + pool_pads[0] + pool_pads[2] - 2, ow = w + pool_pads[1] + pool_pads[3] - 2;
  add_node(g, pool, "pool", {"padded"}, "y", f32({1, padded[1], oh, ow}), a);
  g.add_output("y");
  return g;
}

// Inception-v3's avg_pool2d(3, stride 1, padding 1) as PyTorch exports it: a Pad of zeros,
// then an unpadded AveragePool. The pool takes the padding over, counted in its divisors.
TEST(Passes, AZeroPadBeforeAnAveragePoolBecomesItsPadding) {
  const std::vector<int64_t> one_all_round = {0, 0, 1, 1, 0, 0, 1, 1};
  const Graph g = pad_then_pool(one_all_round, 0.0f, "AveragePool", {0, 0, 0, 0}, 0);
  EXPECT_EQ(expect_fusion_preserves_outputs(g), Ops{"AveragePool"});
  Graph optimized = g;
  optimize_graph(optimized);
  EXPECT_EQ(optimized.nodes()[0].inputs[0], "x");
  EXPECT_EQ(optimized.nodes()[0].attrs.get_ints("pads"), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(optimized.nodes()[0].attrs.get_int("count_include_pad"), 1);
  // Uneven padding adds to a pool's own, where the pool counts its own padding too.
  EXPECT_EQ(expect_fusion_preserves_outputs(
                pad_then_pool({0, 0, 0, 1, 0, 0, 1, 0}, 0.0f, "AveragePool", {1, 0, 0, 1}, 1)),
            Ops{"AveragePool"});
}

TEST(Passes, PadsThatAreNotAPoolsZerosStay) {
  const std::vector<int64_t> one_all_round = {0, 0, 1, 1, 0, 0, 1, 1};
  // A fill of 1 is not the zeros a pool's padding counts.
  EXPECT_EQ(expect_fusion_preserves_outputs(pad_then_pool(one_all_round, 1.0f, "AveragePool", {0, 0, 0, 0}, 0)),
            (Ops{"Pad", "AveragePool"}));
  // A max over zeros is not a max over padding.
  EXPECT_EQ(expect_fusion_preserves_outputs(pad_then_pool(one_all_round, 0.0f, "MaxPool", {0, 0, 0, 0}, 0)),
            (Ops{"Pad", "MaxPool"}));
  // The pool leaves its own padding out of the divisor, but would count the Pad's.
  EXPECT_EQ(expect_fusion_preserves_outputs(pad_then_pool(one_all_round, 0.0f, "AveragePool", {1, 1, 1, 1}, 0)),
            (Ops{"Pad", "AveragePool"}));
  // Padding the channels is not the pool's.
  EXPECT_EQ(expect_fusion_preserves_outputs(
                pad_then_pool({0, 1, 0, 0, 0, 0, 0, 0}, 0.0f, "AveragePool", {0, 0, 0, 0}, 0)),
            (Ops{"Pad", "AveragePool"}));
  // Three rows of padding would make whole windows of padding.
  EXPECT_EQ(expect_fusion_preserves_outputs(
                pad_then_pool({0, 0, 3, 0, 0, 0, 0, 0}, 0.0f, "AveragePool", {0, 0, 0, 0}, 0)),
            (Ops{"Pad", "AveragePool"}));
}

// x -> Pad `pads` (of x's rank) with `fill` -> Conv of `kernel` (dilated by `dilation`,
// its own `conv_pads`) -> y.
Graph pad_then_conv(const std::vector<int64_t>& x_shape, const std::vector<int64_t>& pads, float fill,
                    const std::vector<int64_t>& kernel, int64_t dilation, const std::vector<int64_t>& conv_pads) {
  Graph g;
  const std::vector<int64_t> padded = add_input_and_pad(g, x_shape, pads, fill);
  const size_t dims = x_shape.size() - 2;
  std::vector<int64_t> y_shape = {x_shape[0], 5};
  for (size_t d = 0; d < dims; ++d) {
    y_shape.push_back(padded[d + 2] + conv_pads[d] + conv_pads[dims + d] - (kernel[d] - 1) * dilation);
  }
  std::vector<int64_t> w_shape = {5, padded[1]};
  w_shape.insert(w_shape.end(), kernel.begin(), kernel.end());
  g.add_constant("w", random_tensor(f32(w_shape), 31));
  Attributes a;
  a.set("kernel_shape", kernel);
  a.set("strides", std::vector<int64_t>(dims, 1));
  a.set("dilations", std::vector<int64_t>(dims, dilation));
  a.set("pads", conv_pads);
  a.set("group", int64_t{1});
  add_node(g, "Conv", "conv", {"padded", "w"}, "y", f32(y_shape), a);
  g.add_output("y");
  return g;
}

// A WaveNet's causal Pad before a dilated 1-D conv, and an uneven 2-D Pad before a padded
// conv, become the convs' padding with GraphOptions::fold_pads_into_convs.
TEST(Passes, AZeroPadBeforeAConvBecomesItsPadding) {
  GraphOptions options;
  options.fold_pads_into_convs = true;
  const Graph causal = pad_then_conv({1, 4, 20}, {0, 0, 3, 0, 0, 0}, 0.0f, {2}, 3, {0, 0});
  const Graph uneven = pad_then_conv({1, 3, 6, 6}, {0, 0, 0, 1, 0, 0, 1, 0}, 0.0f, {3, 3}, 1, {1, 1, 1, 1});
  for (const Graph* g : {&causal, &uneven}) {
    SCOPED_TRACE(g == &causal ? "causal" : "uneven");
    const Ops ops = expect_fusion_preserves_outputs(*g, options);
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "Pad"), 0);
    // Without the option (bundles from before it) the Pad stays.
    const Ops unfolded = expect_fusion_preserves_outputs(*g);
    EXPECT_EQ(std::count(unfolded.begin(), unfolded.end(), "Pad"), 1);
  }
  Graph folded = causal;
  optimize_graph(folded, options);
  for (const Node& n : folded.nodes()) {
    if (n.op == "NeeConv") {
      EXPECT_EQ(n.attrs.get_ints("pads"), (std::vector<int64_t>{0, 3, 0, 0}));  // as rows
    }
  }
  // A fill of 1 is not a conv's zero padding, nor is a pad of the channels; four columns
  // of padding would make whole windows of padding.
  for (const Graph& stays : {pad_then_conv({1, 4, 20}, {0, 0, 3, 0, 0, 0}, 1.0f, {2}, 3, {0, 0}),
                             pad_then_conv({1, 4, 20}, {0, 1, 0, 0, 0, 0}, 0.0f, {2}, 1, {0, 0}),
                             pad_then_conv({1, 4, 20}, {0, 0, 4, 0, 0, 0}, 0.0f, {2}, 3, {0, 0})}) {
    const Ops ops = expect_fusion_preserves_outputs(stays, options);
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "Pad"), 1);
  }
}

// A Conv's attributes as the importer makes them explicit: 3x3, stride 1, `pad` all round.
Attributes conv3x3_attrs(int64_t pad) {
  Attributes conv;
  conv.set("kernel_shape", std::vector<int64_t>{3, 3});
  conv.set("strides", std::vector<int64_t>{1, 1});
  conv.set("dilations", std::vector<int64_t>{1, 1});
  conv.set("pads", std::vector<int64_t>{pad, pad, pad, pad});
  conv.set("group", int64_t{1});
  return conv;
}

// An ESRGAN's or U-Net's upsamplings between convs: with block_resizes a nearest Resize by
// scales and a linear one to sizes resize the convs' blocked outputs, with no layout copy,
// as resize-family workloads over the lanes.
TEST(Passes, ResizesBetweenBlockedConvsResizeTheBlockedTensor) {
  Graph g;
  g.add_value("x", f32({1, 16, 5, 6}));
  g.add_input("x");
  const Attributes conv = conv3x3_attrs(1);
  g.add_constant("w1", random_tensor(f32({32, 16, 3, 3}), 43));
  g.add_constant("w2", random_tensor(f32({16, 32, 3, 3}), 44));
  g.add_constant("w3", random_tensor(f32({8, 16, 3, 3}), 45));
  const auto resize = [](const std::string& mode, const std::string& coordinates) {
    Attributes a;
    a.set("mode", mode);
    a.set("coordinate_transformation_mode", coordinates);
    a.set("nearest_mode", std::string("floor"));
    a.set("cubic_coeff_a", -0.75f);
    a.set("exclude_outside", int64_t{0});
    a.set("extrapolation_value", 0.0f);
    return a;
  };
  add_node(g, "Conv", "conv1", {"x", "w1"}, "c1", f32({1, 32, 5, 6}), conv);
  Attributes nearest = resize("nearest", "asymmetric");
  nearest.set("scales", std::vector<float>{1, 1, 2, 2});
  add_node(g, "Resize", "up_nearest", {"c1"}, "u1", f32({1, 32, 10, 12}), nearest);
  add_node(g, "Conv", "conv2", {"u1", "w2"}, "c2", f32({1, 16, 10, 12}), conv);
  add_node(g, "Resize", "up_linear", {"c2"}, "u2", f32({1, 16, 17, 13}), resize("linear", "pytorch_half_pixel"));
  add_node(g, "Conv", "conv3", {"u2", "w3"}, "y", f32({1, 8, 17, 13}), conv);
  g.add_output("y");
  GraphOptions options;
  options.block_activations = options.block_resizes = true;
  const Ops ops = expect_fusion_preserves_outputs(g, options);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "NeeLayout"), 0);
  Graph blocked = g;
  optimize_graph(blocked, options);
  std::map<std::string, std::vector<int64_t>> resized;
  for (const Node& n : blocked.nodes()) {
    if (n.op != "Resize") continue;
    resized[n.name] = blocked.type_of(n.outputs[0]).shape;
    const std::optional<Workload> w = workload_of(blocked, n);
    ASSERT_TRUE(w.has_value()) << n.name;
    EXPECT_EQ(resize_attrs(*w).lanes, 16) << n.name;
    EXPECT_DOUBLE_EQ(resize_attrs(*w).scale_h, n.name == "up_nearest" ? 2.0 : 17.0 / 10.0) << n.name;
  }
  EXPECT_EQ(resized, (std::map<std::string, std::vector<int64_t>>{{"up_nearest", {1, 2, 10, 12, 16}},
                                                                   {"up_linear", {1, 1, 17, 13, 16}}}));
  // Without the option (bundles from before it) the Resizes read NCHW.
  options.block_resizes = false;
  Graph plain = g;
  optimize_graph(plain, options);
  for (const Node& n : plain.nodes()) {
    if (n.op == "Resize") {
      EXPECT_EQ(plain.type_of(n.outputs[0]).shape.size(), 4u) << n.name;
    }
  }
}

// A style-transfer CNN's reflection Pad between two convs: with block_pads it pads the
// first conv's blocked output for the second, with no layout copy between.
TEST(Passes, APadBetweenBlockedConvsPadsTheBlockedTensor) {
  Graph g;
  g.add_value("x", f32({1, 16, 6, 7}));
  g.add_input("x");
  const Attributes conv = conv3x3_attrs(0);
  g.add_constant("w1", random_tensor(f32({32, 16, 3, 3}), 41));
  g.add_constant("w2", random_tensor(f32({8, 32, 3, 3}), 42));
  add_node(g, "Conv", "conv1", {"x", "w1"}, "c1", f32({1, 32, 4, 5}), conv);
  Attributes reflect;
  reflect.set("mode", std::string("reflect"));
  reflect.set("pads", std::vector<int64_t>{0, 0, 2, 1, 0, 0, 1, 2});
  add_node(g, "Pad", "pad", {"c1"}, "padded", f32({1, 32, 7, 8}), reflect);
  add_node(g, "Conv", "conv2", {"padded", "w2"}, "y", f32({1, 8, 5, 6}), conv);
  g.add_output("y");
  GraphOptions options;
  options.block_activations = options.block_pads = true;
  const Ops ops = expect_fusion_preserves_outputs(g, options);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "NeeLayout"), 0);
  Graph blocked = g;
  optimize_graph(blocked, options);
  for (const Node& n : blocked.nodes()) {
    if (n.op == "Pad") {
      EXPECT_EQ(blocked.type_of(n.outputs[0]).shape, (std::vector<int64_t>{1, 2, 7, 8, 16}));
    }
  }
  // Without the option (bundles from before it) the Pad reads NCHW.
  options.block_pads = false;
  Graph plain = g;
  optimize_graph(plain, options);
  for (const Node& n : plain.nodes()) {
    if (n.op == "Pad") {
      EXPECT_EQ(plain.type_of(n.outputs[0]).shape, (std::vector<int64_t>{1, 32, 7, 8}));
    }
  }
}

TEST(Passes, IdentityFromInputToOutputStays) {
  Graph g;
  g.add_value("x", f32({2}));
  g.add_input("x");
  add_node(g, "Identity", "id", {"x"}, "y", f32({2}));
  g.add_output("y");
  EXPECT_EQ(expect_fusion_preserves_outputs(g), Ops{"Identity"});
}

// x [1,6,4] -> Transpose by `perm` to `shape` -> Relu -> y.
Graph transpose_then_relu(const std::vector<int64_t>& perm, const std::vector<int64_t>& shape) {
  Graph g;
  g.add_value("x", f32({1, 6, 4}));
  g.add_input("x");
  Attributes a;
  a.set("perm", perm);
  add_node(g, "Transpose", "transpose", {"x"}, "t", f32(shape), a);
  add_node(g, "Relu", "relu", {"t"}, "y", f32(shape));
  g.add_output("y");
  return g;
}

TEST(Passes, TransposeOfUnitDimsBecomesAReshape) {
  EXPECT_EQ(expect_fusion_preserves_outputs(transpose_then_relu({1, 0, 2}, {6, 1, 4})),
            (Ops{"Reshape", "NeeElementwise"}));
}

TEST(Passes, TransposeThatReordersElementsStays) {
  EXPECT_EQ(expect_fusion_preserves_outputs(transpose_then_relu({0, 2, 1}, {1, 4, 6})),
            (Ops{"Transpose", "NeeElementwise"}));
}

// x [2, 6, 20] -> Transpose (0, 2, 1) -> Reshape to `shape` -> Transpose by `perm` to
// `transposed` -> Flatten (axis 2) -> y.
Graph transposes_around_a_view(const std::vector<int64_t>& shape, const std::vector<int64_t>& perm,
                               const std::vector<int64_t>& transposed) {
  Graph g;
  g.add_value("x", f32({2, 6, 20}));
  g.add_input("x");
  Attributes first, second, flatten;
  first.set("perm", std::vector<int64_t>{0, 2, 1});
  second.set("perm", perm);
  flatten.set("axis", int64_t{2});
  add_node(g, "Transpose", "t1", {"x"}, "a", f32({2, 20, 6}), first);
  add_node(g, "Reshape", "view", {"a"}, "b", f32(shape));
  add_node(g, "Transpose", "t2", {"b"}, "c", f32(transposed), second);
  int64_t inner = 1;
  for (size_t k = 2; k < transposed.size(); ++k) inner *= transposed[k];
  add_node(g, "Flatten", "flat", {"c"}, "y", f32({transposed[0] * transposed[1], inner}), flatten);
  g.add_output("y");
  return g;
}

TEST(Passes, TransposesAroundViewsComposeIntoOne) {
  GraphOptions options;
  options.compose_transposes = true;
  // [2, 20, 6] viewed as [2, 4, 5, 6] cuts the 20 into 4 x 5: one Transpose of x viewed as
  // [2, 6, 4, 5], perm (0, 2, 1, 3), between views.
  Graph g = transposes_around_a_view({2, 4, 5, 6}, {0, 1, 3, 2}, {2, 4, 6, 5});
  EXPECT_EQ(expect_fusion_preserves_outputs(g, options), (Ops{"Reshape", "Transpose", "Reshape"}));
  optimize_graph(g, options);
  for (const Node& n : g.nodes()) {
    if (n.op != "Transpose") continue;
    EXPECT_EQ(g.type_of(n.inputs[0]).shape, (std::vector<int64_t>{2, 6, 4, 5}));
    EXPECT_EQ(n.attrs.get_ints("perm"), (std::vector<int64_t>{0, 2, 1, 3}));
  }
  // Transposed back, the chain is a view of x.
  EXPECT_EQ(expect_fusion_preserves_outputs(transposes_around_a_view({2, 20, 6}, {0, 2, 1}, {2, 6, 20}), options),
            Ops{"Reshape"});
  // [2, 20, 6] viewed as [2, 8, 15] cuts across the 20 and the 6: the chain stays.
  EXPECT_EQ(expect_fusion_preserves_outputs(transposes_around_a_view({2, 8, 15}, {0, 2, 1}, {2, 15, 8}), options),
            (Ops{"Transpose", "Reshape", "Transpose", "Flatten"}));
  // Without the option nothing composes.
  EXPECT_EQ(expect_fusion_preserves_outputs(transposes_around_a_view({2, 4, 5, 6}, {0, 1, 3, 2}, {2, 4, 6, 5})),
            (Ops{"Transpose", "Reshape", "Transpose", "Flatten"}));
}

// DepthToSpace in both modes and SpaceToDepth run as a Transpose between views, computing
// what the reference kernels compute for the op.
TEST(Passes, DepthAndSpaceMovesRunAsTransposes) {
  GraphOptions options;
  options.compose_transposes = true;
  for (const char* op : {"DepthToSpace", "SpaceToDepth"}) {
    for (const char* mode : {"DCR", "CRD"}) {
      Graph g;
      const bool to_space = std::string(op) == "DepthToSpace";
      g.add_value("x", f32({2, 12, 4, 6}));
      g.add_input("x");
      Attributes a;
      a.set("blocksize", int64_t{2});
      a.set("mode", std::string(mode));
      const std::vector<int64_t> moved =
          to_space ? std::vector<int64_t>{2, 3, 8, 12} : std::vector<int64_t>{2, 48, 2, 3};
      add_node(g, op, "move", {"x"}, "y", f32(moved), a);
      g.add_output("y");
      EXPECT_EQ(expect_fusion_preserves_outputs(g, options), (Ops{"Reshape", "Transpose", "Reshape"})) << op << mode;
    }
  }
}

Graph unary_input(const std::vector<int64_t>& shape) {
  Graph g;
  g.add_value("x", f32(shape));
  g.add_input("x");
  return g;
}

Attributes float_attr(const std::string& name, float v) {
  Attributes a;
  a.set(name, v);
  return a;
}

// PyTorch's GELU export after `x`: Div(x, sqrt 2), Erf, Add 1, Mul x, Mul 0.5.
void add_gelu(Graph& g, const std::string& x, const std::string& y, const TensorType& type) {
  g.add_constant("sqrt2", test_scalar(1.41421354f));
  g.add_constant("one", test_scalar(1.0f));
  g.add_constant("half", test_scalar(0.5f));
  add_node(g, "Div", "gelu_div", {x, "sqrt2"}, "g_div", type);
  add_node(g, "Erf", "gelu_erf", {"g_div"}, "g_erf", type);
  add_node(g, "Add", "gelu_add", {"g_erf", "one"}, "g_sum", type);
  add_node(g, "Mul", "gelu_mul", {x, "g_sum"}, "g_prod", type);
  add_node(g, "Mul", "gelu_half", {"g_prod", "half"}, y, type);
}

Node only_node(const Graph& g) {
  Graph optimized = g;
  optimize_graph(optimized);
  EXPECT_EQ(optimized.nodes().size(), 1u);
  return optimized.nodes().at(0);
}

TEST(Passes, ElementwiseChainBecomesOneNodeWithAProgram) {
  Graph g = unary_input({2, 3, 5});
  g.add_value("row", f32({5}));
  g.add_input("row");
  g.add_constant("three", test_scalar(3.0f));
  g.add_constant("lo", test_scalar(-0.5f));
  g.add_constant("hi", test_scalar(0.75f));
  add_node(g, "Mul", "scale", {"x", "three"}, "s", f32({2, 3, 5}));
  add_node(g, "Sub", "shift", {"s", "row"}, "d", f32({2, 3, 5}));
  add_node(g, "Tanh", "tanh", {"d"}, "t", f32({2, 3, 5}));
  add_node(g, "Clip", "clip", {"t", "lo", "hi"}, "c", f32({2, 3, 5}));
  add_node(g, "Add", "residual", {"c", "x"}, "y", f32({2, 3, 5}));
  g.add_output("y");
  EXPECT_EQ(expect_fusion_preserves_outputs(g), Ops{"NeeElementwise"});
  const Node node = only_node(g);
  EXPECT_EQ(node.inputs, (std::vector<std::string>{"x", "row"}));
  EXPECT_EQ(node.attrs.get_string("program"),
            "mul(x0,3); sub(t0,x1); tanh(t1); max(t2,-0.5); min(t3,0.75); add(t4,x0)");
  EXPECT_EQ(node.outputs[0], "y");
}

// A Cast to f32 of an f32 tensor (Hugging Face's around norms and softmaxes) is dropped
// with remove_same_type_casts, so the Mul and Relu around it fuse; a Cast that changes
// the type stays. Without the option (bundles from before it) both stay.
TEST(Passes, CastsToTheirInputsOwnTypeAreDropped) {
  Graph g = unary_input({3, 4});
  g.add_constant("two", test_scalar(2.0f));
  Attributes to_f32, to_i64;
  to_f32.set("to", int64_t{1});
  to_i64.set("to", int64_t{7});
  add_node(g, "Mul", "double", {"x", "two"}, "d", f32({3, 4}));
  add_node(g, "Cast", "same", {"d"}, "c", f32({3, 4}), to_f32);
  add_node(g, "Relu", "relu", {"c"}, "y", f32({3, 4}));
  add_node(g, "Cast", "other", {"y"}, "z", TensorType{DType::i64, {3, 4}}, to_i64);
  g.add_output("z");
  GraphOptions options;
  options.remove_same_type_casts = true;
  EXPECT_EQ(expect_fusion_preserves_outputs(g, options), (Ops{"NeeElementwise", "Cast"}));
  EXPECT_EQ(expect_fusion_preserves_outputs(g), (Ops{"NeeElementwise", "Cast", "NeeElementwise", "Cast"}));
}

TEST(Passes, ElementwiseActivationsAndPowFuse) {
  Graph g = unary_input({4, 7});
  g.add_constant("two", test_scalar(2.0f));
  add_node(g, "HardSwish", "hs", {"x"}, "a", f32({4, 7}));
  add_node(g, "LeakyRelu", "lr", {"a"}, "b", f32({4, 7}), float_attr("alpha", 0.2f));
  add_node(g, "Pow", "sq", {"b"}, "c", f32({4, 7}));
  g.nodes().back().inputs.push_back("two");
  Attributes hs;
  hs.set("alpha", 0.3f);
  hs.set("beta", 0.4f);
  add_node(g, "HardSigmoid", "hsig", {"c"}, "d", f32({4, 7}), hs);
  add_node(g, "Sigmoid", "sig", {"d"}, "e", f32({4, 7}));
  add_node(g, "Neg", "neg", {"e"}, "f", f32({4, 7}));
  add_node(g, "Exp", "exp", {"f"}, "y", f32({4, 7}));
  g.add_output("y");
  EXPECT_EQ(expect_fusion_preserves_outputs(g), Ops{"NeeElementwise"});
}

// PRelu is leaky_relu with its slope as an operand: a per-channel slope of [3, 1] stays
// an input slot, a one-element one becomes an immediate.
TEST(Passes, PReluFusesWithItsSlopeAsAnOperand) {
  Graph g = unary_input({2, 3, 5});
  g.add_constant("per_channel", random_tensor(f32({3, 1}), 6));
  g.add_constant("one", test_scalar(0.25f));
  add_node(g, "PRelu", "channels", {"x", "per_channel"}, "a", f32({2, 3, 5}));
  add_node(g, "Neg", "neg", {"a"}, "b", f32({2, 3, 5}));
  add_node(g, "PRelu", "shared", {"b", "one"}, "y", f32({2, 3, 5}));
  g.add_output("y");
  EXPECT_EQ(expect_fusion_preserves_outputs(g), Ops{"NeeElementwise"});
  const Node node = only_node(g);
  EXPECT_EQ(node.inputs, (std::vector<std::string>{"x", "per_channel"}));
  EXPECT_EQ(node.attrs.get_string("program"), "leaky_relu(x0,x1); neg(t0); leaky_relu(t1,0.25)");
}

TEST(Passes, SharedIntermediateSplitsTheTrees) {
  Graph g = unary_input({3, 4});
  add_node(g, "Exp", "exp", {"x"}, "e", f32({3, 4}));
  add_node(g, "Neg", "neg", {"e"}, "n", f32({3, 4}));
  add_node(g, "Mul", "mul", {"e", "n"}, "y", f32({3, 4}));
  g.add_output("y");
  // e has two readers: Exp stays its own tree, Neg and Mul form the other.
  EXPECT_EQ(expect_fusion_preserves_outputs(g), (Ops{"NeeElementwise", "NeeElementwise"}));
}

TEST(Passes, MatMulGeluBecomesOneNode) {
  Graph g = matmul_graph({6, 4}, {4, 6}, {6, 6});
  g.add_constant("bias", random_tensor(f32({6}), 5));
  add_node(g, "Add", "add", {"p", "bias"}, "z", f32({6, 6}));
  add_gelu(g, "z", "y", f32({6, 6}));
  g.add_output("y");
  EXPECT_EQ(expect_fusion_preserves_outputs(g), Ops{"NeeMatMul"});
  const Node node = only_node(g);
  EXPECT_EQ(node.attrs.get_int("gelu"), 1);
  EXPECT_EQ(node.inputs.size(), 3u);
}

// Opset 20's Gelu op: the exact form fuses into the matmul as the exported chain does; the
// tanh form runs as an elementwise program after it.
TEST(Passes, GeluOpAfterAMatMul) {
  for (const char* approximate : {"none", "tanh"}) {
    Graph g = matmul_graph({6, 4}, {4, 6}, {6, 6});
    Attributes form;
    form.set("approximate", std::string(approximate));
    add_node(g, "Gelu", "gelu", {"p"}, "y", f32({6, 6}), form);
    g.add_output("y");
    const Ops ops = expect_fusion_preserves_outputs(g);
    if (std::string(approximate) == "none") {
      EXPECT_EQ(ops, Ops{"NeeMatMul"});
      EXPECT_EQ(only_node(g).attrs.get_int("gelu"), 1);
    } else {
      EXPECT_EQ(ops, (Ops{"NeeMatMul", "NeeElementwise"}));
    }
  }
}

TEST(Passes, GeluWithAnotherReaderOfItsInputIsNotFusedIntoTheMatMul) {
  Graph g = matmul_graph({3, 4}, {4, 6}, {3, 6});
  add_gelu(g, "p", "y", f32({3, 6}));
  add_node(g, "Relu", "relu", {"p"}, "r", f32({3, 6}));
  g.add_output("y");
  g.add_output("r");
  const Ops ops = expect_fusion_preserves_outputs(g);
  EXPECT_EQ(ops.front(), "NeeMatMul");
  EXPECT_EQ(ops.size(), 3u);  // the GELU and the Relu as elementwise nodes
}

TEST(Passes, AttentionScaleAndMaskFoldIntoTheMatMul) {
  Graph g = matmul_graph({2, 5, 8}, {2, 8, 5}, {2, 5, 5});
  g.add_constant("sqrt_d", test_scalar(2.828427f));
  g.add_value("mask", f32({1, 5}));
  g.add_input("mask");
  add_node(g, "Div", "scale", {"p", "sqrt_d"}, "s", f32({2, 5, 5}));
  add_node(g, "Add", "mask_add", {"s", "mask"}, "y", f32({2, 5, 5}));
  g.add_output("y");
  EXPECT_EQ(expect_fusion_preserves_outputs(g), Ops{"NeeMatMul"});
  const Node node = only_node(g);
  EXPECT_FLOAT_EQ(node.attrs.get_float("alpha"), 1.0f / 2.828427f);
  EXPECT_FLOAT_EQ(node.attrs.get_float("beta"), 1.0f);
}

TEST(Passes, ScaleAfterTheBiasScalesAlphaAndBeta) {
  Graph g = matmul_graph({3, 4}, {4, 6}, {3, 6});
  g.add_constant("bias", random_tensor(f32({6}), 6));
  g.add_constant("quarter", test_scalar(0.25f));
  add_node(g, "Add", "add", {"p", "bias"}, "z", f32({3, 6}));
  add_node(g, "Mul", "scale", {"quarter", "z"}, "y", f32({3, 6}));
  g.add_output("y");
  EXPECT_EQ(expect_fusion_preserves_outputs(g), Ops{"NeeMatMul"});
  const Node node = only_node(g);
  EXPECT_FLOAT_EQ(node.attrs.get_float("alpha"), 0.25f);
  EXPECT_FLOAT_EQ(node.attrs.get_float("beta"), 0.25f);
}

TEST(Passes, DivOfAConstantByTheProductIsNotFolded) {
  Graph g = matmul_graph({3, 4}, {4, 6}, {3, 6});
  g.add_constant("eight", test_scalar(8.0f));
  add_node(g, "Div", "inv", {"eight", "p"}, "y", f32({3, 6}));
  g.add_output("y");
  EXPECT_EQ(expect_fusion_preserves_outputs(g), (Ops{"NeeMatMul", "NeeElementwise"}));
}

// Attention's scaling of the query (and of the key) before the product folds into alpha,
// unless something else reads the scaled operand.
TEST(Passes, OperandScalesFoldIntoAlpha) {
  Graph g;
  g.add_value("a", f32({2, 3, 4}));
  g.add_value("b", f32({2, 4, 5}));
  g.add_input("a");
  g.add_input("b");
  g.add_constant("eight", test_scalar(8.0f));
  g.add_constant("half", test_scalar(0.5f));
  add_node(g, "Div", "scale_q", {"a", "eight"}, "qs", f32({2, 3, 4}));
  add_node(g, "Mul", "scale_k", {"half", "b"}, "ks", f32({2, 4, 5}));
  add_node(g, "MatMul", "mm", {"qs", "ks"}, "p", f32({2, 3, 5}));
  g.add_output("p");
  GraphOptions options;
  options.fold_operand_scales = true;
  EXPECT_EQ(expect_fusion_preserves_outputs(g, options), Ops{"NeeMatMul"});
  Graph folded = g;
  optimize_graph(folded, options);
  EXPECT_EQ(folded.nodes()[0].inputs, (std::vector<std::string>{"a", "b"}));
  EXPECT_FLOAT_EQ(folded.nodes()[0].attrs.get_float("alpha"), 1.0f / 16);
  // Without the option (bundles from before it) the scalings stay.
  EXPECT_EQ(expect_fusion_preserves_outputs(g), (Ops{"NeeElementwise", "NeeElementwise", "NeeMatMul"}));

  Graph shared = g;
  add_node(shared, "Relu", "relu", {"qs"}, "r", f32({2, 3, 4}));
  shared.add_output("r");
  EXPECT_EQ(expect_fusion_preserves_outputs(shared, options), (Ops{"NeeElementwise", "NeeMatMul", "NeeElementwise"}));

  // GELU's closing Mul by 0.5 feeds the MLP's second matmul: the GELU still fuses into the
  // first (a fold before fuse_matmul_gelu had broken its pattern).
  Graph mlp = matmul_graph({6, 4}, {4, 6}, {6, 6});
  add_gelu(mlp, "p", "h", f32({6, 6}));
  mlp.add_constant("w2", random_tensor(f32({6, 5}), 6));
  add_node(mlp, "MatMul", "mm2", {"h", "w2"}, "y", f32({6, 5}));
  mlp.add_output("y");
  EXPECT_EQ(expect_fusion_preserves_outputs(mlp, options), (Ops{"NeeMatMul", "NeeMatMul"}));
  Graph fused = mlp;
  optimize_graph(fused, options);
  EXPECT_EQ(fused.nodes()[0].attrs.get_int("gelu"), 1);
  EXPECT_FLOAT_EQ(fused.nodes()[1].attrs.get_float("alpha"), 1.0f);
}

Attributes slice_attrs(const std::vector<int64_t>& starts) {
  Attributes attrs;
  attrs.set("starts", starts);
  attrs.set("steps", std::vector<int64_t>(starts.size(), 1));
  return attrs;
}

// A packed query, key and value projection (bias Add, then three Slices of its columns)
// becomes three products; a Gemm Split unevenly becomes two; a product
// something else reads as well stays whole.
TEST(Passes, ProductsReadOnlyByColumnSlicesSplit) {
  Graph g;
  g.add_value("a", f32({4, 1, 8}));
  g.add_input("a");
  g.add_value("x", f32({4, 8}));
  g.add_input("x");
  g.add_constant("w", random_tensor(f32({8, 48}), 1));
  g.add_constant("bias", random_tensor(f32({48}), 2));
  g.add_constant("wt", random_tensor(f32({24, 8}), 3));
  g.add_constant("bias_t", random_tensor(f32({24}), 4));
  add_node(g, "MatMul", "qkv", {"a", "w"}, "p", f32({4, 1, 48}));
  add_node(g, "Add", "qkv_bias", {"p", "bias"}, "pb", f32({4, 1, 48}));
  for (int part = 0; part < 3; ++part) {
    const std::string name = "s" + std::to_string(part);
    add_node(g, "Slice", name, {"pb"}, name, f32({4, 1, 16}), slice_attrs({0, 0, 16 * part}));
    g.add_output(name);
  }
  Attributes trans;
  trans.set("transB", int64_t{1});
  add_node(g, "Gemm", "gemm", {"x", "wt", "bias_t"}, "pt", f32({4, 24}), trans);
  Attributes split_attrs;
  split_attrs.set("axis", int64_t{1});
  split_attrs.set("split", std::vector<int64_t>{8, 16});
  g.add_node(Node{"Split", "t", {"pt"}, {"t0", "t1"}, split_attrs});
  g.add_value("t0", f32({4, 8}));
  g.add_value("t1", f32({4, 16}));
  add_node(g, "MatMul", "kept", {"x", "wt_plain"}, "pk", f32({4, 24}));
  g.add_constant("wt_plain", random_tensor(f32({8, 24}), 5));
  add_node(g, "Slice", "k0", {"pk"}, "k0", f32({4, 8}), slice_attrs({0, 0}));
  add_node(g, "Relu", "k_relu", {"pk"}, "kr", f32({4, 24}));
  for (const char* out : {"t0", "t1", "k0", "kr"}) g.add_output(out);

  GraphOptions options;
  options.split_matmul_columns = true;
  const Ops ops = expect_fusion_preserves_outputs(g, options);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "Slice"), 1) << "only the shared product's Slice stays";
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "Split"), 0);
  options.fold_matmul_batch = false;  // the products' nodes as the split made them
  Graph split = g;
  optimize_graph(split, options);
  std::map<std::string, const Node*> by_output;
  for (const Node& n : split.nodes()) by_output[n.outputs[0]] = &n;
  EXPECT_EQ(by_output.at("s1")->op, "NeeMatMul");
  EXPECT_EQ(by_output.at("s1")->inputs[1], "w.columns16_32");
  EXPECT_EQ(split.type_of("w.columns16_32").shape, (std::vector<int64_t>{8, 16}));
  EXPECT_EQ(by_output.at("s1")->inputs[2], "bias.columns16_32");
  EXPECT_EQ(split.type_of("bias.columns16_32").shape, (std::vector<int64_t>{16}));
  // fuse_gemm held the Gemm's B untransposed, as wt.transposed.
  EXPECT_EQ(by_output.at("t1")->inputs[1], "wt.transposed.columns8_24");
  EXPECT_EQ(split.type_of("wt.transposed.columns8_24").shape, (std::vector<int64_t>{8, 16}));
  EXPECT_FALSE(split.has_value("w"));
  EXPECT_FALSE(split.has_value("wt.transposed"));
  EXPECT_EQ(by_output.at("k0")->op, "Slice");
  // Without the option (bundles from before it) every Slice stays.
  const Ops plain = expect_fusion_preserves_outputs(g);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), "Slice"), 4);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), "Split"), 1);
}

// The f32 weights (x - zero) * scale of integers x [rows, columns] with a scale and zero
// point per block of `block` rows (axis 0), or without blocks per index of `axis`, as the
// importer folds a DequantizeLinear, and that origin noted on the constant `name`.
void add_dequantized_weights(Graph& g, const std::string& name, const std::vector<int8_t>& x, int64_t rows,
                             int64_t columns, int64_t axis, int64_t block, uint64_t seed) {
  DequantizedOrigin origin;
  origin.x = Tensor(DType::i8, {rows, columns});
  std::copy(x.begin(), x.end(), origin.x.data_as<int8_t>());
  const std::vector<int64_t> parameters = block > 0 ? std::vector<int64_t>{(rows + block - 1) / block, columns}
                                                    : std::vector<int64_t>{axis == 0 ? rows : columns};
  origin.scale = random_tensor(f32(parameters), seed);
  // Weights of at most about 4 keep the products within the fusion check's 1e-5.
  for (int64_t i = 0; i < origin.scale.elements(); ++i) origin.scale.data_as<float>()[i] /= 32;
  origin.zero_point = random_tensor({DType::i8, parameters}, seed + 1);
  origin.axis = axis;
  origin.block_size = block;
  Tensor w(f32({rows, columns}));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < columns; ++c) {
      const int64_t p = block > 0 ? r / block * columns + c : axis == 0 ? r : c;
      const float zero = origin.zero_point.data_as<int8_t>()[p];
      w.data_as<float>()[r * columns + c] = (x[r * columns + c] - zero) * origin.scale.data_as<float>()[p];
    }
  }
  g.add_constant(name, w);
  g.set_dequantized_origin(name, origin);
}

// Weights the importer dequantized from integers stay integers in the products that read
// them: 4-bit ones (every value in [-8, 7]) in blocks of 32 rows two a byte, 8-bit ones
// with a scale per column (a Gemm's transposed B) one a byte; per-row scales stay f32.
TEST(Passes, DequantizedMatmulWeightsStayIntegers) {
  Graph g;
  g.add_value("a", f32({5, 64}));
  g.add_input("a");
  std::vector<int8_t> narrow(64 * 40), wide(24 * 64);
  for (size_t i = 0; i < narrow.size(); ++i) narrow[i] = static_cast<int8_t>(static_cast<int>(i * 7 % 16) - 8);
  for (size_t i = 0; i < wide.size(); ++i) wide[i] = static_cast<int8_t>(static_cast<int>(i * 37 % 251) - 125);
  add_dequantized_weights(g, "w4", narrow, 64, 40, 0, 32, 1);
  add_dequantized_weights(g, "w8t", wide, 24, 64, 0, 0, 3);  // [N, K]: one scale per column of B
  add_dequantized_weights(g, "rows", narrow, 64, 40, 0, 1, 5);
  g.add_constant("bias", random_tensor(f32({24}), 7));
  add_node(g, "MatMul", "mm4", {"a", "w4"}, "p1", f32({5, 40}));
  Attributes trans;
  trans.set("transB", int64_t{1});
  add_node(g, "Gemm", "gemm8", {"a", "w8t", "bias"}, "p2", f32({5, 24}), trans);
  add_node(g, "MatMul", "mm_rows", {"a", "rows"}, "p3", f32({5, 40}));
  for (const char* out : {"p1", "p2", "p3"}) g.add_output(out);

  GraphOptions options;
  options.pack_matmul_weights = options.pad_matmul_panels = options.quantize_matmul_weights = true;
  Graph quantized = g;
  optimize_graph(quantized, options);
  std::map<std::string, const Node*> by_name;
  for (const Node& n : quantized.nodes()) by_name[n.name] = &n;
  const Node& four = *by_name.at("mm4");
  EXPECT_EQ(four.attrs.get_int("b_bits", 0), 4);
  EXPECT_EQ(four.attrs.get_int("b_group", 0), 32);
  EXPECT_EQ(four.attrs.get_int("b_columns", 0), 40);
  EXPECT_EQ(quantized.type_of(four.inputs[1]), (TensorType{DType::u8, {3, 32, 16}}));
  EXPECT_EQ(quantized.type_of(four.inputs[2]), f32({3, 2, 2, 16}));
  const Node& eight = *by_name.at("gemm8");
  EXPECT_EQ(eight.attrs.get_int("b_bits", 0), 8);
  EXPECT_EQ(eight.attrs.get_int("b_group", 0), 64);
  EXPECT_EQ(eight.attrs.get_int("trans_b", 0), 0);
  EXPECT_EQ(quantized.type_of(eight.inputs[1]), (TensorType{DType::u8, {2, 64, 16}}));
  EXPECT_EQ(eight.inputs[3], "bias");
  EXPECT_EQ(by_name.at("mm_rows")->attrs.get_int("b_bits", 0), 0);
  EXPECT_EQ(by_name.at("mm_rows")->attrs.get_int("b_block", 0), 16);
  EXPECT_FALSE(quantized.has_value("w4"));
  EXPECT_FALSE(quantized.has_value("w8t"));
  EXPECT_EQ(quantized.dequantized_origin("rows"), nullptr);  // forgotten once the passes ran
  for (const char* name : {"mm4", "gemm8"}) EXPECT_TRUE(workload_of(quantized, *by_name.at(name)).has_value()) << name;
  expect_fusion_preserves_outputs(g, options);

  // Without the option (bundles from before it) the weights pack as f32.
  options.quantize_matmul_weights = false;
  Graph plain = g;
  optimize_graph(plain, options);
  for (const Node& n : plain.nodes()) EXPECT_EQ(n.attrs.get_int("b_bits", 0), 0) << n.name;
}

// Constant weights with N a multiple of 16 are packed in panels, and with
// pad_matmul_panels any N; a weight shared by two products is packed once, and kept plain
// while a Gather (a tied embedding) still reads it.
TEST(Passes, ConstantMatmulWeightsArePackedInPanels) {
  Graph g;
  g.add_value("a", f32({5, 8}));
  g.add_input("a");
  g.add_value("e", f32({3, 8}));
  g.add_input("e");
  g.add_constant("w", random_tensor(f32({8, 32}), 1));
  g.add_constant("wt", random_tensor(f32({48, 8}), 2));
  g.add_constant("bias", random_tensor(f32({48}), 3));
  g.add_constant("odd", random_tensor(f32({8, 20}), 4));
  Tensor rows(DType::i64, {2});
  rows.data_as<int64_t>()[0] = 7;
  rows.data_as<int64_t>()[1] = 2;
  g.add_constant("rows", rows);
  add_node(g, "MatMul", "mm1", {"a", "w"}, "p1", f32({5, 32}));
  add_node(g, "MatMul", "mm2", {"e", "w"}, "p2", f32({3, 32}));
  Attributes trans;
  trans.set("transB", int64_t{1});
  add_node(g, "Gemm", "gemm", {"a", "wt", "bias"}, "p3", f32({5, 48}), trans);
  add_node(g, "MatMul", "mm_odd", {"a", "odd"}, "p4", f32({5, 20}));
  Attributes first_axis;
  first_axis.set("axis", int64_t{0});
  add_node(g, "Gather", "embed", {"w", "rows"}, "p5", f32({2, 32}), first_axis);
  for (const char* out : {"p1", "p2", "p3", "p4", "p5"}) g.add_output(out);

  GraphOptions options;
  options.pack_matmul_weights = true;
  Graph packed = g;
  optimize_graph(packed, options);
  std::map<std::string, const Node*> by_name;
  for (const Node& n : packed.nodes()) by_name[n.name] = &n;
  for (const char* name : {"mm1", "mm2", "gemm"}) {
    EXPECT_EQ(by_name.at(name)->attrs.get_int("b_block", 0), 16) << name;
    EXPECT_EQ(by_name.at(name)->attrs.get_int("trans_b", 0), 0) << name;
  }
  EXPECT_EQ(by_name.at("mm1")->inputs[1], "w.panels16");
  EXPECT_EQ(by_name.at("mm2")->inputs[1], "w.panels16");
  EXPECT_EQ(packed.type_of("w.panels16").shape, (std::vector<int64_t>{2, 8, 16}));
  EXPECT_EQ(by_name.at("gemm")->inputs[1], "wt.transposed.panels16");
  EXPECT_EQ(packed.type_of("wt.transposed.panels16").shape, (std::vector<int64_t>{3, 8, 16}));
  EXPECT_EQ(by_name.at("mm_odd")->attrs.get_int("b_block", 0), 0);
  EXPECT_TRUE(packed.has_value("w"));
  EXPECT_FALSE(packed.has_value("wt"));

  expect_fusion_preserves_outputs(g, options);

  // With pad_matmul_panels, 20 columns pack too, in 2 panels, the second padded.
  options.pad_matmul_panels = true;
  Graph padded = g;
  optimize_graph(padded, options);
  std::map<std::string, const Node*> padded_by_name;
  for (const Node& n : padded.nodes()) padded_by_name[n.name] = &n;
  const Node& odd = *padded_by_name.at("mm_odd");
  EXPECT_EQ(odd.attrs.get_int("b_block", 0), 16);
  EXPECT_EQ(odd.attrs.get_int("b_columns", 0), 20);
  EXPECT_EQ(odd.inputs[1], "odd.panels16");
  EXPECT_EQ(padded.type_of("odd.panels16").shape, (std::vector<int64_t>{2, 8, 16}));
  EXPECT_EQ(padded.type_of(odd.outputs[0]).shape, (std::vector<int64_t>{5, 20}));
  EXPECT_EQ(padded_by_name.at("mm1")->attrs.get_int("b_columns", 0), 0);
  expect_fusion_preserves_outputs(g, options);

  // Without the option (bundles from before it) weights stay as ONNX has them.
  Graph plain = g;
  optimize_graph(plain);
  for (const Node& n : plain.nodes()) EXPECT_EQ(n.attrs.get_int("b_block", 0), 0) << n.name;
}


Attributes perm_attrs(const std::vector<int64_t>& perm) {
  Attributes a;
  a.set("perm", perm);
  return a;
}

// torch.nn.MultiheadAttention's core as exported: Q [S, G, D], K [T, G, D] and V [T, G, Dv]
// transposed to the products' operands, a scaling and an additive mask [S, T] between the
// products and the softmax, and the output transposed back to [S, G, Dv].
Graph multi_head_attention(bool transpose_output) {
  Graph g;
  g.add_value("q", f32({5, 3, 4}));
  g.add_value("k", f32({6, 3, 4}));
  g.add_value("v", f32({6, 3, 7}));
  for (const char* in : {"q", "k", "v"}) g.add_input(in);
  g.add_constant("half", test_scalar(0.5f));
  g.add_constant("mask", random_tensor(f32({5, 6}), 21));
  add_node(g, "Transpose", "tq", {"q"}, "qt", f32({3, 5, 4}), perm_attrs({1, 0, 2}));
  add_node(g, "Transpose", "tk", {"k"}, "kt", f32({3, 4, 6}), perm_attrs({1, 2, 0}));
  add_node(g, "MatMul", "scores", {"qt", "kt"}, "s", f32({3, 5, 6}));
  add_node(g, "Mul", "scale", {"s", "half"}, "ss", f32({3, 5, 6}));
  add_node(g, "Add", "masked", {"ss", "mask"}, "sm", f32({3, 5, 6}));
  Attributes last_axis;
  last_axis.set("axis", int64_t{2});
  add_node(g, "Softmax", "softmax", {"sm"}, "p", f32({3, 5, 6}), last_axis);
  add_node(g, "Transpose", "tv", {"v"}, "vt", f32({3, 6, 7}), perm_attrs({1, 0, 2}));
  add_node(g, "MatMul", "weighted", {"p", "vt"}, "o", f32({3, 5, 7}));
  if (transpose_output) {
    add_node(g, "Transpose", "to", {"o"}, "y", f32({5, 3, 7}), perm_attrs({1, 0, 2}));
    g.add_output("y");
  } else {
    g.add_output("o");
  }
  return g;
}

TEST(Passes, AttentionProductsAndSoftmaxFuseIntoOneNode) {
  GraphOptions options;
  options.fuse_attention = true;
  // Read and written through the Transposes: one node, sequence-major.
  const Graph heads = multi_head_attention(true);
  EXPECT_EQ(expect_fusion_preserves_outputs(heads, options), Ops{"NeeAttention"});
  Graph fused = heads;
  optimize_graph(fused, options);
  const Node& attention = fused.nodes()[0];
  EXPECT_EQ(attention.inputs, (std::vector<std::string>{"q", "k", "v", "mask"}));
  EXPECT_EQ(attention.attrs.get_string("layout"), "sgd");
  EXPECT_FLOAT_EQ(attention.attrs.get_float("scale"), 0.5f);
  EXPECT_FLOAT_EQ(attention.attrs.get_float("mask_scale"), 1.0f);
  // Without the output's Transpose the operands' stay: group-major on the products' own.
  EXPECT_EQ(expect_fusion_preserves_outputs(multi_head_attention(false), options),
            (Ops{"Transpose", "Transpose", "Transpose", "NeeAttention"}));
  // Scores that something else reads stay a product and a softmax.
  Graph read_twice = heads;
  add_node(read_twice, "Relu", "other", {"p"}, "r", f32({3, 5, 6}));
  read_twice.add_output("r");
  const std::vector<std::string> ops = expect_fusion_preserves_outputs(read_twice, options);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "NeeAttention"), 0);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "Softmax"), 1);
  // Without the option (the default, and bundles from before it) nothing fuses.
  const std::vector<std::string> plain = expect_fusion_preserves_outputs(heads);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), "NeeAttention"), 0);
}

// gMLP's token mixing: X [2, 5, 7] transposed to [2, 7, 5], times a constant W [5, 3], plus
// a bias of `bias` shape, transposed back to [2, 3, 7], then a Relu.
Graph token_mixing(const std::vector<int64_t>& bias) {
  Graph g;
  g.add_value("x", f32({2, 5, 7}));
  g.add_input("x");
  g.add_constant("w", random_tensor(f32({5, 3}), 71));
  g.add_constant("bias", random_tensor(f32(bias), 72));
  add_node(g, "Transpose", "to_tokens", {"x"}, "xt", f32({2, 7, 5}), perm_attrs({0, 2, 1}));
  add_node(g, "MatMul", "mix", {"xt", "w"}, "m", f32({2, 7, 3}));
  add_node(g, "Add", "biased", {"m", "bias"}, "mb", f32({2, 7, 3}));
  add_node(g, "Transpose", "back", {"mb"}, "t", f32({2, 3, 7}), perm_attrs({0, 2, 1}));
  add_node(g, "Relu", "relu", {"t"}, "y", f32({2, 3, 7}));
  g.add_output("y");
  return g;
}

// With fold_transposes_into_products the two Transposes go: W^T times X, the bias over
// rows. A bias that is not over the product's columns alone keeps them, as the option off
// does.
TEST(Passes, TransposesAroundAProductByAConstantFoldIntoIt) {
  GraphOptions options;
  options.fold_transposes_into_products = true;
  EXPECT_EQ(expect_fusion_preserves_outputs(token_mixing({3}), options), (Ops{"NeeMatMul", "NeeElementwise"}));
  Graph folded = token_mixing({3});
  optimize_graph(folded, options);
  const Node& product = folded.nodes()[0];
  EXPECT_EQ(product.inputs[1], "x");
  EXPECT_EQ(folded.type_of(product.inputs[0]).shape, (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(folded.type_of(product.inputs[2]).shape, (std::vector<int64_t>{3, 1}));
  EXPECT_FALSE(folded.has_value("w")) << "W is read by nothing once transposed";
  EXPECT_FALSE(folded.has_value("bias"));
  EXPECT_EQ(expect_fusion_preserves_outputs(token_mixing({7, 3}), options),
            (Ops{"Transpose", "NeeMatMul", "Transpose", "NeeElementwise"}));
  // Without the option the product's batch folds into rows (fold_matmul_batch) between them.
  EXPECT_EQ(expect_fusion_preserves_outputs(token_mixing({3})),
            (Ops{"Transpose", "Reshape", "NeeMatMul", "Reshape", "Transpose", "NeeElementwise"}));
}

// x [2, 5, 4] -> MatMul by a constant [4, 6] (+ a bias [6] with `biased`) -> `view` (a
// Reshape or a Flatten) to rows [10, 6] -> BatchNormalization -> Relu -> y; with no view
// x is [10, 4]. With `shared` the product is an output too.
Graph product_then_batch_norm(const std::string& view, bool biased, bool shared) {
  Graph g;
  const bool flat = view.empty();
  const std::vector<int64_t> x_shape = flat ? std::vector<int64_t>{10, 4} : std::vector<int64_t>{2, 5, 4};
  const std::vector<int64_t> p_shape = flat ? std::vector<int64_t>{10, 6} : std::vector<int64_t>{2, 5, 6};
  g.add_value("x", f32(x_shape));
  g.add_input("x");
  g.add_constant("w", random_tensor(f32({4, 6}), 81));
  std::string product = "p";
  add_node(g, "MatMul", "linear", {"x", "w"}, "p", f32(p_shape));
  if (biased) {
    g.add_constant("linear_bias", random_tensor(f32({6}), 82));
    add_node(g, "Add", "linear_add", {"p", "linear_bias"}, "pb", f32(p_shape));
    product = "pb";
  }
  std::string rows = product;
  if (view == "Reshape") {
    Tensor shape(DType::i64, {2});
    shape.data_as<int64_t>()[0] = 10;
    shape.data_as<int64_t>()[1] = 6;
    g.add_constant("rows_shape", shape);
    add_node(g, "Reshape", "to_rows", {product, "rows_shape"}, "rows", f32({10, 6}));
    rows = "rows";
  } else if (view == "Flatten") {
    Attributes axis;
    axis.set("axis", int64_t{2});
    add_node(g, "Flatten", "to_rows", {product}, "rows", f32({10, 6}), axis);
    rows = "rows";
  }
  g.add_constant("scale", random_tensor(f32({6}), 83));
  g.add_constant("shift", random_tensor(f32({6}), 84));
  g.add_constant("mean", random_tensor(f32({6}), 85));
  Tensor variance = random_tensor(f32({6}), 86);
  float* v = variance.data_as<float>();
  for (int64_t c = 0; c < 6; ++c) v[c] = 0.5f + std::abs(v[c]);
  g.add_constant("variance", variance);
  Attributes epsilon;
  epsilon.set("epsilon", 1e-3f);
  add_node(g, "BatchNormalization", "bn", {rows, "scale", "shift", "mean", "variance"}, "n", f32({10, 6}),
           epsilon);
  add_node(g, "Relu", "relu", {"n"}, "y", f32({10, 6}));
  g.add_output("y");
  if (shared) g.add_output(product);
  return g;
}

// The operands of the one NeeElementwise left in `g` optimized with `options`: the
// product alone when the norm folded into it, with the norm's scale and shift otherwise.
size_t elementwise_operands(Graph g, const GraphOptions& options) {
  optimize_graph(g, options);
  size_t operands = 0;
  for (const Node& n : g.nodes()) {
    if (n.op == "NeeElementwise") operands += n.inputs.size();
  }
  return operands;
}

// With fold_batch_norms_into_products the norm goes into the product's weights and bias,
// through the Reshapes or without them, with or without a bias; a product read by another
// node too keeps it, as the option off does. The outputs stay those of the unfused graph.
TEST(Passes, BatchNormsFoldIntoTheProductsBeforeThem) {
  GraphOptions options;
  options.block_elementwise = true;
  options.batch_norms_of_matrices = true;
  options.fold_batch_norms_into_products = true;
  for (const std::string view : {"", "Reshape", "Flatten"}) {
    for (const bool biased : {false, true}) {
      expect_fusion_preserves_outputs(product_then_batch_norm(view, biased, false), options);
      EXPECT_EQ(elementwise_operands(product_then_batch_norm(view, biased, false), options), 1u) << view << biased;
    }
  }
  Graph folded = product_then_batch_norm("Flatten", true, false);
  optimize_graph(folded, options);
  for (const char* name : {"w", "linear_bias", "scale", "shift", "mean", "variance"}) {
    EXPECT_FALSE(folded.has_value(name)) << name << " is read by nothing and goes";
  }
  expect_fusion_preserves_outputs(product_then_batch_norm("", false, true), options);
  EXPECT_EQ(elementwise_operands(product_then_batch_norm("", false, true), options), 3u);
  options.fold_batch_norms_into_products = false;
  EXPECT_EQ(elementwise_operands(product_then_batch_norm("Flatten", false, false), options), 3u);
}

// Attention over [B, H, ...] from Q "q", K^T "kt" and V "v" (values of the graph) to `out`:
// the scores [B, H, S, T] scaled by 0.5 plus a constant mask of `mask` (seeded `seed`),
// the softmax over the last axis, times V ([B, H, S, Dv]).
void add_attention_over_heads(Graph& g, const std::vector<int64_t>& mask, uint64_t seed, const std::string& out) {
  const std::vector<int64_t>& q = g.type_of("q").shape;
  const std::vector<int64_t> scores = {q[0], q[1], q[2], g.type_of("kt").shape[3]};
  g.add_constant("half", test_scalar(0.5f));
  g.add_constant("mask", random_tensor(f32(mask), seed));
  add_node(g, "MatMul", "scores", {"q", "kt"}, "s", f32(scores));
  add_node(g, "Mul", "scale", {"s", "half"}, "ss", f32(scores));
  add_node(g, "Add", "masked", {"ss", "mask"}, "sm", f32(scores));
  Attributes last_axis;
  last_axis.set("axis", int64_t{3});
  add_node(g, "Softmax", "softmax", {"sm"}, "p", f32(scores), last_axis);
  add_node(g, "MatMul", "weighted", {"p", "v"}, out, f32({q[0], q[1], q[2], g.type_of("v").shape[3]}));
}

// Attention with the heads as a dim (CLIP's, Hugging Face's): Q [B, H, S, D], K^T [B, H, D,
// T], V [B, H, T, Dv], a scaling and an additive mask of `mask` between the products and
// the softmax over the last axis.
Graph attention_over_heads(const std::vector<int64_t>& mask) {
  Graph g;
  g.add_value("q", f32({2, 3, 5, 4}));
  g.add_value("kt", f32({2, 3, 4, 6}));
  g.add_value("v", f32({2, 3, 6, 7}));
  for (const char* in : {"q", "kt", "v"}) g.add_input(in);
  add_attention_over_heads(g, mask, 22, "y");
  g.add_output("y");
  return g;
}

// With fuse_attention_over_heads the products over [B, H, ...] fuse through Reshape views
// (the mask [1, 1, S, T] viewed as [S, T], one per head [B, H, S, T] as [B H, S, T]); a
// mask per batch [B, 1, 1, T] cannot be read over B H groups and stays unfused, as
// everything does without the option.
TEST(Passes, AttentionOverHeadsFusesThroughViews) {
  GraphOptions options;
  options.fuse_attention = true;
  options.fuse_attention_over_heads = true;
  EXPECT_EQ(expect_fusion_preserves_outputs(attention_over_heads({1, 1, 5, 6}), options),
            (Ops{"Reshape", "Reshape", "Reshape", "Reshape", "NeeAttention", "Reshape"}));
  Graph fused = attention_over_heads({5, 6});
  optimize_graph(fused, options);
  const auto attention = std::find_if(fused.nodes().begin(), fused.nodes().end(),
                                      [](const Node& n) { return n.op == "NeeAttention"; });
  ASSERT_NE(attention, fused.nodes().end());
  EXPECT_EQ(attention->attrs.get_string("layout"), "gsd");
  EXPECT_EQ(attention->inputs[3], "mask");
  EXPECT_EQ(fused.type_of(attention->inputs[0]).shape, (std::vector<int64_t>{6, 5, 4}));
  EXPECT_FLOAT_EQ(attention->attrs.get_float("scale"), 0.5f);
  Graph per_head = attention_over_heads({2, 3, 5, 6});
  EXPECT_EQ(expect_fusion_preserves_outputs(per_head, options),
            (Ops{"Reshape", "Reshape", "Reshape", "Reshape", "NeeAttention", "Reshape"}));
  optimize_graph(per_head, options);
  for (const Node& node : per_head.nodes()) {
    if (node.op == "NeeAttention") EXPECT_EQ(per_head.type_of(node.inputs[3]).shape, (std::vector<int64_t>{6, 5, 6}));
  }
  const std::vector<std::string> per_batch = expect_fusion_preserves_outputs(attention_over_heads({2, 1, 1, 6}),
                                                                             options);
  EXPECT_EQ(std::count(per_batch.begin(), per_batch.end(), "NeeAttention"), 0);
  options.fuse_attention_over_heads = false;
  const std::vector<std::string> plain = expect_fusion_preserves_outputs(attention_over_heads({1, 1, 5, 6}), options);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), "NeeAttention"), 0);
}

// Hugging Face's attention at batch 1: projections [1, S, H, D] turned head-major by
// Transposes (0, 2, 1, 3), K^T by one Transpose (0, 2, 3, 1) or, with `key_in_two`, by the
// heads' Transpose and then the last two dims' (`key.transpose(-1, -2)`), a padding mask
// [1, 1, 1, T], and the output turned back to [1, S, H, Dv].
Graph attention_through_head_transposes(bool key_in_two) {
  Graph g;
  g.add_value("qp", f32({1, 5, 3, 4}));
  g.add_value("kp", f32({1, 6, 3, 4}));
  g.add_value("vp", f32({1, 6, 3, 7}));
  for (const char* in : {"qp", "kp", "vp"}) g.add_input(in);
  add_node(g, "Transpose", "to_q", {"qp"}, "q", f32({1, 3, 5, 4}), perm_attrs({0, 2, 1, 3}));
  if (key_in_two) {
    add_node(g, "Transpose", "to_k", {"kp"}, "k", f32({1, 3, 6, 4}), perm_attrs({0, 2, 1, 3}));
    add_node(g, "Transpose", "to_kt", {"k"}, "kt", f32({1, 3, 4, 6}), perm_attrs({0, 1, 3, 2}));
  } else {
    add_node(g, "Transpose", "to_kt", {"kp"}, "kt", f32({1, 3, 4, 6}), perm_attrs({0, 2, 3, 1}));
  }
  add_node(g, "Transpose", "to_v", {"vp"}, "v", f32({1, 3, 6, 7}), perm_attrs({0, 2, 1, 3}));
  add_attention_over_heads(g, {1, 1, 1, 6}, 23, "o");
  add_node(g, "Transpose", "back", {"o"}, "y", f32({1, 5, 3, 7}), perm_attrs({0, 2, 1, 3}));
  g.add_output("y");
  return g;
}

// With attention_through_head_transposes the kernel reads the projections sequence-major
// through those Transposes: every Transpose goes, the operands and the output are views.
TEST(Passes, AttentionOverHeadsReadsThroughTheHeadTransposes) {
  GraphOptions options;
  options.fuse_attention = true;
  options.fuse_attention_over_heads = true;
  options.attention_through_head_transposes = true;
  for (const bool key_in_two : {false, true}) {
    SCOPED_TRACE(key_in_two ? "K^T by two Transposes" : "K^T by one Transpose");
    const std::vector<std::string> ops = expect_fusion_preserves_outputs(attention_through_head_transposes(key_in_two),
                                                                         options);
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "Transpose"), 0);
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "NeeAttention"), 1);
    Graph fused = attention_through_head_transposes(key_in_two);
    optimize_graph(fused, options);
    for (const Node& node : fused.nodes()) {
      if (node.op != "NeeAttention") continue;
      EXPECT_EQ(node.attrs.get_string("layout"), "sgd");
      EXPECT_EQ(fused.type_of(node.inputs[1]).shape, (std::vector<int64_t>{6, 3, 4}));
      EXPECT_EQ(fused.type_of(node.outputs[0]).shape, (std::vector<int64_t>{5, 3, 7}));
    }
  }
  // Without the option (older manifests) the kernel reads the Transposes' results.
  options.attention_through_head_transposes = false;
  const std::vector<std::string> ops = expect_fusion_preserves_outputs(attention_through_head_transposes(false),
                                                                       options);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "NeeAttention"), 1);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "Transpose"), 4);
}
}  // namespace
}  // namespace nee
