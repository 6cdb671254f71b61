// fuse_group_norm and NeeGroupNorm's kernel: torch.nn.GroupNorm's exported chain and
// InstanceNormalization become NeeGroupNorm, which computes what they compute (against the
// graph run as built, InstanceNormalization's reference in f64) laid out NCHW or
// channel-blocked between blocked convs.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "graph_builder.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"
#include "runtime/tensor_io.h"

namespace nee {
namespace {

using test::add_node;
using test::f32;

Tensor shape_tensor(const std::vector<int64_t>& dims) {
  Tensor t(DType::i64, {static_cast<int64_t>(dims.size())});
  std::copy(dims.begin(), dims.end(), t.data_as<int64_t>());
  return t;
}

Attributes epsilon_attrs() {
  Attributes a;
  a.set("epsilon", 1e-5f);
  return a;
}

// What the affine steps after the chain's second Reshape are.
enum class Affine { per_channel_mul_and_add, scalar_mul, none };

// torch's GroupNorm of `groups` as exported, from the value `x` of shape `x_shape` to the
// value `y`: Reshape [N, G, -1], InstanceNormalization with random scale and bias of G,
// Reshape back, then the affine steps.
void add_group_norm_chain(Graph& g, const std::string& x, const std::string& y, const std::vector<int64_t>& x_shape,
                          int64_t groups, Affine affine) {
  int64_t rest = 1;
  for (size_t d = 1; d < x_shape.size(); ++d) rest *= x_shape[d];
  rest /= groups;
  g.add_constant("grouped_shape", shape_tensor({x_shape[0], groups, -1}));
  g.add_constant("x_shape", shape_tensor(x_shape));
  g.add_constant("ones", random_tensor(f32({groups}), 3));
  g.add_constant("zeros", random_tensor(f32({groups}), 4));
  add_node(g, "Reshape", "split", {x, "grouped_shape"}, "grouped", f32({x_shape[0], groups, rest}));
  add_node(g, "InstanceNormalization", "norm", {"grouped", "ones", "zeros"}, "normalized",
           f32({x_shape[0], groups, rest}), epsilon_attrs());
  std::vector<int64_t> per_channel(x_shape.size() - 1, 1);
  per_channel[0] = x_shape[1];
  switch (affine) {
    case Affine::per_channel_mul_and_add:
      add_node(g, "Reshape", "merge", {"normalized", "x_shape"}, "merged", f32(x_shape));
      g.add_constant("gamma", random_tensor(f32(per_channel), 5));
      g.add_constant("beta", random_tensor(f32(per_channel), 6));
      add_node(g, "Mul", "gamma_mul", {"gamma", "merged"}, "scaled", f32(x_shape));
      add_node(g, "Add", "beta_add", {"scaled", "beta"}, y, f32(x_shape));
      break;
    case Affine::scalar_mul:
      add_node(g, "Reshape", "merge", {"normalized", "x_shape"}, "merged", f32(x_shape));
      g.add_constant("gamma", random_tensor(f32({1}), 5));
      add_node(g, "Mul", "gamma_mul", {"merged", "gamma"}, y, f32(x_shape));
      break;
    case Affine::none:
      add_node(g, "Reshape", "merge", {"normalized", "x_shape"}, y, f32(x_shape));
      break;
  }
}

// x + 100 (so that the statistics are taken far from zero) -> the chain -> y.
Graph group_norm_chain(const std::vector<int64_t>& x_shape, int64_t groups, Affine affine) {
  Graph g;
  g.add_value("x", f32(x_shape));
  g.add_input("x");
  Tensor offset(DType::f32, {});
  *offset.data_as<float>() = 100.0f;
  g.add_constant("offset", offset);
  add_node(g, "Add", "shift", {"x", "offset"}, "xs", f32(x_shape));
  add_group_norm_chain(g, "xs", "y", x_shape, groups, affine);
  g.add_output("y");
  return g;
}

// Runs `g` optimized with `options` and as built on the same random input; returns the
// optimized graph.
Graph expect_same_outputs(const Graph& g, const GraphOptions& options) {
  Graph optimized = g;
  optimize_graph(optimized, options);
  Session fused(optimized, {});
  Session plain(g, {});
  const Tensor x = random_tensor(g.type_of("x"), 7);
  const Tensor got = fused.run({{"x", x}}).at("y"), want = plain.run({{"x", x}}).at("y");
  EXPECT_EQ(got.shape(), want.shape());
  double peak = 0;
  for (int64_t i = 0; i < want.elements(); ++i) peak = std::max(peak, std::fabs(double{want.data_as<float>()[i]}));
  EXPECT_GT(peak, 0.5);
  for (int64_t i = 0; i < want.elements(); ++i) {
    EXPECT_NEAR(got.data_as<float>()[i], want.data_as<float>()[i], 2e-5f) << "at " << i;
  }
  return fused.graph();
}

GraphOptions group_norm_options() {
  GraphOptions options;
  options.fuse_group_norms = true;
  return options;
}

std::map<std::string, int> op_counts(const Graph& g) {
  std::map<std::string, int> ops;
  for (const Node& n : g.nodes()) ++ops[n.op];
  return ops;
}

const Node& only(const Graph& g, const std::string& op) {
  const auto it = std::find_if(g.nodes().begin(), g.nodes().end(), [&](const Node& n) { return n.op == op; });
  EXPECT_NE(it, g.nodes().end()) << op;
  return *it;
}

TEST(FuseGroupNorm, TorchGroupNormChainsBecomeOneNodeWithTheAffineStepsFolded) {
  struct Case {
    std::vector<int64_t> x;
    int64_t groups;
    Affine affine;
  };
  // Planes of 35 and 50 elements leave a tail after the 16-lane loops; groups of 4, 3 and
  // 1 channels.
  const std::vector<Case> cases = {{{2, 48, 5, 7}, 12, Affine::per_channel_mul_and_add},
                                   {{2, 48, 5, 7}, 16, Affine::scalar_mul},
                                   {{1, 12, 50}, 12, Affine::none},
                                   {{2, 12, 50}, 4, Affine::per_channel_mul_and_add}};
  for (const Case& c : cases) {
    const Graph fused = expect_same_outputs(group_norm_chain(c.x, c.groups, c.affine), group_norm_options());
    const std::map<std::string, int> ops = op_counts(fused);
    EXPECT_EQ(ops.size(), 2u) << c.groups;  // the offset's NeeElementwise and the norm
    EXPECT_EQ(ops.at("NeeGroupNorm"), 1) << c.groups;
    EXPECT_EQ(only(fused, "NeeGroupNorm").attrs.get_int("groups"), c.groups);
    EXPECT_FALSE(fused.has_value("ones")) << "the norm's scale, folded, is left unread";
  }
  // Without the option (bundles from before it) the chain stays.
  Graph plain = group_norm_chain({2, 48, 5, 7}, 12, Affine::per_channel_mul_and_add);
  optimize_graph(plain);
  EXPECT_EQ(op_counts(plain).count("NeeGroupNorm"), 0u);
  EXPECT_EQ(op_counts(plain).at("InstanceNormalization"), 1);
}

TEST(FuseGroupNorm, InstanceNormsBecomeGroupNormsOfOneChannelEach) {
  // The last (1.3 MB) is split between threads where the machine has several cores.
  for (const std::vector<int64_t>& shape :
       {std::vector<int64_t>{2, 5, 33}, std::vector<int64_t>{1, 20, 9, 9}, std::vector<int64_t>{1, 64, 64, 80}}) {
    Graph g;
    g.add_value("x", f32(shape));
    g.add_input("x");
    g.add_constant("scale", random_tensor(f32({shape[1]}), 1));
    g.add_constant("bias", random_tensor(f32({shape[1]}), 2));
    add_node(g, "InstanceNormalization", "norm", {"x", "scale", "bias"}, "y", f32(shape), epsilon_attrs());
    g.add_output("y");
    const Graph fused = expect_same_outputs(g, group_norm_options());
    EXPECT_EQ(op_counts(fused), (std::map<std::string, int>{{"NeeGroupNorm", 1}}));
    EXPECT_EQ(only(fused, "NeeGroupNorm").attrs.get_int("groups"), shape[1]);
  }
}

// A diffusion model's block: conv, GroupNorm (16 groups of 3 channels, straddling
// channel blocks), SiLU (with `silu`) and conv.
Graph conv_norm_conv(bool silu) {
  Graph net;
  net.add_value("x", f32({1, 16, 6, 5}));
  net.add_input("x");
  Attributes pads;
  pads.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  pads.set("kernel_shape", std::vector<int64_t>{3, 3});
  pads.set("strides", std::vector<int64_t>{1, 1});
  pads.set("dilations", std::vector<int64_t>{1, 1});
  pads.set("group", int64_t{1});
  net.add_constant("w1", random_tensor(f32({48, 16, 3, 3}), 8));
  add_node(net, "Conv", "conv1", {"x", "w1"}, "c1", f32({1, 48, 6, 5}), pads);
  add_group_norm_chain(net, "c1", "normed", {1, 48, 6, 5}, 16, Affine::per_channel_mul_and_add);
  std::string into_conv = "normed";
  if (silu) {
    add_node(net, "Sigmoid", "gate", {"normed"}, "gated", f32({1, 48, 6, 5}));
    add_node(net, "Mul", "silu", {"normed", "gated"}, "act", f32({1, 48, 6, 5}));
    into_conv = "act";
  }
  net.add_constant("w2", random_tensor(f32({32, 48, 3, 3}), 9));
  add_node(net, "Conv", "conv2", {into_conv, "w2"}, "y", f32({1, 32, 6, 5}), pads);
  net.add_output("y");
  return net;
}

// With blocked activations the norm and the SiLU take the first conv's blocked output and
// hand the second conv a blocked input, with no layout copy between.
TEST(FuseGroupNorm, RunsChannelBlockedBetweenBlockedConvs) {
  const Graph net = conv_norm_conv(true);
  GraphOptions options = group_norm_options();
  options.block_activations = options.block_elementwise = true;
  const Graph fused = expect_same_outputs(net, options);
  const std::map<std::string, int> ops = op_counts(fused);
  EXPECT_EQ(ops.count("NeeLayout"), 0u) << "the convs read and write either layout";
  EXPECT_EQ(only(fused, "NeeGroupNorm").attrs.get_int("input_block", 0), 16);
  EXPECT_EQ(fused.type_of(only(fused, "NeeGroupNorm").outputs[0]).shape, (std::vector<int64_t>{1, 3, 6, 5, 16}));
}

// Conv-TasNet's block: a 1x1 conv, PRelu, a global layer norm (GroupNorm of one group), a
// dilated depthwise conv, PRelu with a slope a channel, an instance norm, a 1x1 conv. With
// group_norms_over_rows the norms and PRelus run over the 1-D convs' rows, blocked, with
// no layout copy; without it (bundles from before it) the norms keep [N, C, L].
TEST(FuseGroupNorm, RunsOverTheRowsOfOneDimensionalConvs) {
  const int64_t c = 32, l = 20;
  Graph net;
  net.add_value("x", f32({1, c, l}));
  net.add_input("x");
  const auto conv_attrs = [](int64_t kernel, int64_t dilation, int64_t group) {
    Attributes a;
    a.set("kernel_shape", std::vector<int64_t>{kernel});
    a.set("strides", std::vector<int64_t>{1});
    a.set("dilations", std::vector<int64_t>{dilation});
    a.set("pads", std::vector<int64_t>{dilation * (kernel - 1) / 2, dilation * (kernel - 1) / 2});
    a.set("group", group);
    return a;
  };
  net.add_constant("w1", random_tensor(f32({c, c, 1}), 8));
  add_node(net, "Conv", "conv1", {"x", "w1"}, "c1", f32({1, c, l}), conv_attrs(1, 1, 1));
  net.add_constant("slope1", random_tensor(f32({1}), 9));
  add_node(net, "PRelu", "prelu1", {"c1", "slope1"}, "p1", f32({1, c, l}));
  add_group_norm_chain(net, "p1", "n1", {1, c, l}, 1, Affine::per_channel_mul_and_add);
  net.add_constant("wd", random_tensor(f32({c, 1, 3}), 10));
  add_node(net, "Conv", "depthwise", {"n1", "wd"}, "d", f32({1, c, l}), conv_attrs(3, 2, c));
  net.add_constant("slope2", random_tensor(f32({c, 1}), 11));
  add_node(net, "PRelu", "prelu2", {"d", "slope2"}, "p2", f32({1, c, l}));
  net.add_constant("scale", random_tensor(f32({c}), 12));
  net.add_constant("bias", random_tensor(f32({c}), 13));
  add_node(net, "InstanceNormalization", "norm2", {"p2", "scale", "bias"}, "n2", f32({1, c, l}), epsilon_attrs());
  net.add_constant("w2", random_tensor(f32({16, c, 1}), 14));
  add_node(net, "Conv", "conv2", {"n2", "w2"}, "y", f32({1, 16, l}), conv_attrs(1, 1, 1));
  net.add_output("y");

  GraphOptions options = group_norm_options();
  options.block_activations = options.block_elementwise = options.block_grouped_convs = true;
  options.elementwise_over_rows = options.group_norms_over_rows = true;
  const Graph fused = expect_same_outputs(net, options);
  std::map<std::string, int> ops = op_counts(fused);
  EXPECT_EQ(ops.count("NeeLayout"), 0u);
  EXPECT_EQ(ops.count("PRelu"), 0u);
  EXPECT_EQ(ops.at("NeeGroupNorm"), 2);
  for (const Node& n : fused.nodes()) {
    if (n.op == "NeeGroupNorm" || n.op == "NeeElementwise") {
      EXPECT_EQ(fused.type_of(n.outputs[0]).shape, (std::vector<int64_t>{1, 2, 1, l, 16})) << n.name;
    }
  }
  options.group_norms_over_rows = false;
  const Graph before = expect_same_outputs(net, options);
  for (const Node& n : before.nodes()) {
    if (n.op == "NeeGroupNorm") {
      EXPECT_EQ(before.type_of(n.inputs[0]).shape.size(), 3u) << n.name;
    }
  }
}

// With group_norm_affine_into_elementwise a norm whose output only the SiLU reads leaves
// its scale and shift per channel to the SiLU's kernel, in NCHW and blocked; a norm a conv
// reads stays whole.
TEST(FuseGroupNorm, LeavesItsAffineStepToTheElementwiseKernelAfterIt) {
  for (const bool blocked : {false, true}) {
    GraphOptions options = group_norm_options();
    options.group_norm_affine_into_elementwise = true;
    options.block_activations = options.block_elementwise = blocked;
    const Graph fused = expect_same_outputs(conv_norm_conv(true), options);
    const std::map<std::string, int> ops = op_counts(fused);
    EXPECT_EQ(ops.count("NeeGroupNorm"), 0u) << blocked;
    const Node& affine = only(fused, "NeeGroupNormAffine");
    const std::vector<int64_t> per_channel = blocked ? std::vector<int64_t>{1, 3, 1, 1, 16}
                                                     : std::vector<int64_t>{1, 48, 1, 1};
    EXPECT_EQ(fused.type_of(affine.outputs[0]).shape, per_channel);
    EXPECT_EQ(fused.type_of(affine.outputs[1]).shape, per_channel);
    const Node& elementwise = only(fused, "NeeElementwise");
    EXPECT_EQ(elementwise.inputs[0], affine.inputs[0]) << "the elementwise kernel reads the norm's input";
    EXPECT_EQ(elementwise.attrs.get_string("program").rfind("mul(x0,x1); add(t0,x2);", 0), 0u)
        << elementwise.attrs.get_string("program");

    const Graph kept = expect_same_outputs(conv_norm_conv(false), options);
    EXPECT_EQ(op_counts(kept).count("NeeGroupNormAffine"), 0u) << blocked;
    EXPECT_EQ(op_counts(kept).at("NeeGroupNorm"), 1) << blocked;
  }
}

}  // namespace
}  // namespace nee
