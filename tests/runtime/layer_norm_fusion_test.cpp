// fuse_layer_norm on the chain exporters emit for torch.nn.LayerNorm before opset 17 and
// on LayerNormalization itself: the fused graph (NeeLayerNorm on the reference kernels)
// gives the unfused graph's output on random inputs, and the node maps to the layernorm
// workload; pools and Softmax map to their families.
#include <gtest/gtest.h>

#include "core/layernorm_workload.h"
#include "core/pool2d_workload.h"
#include "core/softmax_workload.h"
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
using test::f32;

Tensor scalar(float v) {
  Tensor t(DType::f32, {});
  *t.data_as<float>() = v;
  return t;
}

Attributes mean_over(std::vector<int64_t> axes) {
  Attributes a;
  a.set("axes", std::move(axes));
  a.set("keepdims", int64_t{1});
  return a;
}

// x [2, 5, 12] -> torch.nn.LayerNorm(12) as exported at opset 13; with_affine adds the
// Mul gamma, Add beta pair. `extra_reader` makes the centered values a graph output too.
Graph layer_norm_chain(bool with_affine, bool extra_reader = false) {
  Graph g;
  const TensorType x = f32({2, 5, 12}), stat = f32({2, 5, 1});
  g.add_value("x", x);
  g.add_input("x");
  g.add_constant("two", scalar(2.0f));
  g.add_constant("eps", scalar(1e-5f));
  g.add_constant("gamma", random_tensor(f32({12}), 3));
  g.add_constant("beta", random_tensor(f32({12}), 4));
  add_node(g, "ReduceMean", "mean", {"x"}, "m", stat, mean_over({2}));
  add_node(g, "Sub", "sub", {"x", "m"}, "d", x);
  add_node(g, "Pow", "pow", {"d", "two"}, "d2", x);
  add_node(g, "ReduceMean", "var", {"d2"}, "v", stat, mean_over({2}));
  add_node(g, "Add", "add_eps", {"v", "eps"}, "ve", stat);
  add_node(g, "Sqrt", "sqrt", {"ve"}, "s", stat);
  add_node(g, "Div", "div", {"d", "s"}, "q", x);
  std::string y = "q";
  if (with_affine) {
    add_node(g, "Mul", "mul", {"q", "gamma"}, "qg", x);
    add_node(g, "Add", "add_beta", {"qg", "beta"}, "y", x);
    y = "y";
  }
  add_node(g, "Relu", "after", {y}, "out", x);
  g.add_output("out");
  if (extra_reader) g.add_output("d");
  return g;
}

// Runs g fused and unfused on the same random inputs; returns the fused graph's ops.
std::vector<std::string> expect_same_outputs(const Graph& g) {
  std::map<std::string, Tensor> inputs;
  for (const std::string& name : g.inputs()) inputs[name] = random_tensor(g.type_of(name), 21);
  Session unfused(g, {});
  Session fused(g, {}, SessionOptions{optimize_graph});
  const auto expected = unfused.run(inputs);
  const auto actual = fused.run(inputs);
  for (const auto& [name, want] : expected) {
    const Tensor& got = actual.at(name);
    EXPECT_EQ(got.shape(), want.shape()) << name;
    double magnitude = 0;
    for (int64_t i = 0; i < want.elements(); ++i) {
      EXPECT_NEAR(got.data_as<float>()[i], want.data_as<float>()[i], 1e-5f) << name << " at " << i;
      magnitude += std::fabs(want.data_as<float>()[i]);
    }
    EXPECT_GT(magnitude, 0) << name;
  }
  std::vector<std::string> ops;
  for (const Node& node : fused.graph().nodes()) ops.push_back(node.op);
  return ops;
}

using Ops = std::vector<std::string>;

TEST(LayerNormFusion, ExportedChainBecomesOneNode) {
  const Graph g = layer_norm_chain(true);
  EXPECT_EQ(expect_same_outputs(g), (Ops{"NeeLayerNorm", "NeeElementwise"}));
  Graph fused = g;
  optimize_graph(fused);
  const Node& ln = fused.nodes()[0];
  EXPECT_EQ(ln.inputs, (std::vector<std::string>{"x", "gamma", "beta"}));
  EXPECT_EQ(ln.outputs, (std::vector<std::string>{"y"}));
  EXPECT_EQ(ln.attrs.get_int("axis"), 2);
  EXPECT_FLOAT_EQ(ln.attrs.get_float("epsilon"), 1e-5f);
  for (const char* gone : {"m", "d", "d2", "v", "ve", "s", "q", "qg"}) EXPECT_FALSE(fused.has_value(gone)) << gone;
  const TensorType gamma = f32({12});
  const auto w = workload_of(fused, ln);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->key(), make_layernorm_workload(f32({2, 5, 12}), gamma, &gamma, 2, 1e-5f).key());
}

TEST(LayerNormFusion, ChainWithoutAffineGetsAUnitScale) {
  EXPECT_EQ(expect_same_outputs(layer_norm_chain(false)), (Ops{"NeeLayerNorm", "NeeElementwise"}));
}

TEST(LayerNormFusion, CenteredValuesReadElsewhereAreNotFused) {
  const Ops ops = expect_same_outputs(layer_norm_chain(true, true));
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "NeeLayerNorm"), 0);
}

TEST(LayerNormFusion, LayerNormalizationWithOnlyYBecomesNeeLayerNorm) {
  Graph g;
  g.add_value("x", f32({3, 4, 6}));
  g.add_input("x");
  g.add_constant("scale", random_tensor(f32({4, 6}), 5));
  Attributes attrs;
  attrs.set("axis", int64_t{1});
  attrs.set("epsilon", 1e-3f);
  add_node(g, "LayerNormalization", "ln", {"x", "scale"}, "y", f32({3, 4, 6}), attrs);
  g.add_output("y");
  EXPECT_EQ(expect_same_outputs(g), (Ops{"NeeLayerNorm"}));
}

// x [2, 5, 12] -> an RMSNorm as exporters write it, then Relu: x * rsqrt(mean(x^2) + eps)
// * w, its reciprocal as Div(1, .) or Reciprocal, or x / sqrt(...); the square as Pow 2
// or x * x; the weight per row element, per row (not a scale of the row: left out), or
// none.
enum class Rms { one_over, reciprocal, divide, per_row_weight };
Graph rms_norm_chain(Rms form) {
  Graph g;
  const TensorType x = f32({2, 5, 12}), stat = f32({2, 5, 1});
  g.add_value("x", x);
  g.add_input("x");
  g.add_constant("two", scalar(2.0f));
  g.add_constant("one", scalar(1.0f));
  g.add_constant("eps", scalar(1e-6f));
  g.add_constant("w", random_tensor(form == Rms::per_row_weight ? f32({5, 1}) : f32({12}), 3));
  if (form == Rms::divide) {
    add_node(g, "Mul", "square", {"x", "x"}, "x2", x);
  } else {
    add_node(g, "Pow", "square", {"x", "two"}, "x2", x);
  }
  add_node(g, "ReduceMean", "mean", {"x2"}, "m", stat, mean_over({2}));
  add_node(g, "Add", "add_eps", {"m", "eps"}, "me", stat);
  add_node(g, "Sqrt", "sqrt", {"me"}, "s", stat);
  std::string y = "n";
  if (form == Rms::divide) {
    add_node(g, "Div", "div", {"x", "s"}, "n", x);
  } else {
    if (form == Rms::reciprocal) {
      add_node(g, "Reciprocal", "inverse", {"s"}, "r", stat);
    } else {
      add_node(g, "Div", "inverse", {"one", "s"}, "r", stat);
    }
    add_node(g, "Mul", "normalize", {"r", "x"}, "n", x);
    add_node(g, "Mul", "weigh", {"w", "n"}, "y", x);
    y = "y";
  }
  add_node(g, "Relu", "after", {y}, "out", x);
  g.add_output("out");
  return g;
}

// With fuse_rms_norms each form is one NeeLayerNorm with rms 1, its weight the scale
// where it is one per row element; without it (bundles from before) none is fused.
TEST(LayerNormFusion, RmsNormChainsBecomeOneNode) {
  GraphOptions options;
  options.fuse_rms_norms = true;
  for (Rms form : {Rms::one_over, Rms::reciprocal, Rms::divide, Rms::per_row_weight}) {
    const Graph g = rms_norm_chain(form);
    EXPECT_EQ(expect_fusion_preserves_outputs(g, options), (Ops{"NeeLayerNorm", "NeeElementwise"})) << int(form);
    Graph fused = g;
    optimize_graph(fused, options);
    const Node& norm = fused.nodes()[0];
    EXPECT_EQ(norm.attrs.get_int("rms", 0), 1);
    EXPECT_EQ(norm.attrs.get_int("axis"), 2);
    EXPECT_FLOAT_EQ(norm.attrs.get_float("epsilon"), 1e-6f);
    EXPECT_EQ(norm.inputs[0], "x");
    EXPECT_EQ(norm.inputs[1] == "w", form == Rms::one_over || form == Rms::reciprocal) << int(form);
    const auto w = workload_of(fused, norm);
    ASSERT_TRUE(w);
    EXPECT_TRUE(layernorm_is_rms(*w));
    const Ops plain = expect_fusion_preserves_outputs(g, GraphOptions{});
    EXPECT_EQ(std::count(plain.begin(), plain.end(), "NeeLayerNorm"), 0) << int(form);
  }
}

// ONNX's RMSNormalization (opset 23, attributes as the importer stores them) runs as
// NeeLayerNorm with rms 1 where fuse_rms_norms is on, and on its reference kernel where not.
TEST(LayerNormFusion, RmsNormalizationBecomesNeeLayerNorm) {
  Graph g;
  g.add_value("x", f32({3, 4, 6}));
  g.add_input("x");
  g.add_constant("scale", random_tensor(f32({6}), 5));
  Attributes attrs;
  attrs.set("axis", int64_t{2});
  attrs.set("epsilon", 1e-5f);
  add_node(g, "RMSNormalization", "rms", {"x", "scale"}, "y", f32({3, 4, 6}), attrs);
  g.add_output("y");
  GraphOptions options;
  options.fuse_rms_norms = true;
  EXPECT_EQ(expect_fusion_preserves_outputs(g, options), (Ops{"NeeLayerNorm"}));
  Graph fused = g;
  optimize_graph(fused, options);
  const auto w = workload_of(fused, fused.nodes()[0]);
  ASSERT_TRUE(w);
  EXPECT_TRUE(layernorm_is_rms(*w));
  EXPECT_EQ(expect_fusion_preserves_outputs(g, GraphOptions{}), (Ops{"RMSNormalization"}));
}

TEST(NodeWorkload, PoolsAndSoftmaxMapToTheirFamilies) {
  Graph g;
  g.add_value("x", f32({1, 4, 9, 9}));
  g.add_input("x");
  Attributes pool;
  pool.set("kernel_shape", std::vector<int64_t>{3, 3});
  pool.set("strides", std::vector<int64_t>{2, 2});
  pool.set("dilations", std::vector<int64_t>{1, 1});
  pool.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  pool.set("ceil_mode", int64_t{0});
  add_node(g, "MaxPool", "max", {"x"}, "p", f32({1, 4, 5, 5}), pool);
  add_node(g, "GlobalAveragePool", "gap", {"p"}, "g", f32({1, 4, 1, 1}));
  Attributes axis;
  axis.set("axis", int64_t{3});
  add_node(g, "Softmax", "sm", {"p"}, "s", f32({1, 4, 5, 5}), axis);
  Attributes coerced = axis;
  coerced.set("axis", int64_t{1});
  coerced.set("coerce_2d", int64_t{1});
  add_node(g, "Softmax", "sm_old", {"p"}, "s2", f32({1, 4, 5, 5}), coerced);

  Pool2dAttrs max;
  max.kernel = {3, 3};
  max.strides = {2, 2};
  max.pads = {1, 1, 1, 1};
  const auto w_max = workload_of(g, g.nodes()[0]);
  ASSERT_TRUE(w_max);
  EXPECT_EQ(w_max->key(), make_pool2d_workload(f32({1, 4, 9, 9}), max, false).key());
  const auto w_gap = workload_of(g, g.nodes()[1]);
  ASSERT_TRUE(w_gap);
  EXPECT_EQ(w_gap->key(), make_global_pool2d_workload(f32({1, 4, 5, 5}), PoolKind::average).key());
  const auto w_sm = workload_of(g, g.nodes()[2]);
  ASSERT_TRUE(w_sm);
  EXPECT_EQ(w_sm->key(), make_softmax_workload(f32({1, 4, 5, 5}), -1).key());
  EXPECT_FALSE(workload_of(g, g.nodes()[3]));
  // A graph shape the family would compute differently stays on the reference provider.
  g.set_type("p", f32({1, 4, 4, 4}));
  EXPECT_FALSE(workload_of(g, g.nodes()[0]));
}

}  // namespace
}  // namespace nee
