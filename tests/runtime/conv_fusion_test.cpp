// fuse_conv on small ONNX graphs: which nodes it fuses, and that the fused graph computes
// what the unfused one does (a Session without an optimizer) on the reference kernels;
// then a small CNN whose NeeConv nodes run from a default-schedule bundle; then
// block_activations: which values it blocks, and the same graph computed with blocked
// activations on the reference kernels and from a bundle.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/activation_layout.h"
#include "core/conv2d_workload.h"
#include "core/error.h"
#include "core/pool2d_workload.h"
#include "importer/import_onnx.h"
#include "onnx_model_builder.h"
#include "runtime/bundle/kernel_bundle.h"
#include "runtime/node_workload.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"
#include "runtime/tensor_io.h"
#include "tuner/compile/bundle_builder.h"
#include "tuner/compile/kernel_compiler.h"

namespace nee {
namespace {

namespace fs = std::filesystem;
using test::OnnxModelBuilder;
using test::set_attr;

Tensor positive(const std::vector<int64_t>& shape, uint64_t seed) {
  Tensor t = random_tensor({DType::f32, shape}, seed);
  for (int64_t i = 0; i < t.elements(); ++i) t.data_as<float>()[i] = 0.5f + std::fabs(t.data_as<float>()[i]);
  return t;
}

// A Conv (with its weights, optional bias) as node `name` reading `in`, writing `out`.
void conv(OnnxModelBuilder& m, const std::string& name, const std::string& in, const std::string& out,
          std::vector<int64_t> w_shape, bool bias, int64_t pad, int64_t stride = 1, int64_t group = 1,
          uint64_t seed = 1) {
  m.initializer(name + "_w", random_tensor({DType::f32, w_shape}, seed));
  std::vector<std::string> inputs = {in, name + "_w"};
  if (bias) {
    m.initializer(name + "_b", random_tensor({DType::f32, {w_shape[0]}}, seed + 1));
    inputs.push_back(name + "_b");
  }
  auto& node = m.node("Conv", inputs, {out}, name);
  set_attr(node, "pads", std::vector<int64_t>{pad, pad, pad, pad});
  set_attr(node, "strides", std::vector<int64_t>{stride, stride});
  set_attr(node, "group", group);
}

void batch_norm(OnnxModelBuilder& m, const std::string& name, const std::string& in, const std::string& out,
                int64_t channels, uint64_t seed) {
  m.initializer(name + "_scale", random_tensor({DType::f32, {channels}}, seed));
  m.initializer(name + "_bias", random_tensor({DType::f32, {channels}}, seed + 1));
  m.initializer(name + "_mean", random_tensor({DType::f32, {channels}}, seed + 2));
  m.initializer(name + "_var", positive({channels}, seed + 3));
  set_attr(m.node("BatchNormalization",
                  {in, name + "_scale", name + "_bias", name + "_mean", name + "_var"}, {out}, name),
           "epsilon", 1e-3f);
}

// The nodes of `g` that run `op`, in order.
std::vector<const Node*> nodes_of(const Graph& g, const std::string& op) {
  std::vector<const Node*> found;
  for (const Node& n : g.nodes()) {
    if (n.op == op) found.push_back(&n);
  }
  return found;
}

std::vector<std::string> ops_after_optimize(const std::string& bytes) {
  Graph g = import_onnx_bytes(bytes);
  optimize_graph(g);
  std::vector<std::string> ops;
  for (const Node& n : g.nodes()) ops.push_back(n.op);
  return ops;
}

// The fused and unfused graphs on the reference kernels, on two random inputs.
void expect_fused_matches_unfused(const std::string& bytes, const std::vector<int64_t>& x_shape) {
  Session fused(import_onnx_bytes(bytes), {}, SessionOptions{optimize_graph});
  Session unfused(import_onnx_bytes(bytes), {});
  for (uint64_t seed : {7, 8}) {
    const Tensor x = random_tensor({DType::f32, x_shape}, seed);
    const Tensor got = fused.run({{"x", x}}).at("y");
    const Tensor want = unfused.run({{"x", x}}).at("y");
    ASSERT_EQ(got.shape(), want.shape());
    for (int64_t i = 0; i < got.elements(); ++i) {
      ASSERT_NEAR(got.data_as<float>()[i], want.data_as<float>()[i], 1e-5) << i;
    }
  }
}

TEST(ConvFusion, ConvBatchNormReluBecomesOneNode) {
  OnnxModelBuilder m;
  m.input("x", {2, 3, 7, 9}).output("y", {2, 4, 7, 9});
  conv(m, "c", "x", "c_out", {4, 3, 3, 3}, true, 1);
  batch_norm(m, "bn", "c_out", "bn_out", 4, 20);
  m.node("Relu", {"bn_out"}, {"y"}, "relu");
  const std::string bytes = m.bytes();
  EXPECT_EQ(ops_after_optimize(bytes), std::vector<std::string>{"NeeConv"});
  expect_fused_matches_unfused(bytes, {2, 3, 7, 9});
}

TEST(ConvFusion, BatchNormWithoutConvBiasThenResidualAddAndRelu) {
  OnnxModelBuilder m;
  m.input("x", {1, 4, 6, 6}).output("y", {1, 4, 6, 6});
  conv(m, "c", "x", "c_out", {4, 4, 3, 3}, false, 1);
  batch_norm(m, "bn", "c_out", "bn_out", 4, 30);
  m.node("Add", {"x", "bn_out"}, {"sum"}, "residual");
  m.node("Relu", {"sum"}, {"y"}, "relu");
  const std::string bytes = m.bytes();
  Graph g = import_onnx_bytes(bytes);
  optimize_graph(g);
  ASSERT_EQ(g.nodes().size(), 1u);
  const Node& n = g.nodes()[0];
  EXPECT_EQ(n.op, "NeeConv");
  EXPECT_EQ(n.attrs.get_int("bias"), 1);
  EXPECT_EQ(n.attrs.get_int("residual"), 1);
  EXPECT_EQ(n.attrs.get_string("activation"), "relu");
  EXPECT_EQ(n.inputs.size(), 4u);
  EXPECT_EQ(n.inputs[3], "x");
  const std::optional<Workload> w = workload_of(g, n);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->op, "conv2d");
  EXPECT_EQ(w->inputs.size(), 4u);
  expect_fused_matches_unfused(bytes, {1, 4, 6, 6});
}

TEST(ConvFusion, ClipWithConstantBounds) {
  OnnxModelBuilder m;
  m.input("x", {1, 6, 8, 8}).output("y", {1, 6, 4, 4});
  conv(m, "dw", "x", "c_out", {6, 1, 3, 3}, true, 1, 2, 6);
  m.initializer("lo", test::make_f32({}, {-0.2f}));
  m.initializer("hi", test::make_f32({}, {0.3f}));
  m.node("Clip", {"c_out", "lo", "hi"}, {"y"}, "clip");
  const std::string bytes = m.bytes();
  Graph g = import_onnx_bytes(bytes);
  optimize_graph(g);
  ASSERT_EQ(g.nodes().size(), 1u);
  EXPECT_EQ(g.nodes()[0].attrs.get_string("activation"), "clip");
  EXPECT_FLOAT_EQ(g.nodes()[0].attrs.get_float("clip_min"), -0.2f);
  EXPECT_FLOAT_EQ(g.nodes()[0].attrs.get_float("clip_max"), 0.3f);
  expect_fused_matches_unfused(bytes, {1, 6, 8, 8});
}

TEST(ConvFusion, SiluBecomesTheActivation) {
  OnnxModelBuilder m;
  m.input("x", {1, 3, 6, 7}).output("y", {1, 4, 6, 7});
  conv(m, "c", "x", "c_out", {4, 3, 3, 3}, true, 1);
  m.node("Sigmoid", {"c_out"}, {"gate"}, "sigmoid");
  m.node("Mul", {"gate", "c_out"}, {"y"}, "mul");
  const std::string bytes = m.bytes();
  Graph g = import_onnx_bytes(bytes);
  optimize_graph(g);
  ASSERT_EQ(g.nodes().size(), 1u);
  EXPECT_EQ(g.nodes()[0].attrs.get_string("activation"), "silu");
  const std::optional<Workload> w = workload_of(g, g.nodes()[0]);
  ASSERT_TRUE(w);
  EXPECT_EQ(conv2d_attrs(*w).activation, ConvActivation::silu);
  expect_fused_matches_unfused(bytes, {1, 3, 6, 7});
}

// PyTorch's Hardswish before opset 14: x * HardSigmoid(x) with alpha 1/6 (beta 0.5 by
// default), in either operand order.
TEST(ConvFusion, HardswishBecomesTheActivation) {
  OnnxModelBuilder m;
  m.input("x", {1, 3, 6, 7}).output("y", {1, 4, 6, 7});
  conv(m, "c", "x", "c_out", {4, 3, 3, 3}, true, 1);
  set_attr(m.node("HardSigmoid", {"c_out"}, {"gate"}, "hard_sigmoid"), "alpha", 1.0f / 6.0f);
  m.node("Mul", {"c_out", "gate"}, {"y"}, "mul");
  const std::string bytes = m.bytes();
  Graph g = import_onnx_bytes(bytes);
  optimize_graph(g);
  ASSERT_EQ(g.nodes().size(), 1u);
  EXPECT_EQ(g.nodes()[0].attrs.get_string("activation"), "hardswish");
  const std::optional<Workload> w = workload_of(g, g.nodes()[0]);
  ASSERT_TRUE(w);
  EXPECT_EQ(conv2d_attrs(*w).activation, ConvActivation::hardswish);
  expect_fused_matches_unfused(bytes, {1, 3, 6, 7});
}

TEST(ConvFusion, HardSwishOperatorBecomesTheActivation) {
  OnnxModelBuilder m;
  m.input("x", {1, 3, 6, 7}).output("y", {1, 4, 6, 7});
  conv(m, "c", "x", "c_out", {4, 3, 3, 3}, true, 1);
  m.node("HardSwish", {"c_out"}, {"y"}, "hard_swish");
  const std::string bytes = m.bytes();
  Graph g = import_onnx_bytes(bytes);
  optimize_graph(g);
  ASSERT_EQ(g.nodes().size(), 1u);
  EXPECT_EQ(g.nodes()[0].attrs.get_string("activation"), "hardswish");
  expect_fused_matches_unfused(bytes, {1, 3, 6, 7});
}

// The squeeze-and-excitation gate of MobileNetV3 ends in PyTorch's Hardsigmoid; another
// alpha (ONNX's default 0.2) is not the fused epilogue's and stays a node of its own.
TEST(ConvFusion, HardSigmoidWithPyTorchConstantsBecomesTheActivation) {
  for (const float alpha : {1.0f / 6.0f, 0.2f}) {
    OnnxModelBuilder m;
    m.input("x", {1, 8, 1, 1}).output("y", {1, 8, 1, 1});
    conv(m, "fc", "x", "c_out", {8, 8, 1, 1}, true, 0);
    set_attr(m.node("HardSigmoid", {"c_out"}, {"y"}, "gate"), "alpha", alpha);
    const std::string bytes = m.bytes();
    Graph g = import_onnx_bytes(bytes);
    optimize_graph(g);
    const bool standard = alpha != 0.2f;
    ASSERT_EQ(g.nodes().size(), standard ? 1u : 2u) << alpha;
    EXPECT_EQ(g.nodes()[0].attrs.get_string("activation"), standard ? "hardsigmoid" : "none") << alpha;
    expect_fused_matches_unfused(bytes, {1, 8, 1, 1});
  }
}

TEST(ConvFusion, GeluAfterBatchNormBecomesTheActivation) {
  OnnxModelBuilder m;
  m.input("x", {1, 3, 5, 5}).output("y", {1, 4, 5, 5});
  conv(m, "c", "x", "c_out", {4, 3, 3, 3}, false, 1);
  batch_norm(m, "bn", "c_out", "z", 4, 90);
  m.initializer("sqrt2", test::make_f32({}, {1.41421354f}));
  m.initializer("one", test::make_f32({}, {1.0f}));
  m.initializer("half", test::make_f32({}, {0.5f}));
  // The association x * (0.5 * (1 + erf)) of the GELU product.
  m.node("Div", {"z", "sqrt2"}, {"scaled"}, "div");
  m.node("Erf", {"scaled"}, {"erf"}, "erf");
  m.node("Add", {"one", "erf"}, {"sum"}, "add");
  m.node("Mul", {"sum", "half"}, {"half_sum"}, "mul_half");
  m.node("Mul", {"z", "half_sum"}, {"y"}, "mul_x");
  const std::string bytes = m.bytes();
  Graph g = import_onnx_bytes(bytes);
  optimize_graph(g);
  ASSERT_EQ(g.nodes().size(), 1u);
  EXPECT_EQ(g.nodes()[0].attrs.get_string("activation"), "gelu");
  expect_fused_matches_unfused(bytes, {1, 3, 5, 5});
}

TEST(ConvFusion, SharedConvOutputIsNotFused) {
  OnnxModelBuilder m;
  m.input("x", {1, 3, 5, 5}).output("y", {1, 4, 5, 5});
  conv(m, "c", "x", "c_out", {4, 3, 3, 3}, true, 1);
  m.node("Relu", {"c_out"}, {"r"}, "relu");
  m.node("Add", {"c_out", "r"}, {"y"}, "add");
  const std::string bytes = m.bytes();
  // The Relu and the Add become one elementwise node reading the conv's output.
  EXPECT_EQ(ops_after_optimize(bytes), (std::vector<std::string>{"NeeConv", "NeeElementwise"}));
  expect_fused_matches_unfused(bytes, {1, 3, 5, 5});
}

TEST(ConvFusion, OneDimensionalConvWithWeightsNotConstantStaysConv) {
  OnnxModelBuilder m;
  m.input("x", {1, 2, 9}).input("w", {3, 2, 3}).output("y", {1, 3, 9});
  set_attr(m.node("Conv", {"x", "w"}, {"c"}, "conv1d"), "pads", std::vector<int64_t>{1, 1});
  m.node("Relu", {"c"}, {"y"}, "relu");
  // The Relu is not fused into the 1-D Conv; the elementwise pass takes it alone.
  EXPECT_EQ(ops_after_optimize(m.bytes()), (std::vector<std::string>{"Conv", "NeeElementwise"}));
}

TEST(ConvFusion, GroupOneConstantWeightsAreChannelBlockedOnce) {
  OnnxModelBuilder m;
  m.input("x", {1, 4, 6, 6}).input("w_in", {20, 4, 1, 1}).output("y", {1, 20, 6, 6});
  m.output("z", {1, 4, 6, 6}).output("v", {1, 20, 6, 6});
  conv(m, "a", "x", "a_out", {20, 4, 3, 3}, true, 1, 1, 1, 90);
  // b reads a's weights too; g is grouped; d's weights are a graph input.
  set_attr(m.node("Conv", {"x", "a_w"}, {"b_out"}, "b"), "pads", std::vector<int64_t>{1, 1, 1, 1});
  m.node("Add", {"a_out", "b_out"}, {"y"}, "sum");
  conv(m, "g", "x", "z", {4, 2, 3, 3}, false, 1, 1, 2, 95);
  m.node("Conv", {"x", "w_in"}, {"v"}, "d");
  const std::string bytes = m.bytes();
  Graph g = import_onnx_bytes(bytes);
  optimize_graph(g);
  std::map<std::string, const Node*> convs;
  for (const Node& n : g.nodes()) {
    if (n.op == "NeeConv") convs[n.name] = &n;
  }
  ASSERT_EQ(convs.size(), 4u);
  EXPECT_EQ(convs.at("a")->attrs.get_int("weight_block", 0), 16);
  EXPECT_EQ(convs.at("a")->inputs[1], convs.at("b")->inputs[1]);  // one blocked copy
  EXPECT_EQ(g.type_of(convs.at("a")->inputs[1]).shape, (std::vector<int64_t>{2, 4, 3, 3, 16}));
  EXPECT_FALSE(g.has_value("a_w"));  // the plain copy is gone
  EXPECT_EQ(convs.at("g")->attrs.get_int("weight_block", 0), 0);
  EXPECT_EQ(convs.at("d")->attrs.get_int("weight_block", 0), 0);
  const std::optional<Workload> w = workload_of(g, *convs.at("a"));
  ASSERT_TRUE(w);
  EXPECT_EQ(w->inputs[1].shape, (std::vector<int64_t>{2, 4, 3, 3, 16}));
  EXPECT_EQ(conv2d_attrs(*w).weight_block, 16);
  EXPECT_DOUBLE_EQ(w->flops(), 2.0 * 20 * 36 * 4 * 9);

  Session fused(import_onnx_bytes(bytes), {}, SessionOptions{optimize_graph});
  Session unfused(import_onnx_bytes(bytes), {});
  const Tensor x = random_tensor({DType::f32, {1, 4, 6, 6}}, 5);
  const Tensor w_in = random_tensor({DType::f32, {20, 4, 1, 1}}, 6);
  auto got = fused.run({{"x", x}, {"w_in", w_in}});
  auto want = unfused.run({{"x", x}, {"w_in", w_in}});
  for (const char* name : {"y", "z", "v"}) {
    const Tensor& a = got.at(name);
    const Tensor& b = want.at(name);
    ASSERT_EQ(a.shape(), b.shape()) << name;
    for (int64_t i = 0; i < a.elements(); ++i) ASSERT_NEAR(a.data_as<float>()[i], b.data_as<float>()[i], 1e-5) << name;
  }
}

// Conv+BN+Relu, Conv+BN + residual Add + Relu, GlobalAveragePool, Flatten, Gemm.
std::string small_cnn_bytes() {
  OnnxModelBuilder m;
  m.input("x", {2, 3, 12, 12}).output("y", {2, 5});
  conv(m, "c1", "x", "c1_out", {8, 3, 3, 3}, true, 1, 1, 1, 40);
  batch_norm(m, "bn1", "c1_out", "bn1_out", 8, 50);
  m.node("Relu", {"bn1_out"}, {"a1"}, "relu1");
  conv(m, "c2", "a1", "c2_out", {8, 8, 3, 3}, false, 1, 1, 1, 60);
  batch_norm(m, "bn2", "c2_out", "bn2_out", 8, 70);
  m.node("Add", {"bn2_out", "a1"}, {"sum"}, "residual");
  m.node("Relu", {"sum"}, {"a2"}, "relu2");
  m.node("GlobalAveragePool", {"a2"}, {"pooled"}, "pool");
  m.node("Flatten", {"pooled"}, {"flat"}, "flatten");
  m.initializer("fc_w", random_tensor({DType::f32, {5, 8}}, 80));
  m.initializer("fc_b", random_tensor({DType::f32, {5}}, 81));
  set_attr(m.node("Gemm", {"flat", "fc_w", "fc_b"}, {"y"}, "fc"), "transB", int64_t{1});
  return m.bytes();
}

// Writes the model into `root` as cnn.onnx, builds its default-schedule bundle with the
// graph rewrites `options` and loads it.
std::shared_ptr<KernelBundle> default_bundle(const std::string& root, const std::string& model_bytes,
                                             const GraphOptions& options) {
  const std::string model = root + "/cnn.onnx";
  {
    std::ofstream out(model, std::ios::binary);
    out << model_bytes;
  }
  Graph graph = import_onnx(model);
  optimize_graph(graph, options);
  BundleRequest request;
  request.workloads = extract_workloads(graph);
  request.target = host_target(TargetKind::cpu);
  request.model_path = model;
  request.output_dir = root + "/bundle";
  request.use_database = false;
  request.graph = options;
  build_bundle(nullptr, request);
  BundleLoadOptions load;
  load.model_path = model;
  return KernelBundle::load(root + "/bundle", load);
}

// Every NeeConv of `session` ran on the bundle, and there were `expected` of them.
void expect_convs_on_bundle(const Session& session, int expected) {
  int convs = 0;
  for (const Placement& p : session.placements()) {
    if (p.op != "NeeConv") continue;
    ++convs;
    EXPECT_EQ(p.provider, "bundle") << p.node;
  }
  EXPECT_EQ(convs, expected);
}

TEST(ConvFusion, SmallCnnRunsItsConvsFromADefaultScheduleBundle) {
  std::string root = ::testing::TempDir() + "nee-conv-bundle-XXXXXX";
  ASSERT_NE(mkdtemp(root.data()), nullptr);
  const std::string model = root + "/cnn.onnx";
  std::vector<std::unique_ptr<KernelProvider>> providers;
  providers.push_back(make_bundle_provider(default_bundle(root, small_cnn_bytes(), GraphOptions{})));
  Session with_bundle(import_onnx(model), std::move(providers), SessionOptions{optimize_graph});
  Session reference(import_onnx(model), {});
  for (uint64_t seed : {1, 2}) {
    const Tensor x = random_tensor({DType::f32, {2, 3, 12, 12}}, seed);
    const Tensor got = with_bundle.run({{"x", x}}).at("y");
    const Tensor want = reference.run({{"x", x}}).at("y");
    ASSERT_EQ(got.shape(), want.shape());
    double total = 0;
    for (int64_t i = 0; i < got.elements(); ++i) {
      EXPECT_NEAR(got.data_as<float>()[i], want.data_as<float>()[i], 1e-4) << i;
      total += std::fabs(want.data_as<float>()[i]);
    }
    EXPECT_GT(total, 0);
  }
  expect_convs_on_bundle(with_bundle, 2);
  std::error_code ec;
  fs::remove_all(root, ec);
}


// Three convs in a chain (the first from 3 channels), a residual 1x1 conv, a depthwise
// conv, a residual 1x1 conv before GlobalAveragePool, a 24-channel conv that is a graph
// output, and a depthwise conv after a MaxPool, on side x side planes.
std::string blocking_cnn_bytes(int64_t side = 10) {
  OnnxModelBuilder m;
  m.input("x", {1, 3, side, side}).output("y", {1, 32}).output("z", {1, 24, side, side}).output("u", {1, 16, side, side});
  conv(m, "c1", "x", "c1_out", {16, 3, 3, 3}, true, 1, 1, 1, 100);
  batch_norm(m, "bn1", "c1_out", "bn1_out", 16, 110);
  m.node("Relu", {"bn1_out"}, {"a1"}, "relu1");
  conv(m, "c2", "a1", "c2_out", {32, 16, 3, 3}, true, 1, 1, 1, 120);
  m.node("Relu", {"c2_out"}, {"a2"}, "relu2");
  conv(m, "c3", "a2", "c3_out", {32, 32, 1, 1}, true, 0, 1, 1, 130);
  m.node("Add", {"c3_out", "a2"}, {"sum3"}, "add3");
  m.node("Relu", {"sum3"}, {"a3"}, "relu3");
  conv(m, "dw", "a3", "d", {32, 1, 3, 3}, true, 1, 1, 32, 140);
  conv(m, "c4", "d", "c4_out", {32, 32, 1, 1}, false, 0, 1, 1, 150);
  m.node("Add", {"c4_out", "a3"}, {"a4"}, "add4");
  m.node("GlobalAveragePool", {"a4"}, {"pooled"}, "pool");
  m.node("Flatten", {"pooled"}, {"y"}, "flatten");
  conv(m, "c5", "a2", "z", {24, 32, 1, 1}, true, 0, 1, 1, 160);
  auto& pool = m.node("MaxPool", {"a2"}, {"m"}, "maxpool");
  set_attr(pool, "kernel_shape", std::vector<int64_t>{3, 3});
  set_attr(pool, "pads", std::vector<int64_t>{1, 1, 1, 1});
  conv(m, "dw2", "m", "w2", {32, 1, 3, 3}, true, 1, 1, 32, 170);
  conv(m, "c6", "w2", "u", {16, 32, 1, 1}, true, 0, 1, 1, 180);
  return m.bytes();
}

// Binds nothing, but asks for blocked activations (and Winograd convs where `options`
// say): the graph runs on reference kernels.
class BlockingReferenceProvider : public KernelProvider {
 public:
  explicit BlockingReferenceProvider(const GraphOptions& options) : options_(options) {}
  std::string name() const override { return "blocking"; }
  std::unique_ptr<NodeKernel> bind(const Graph&, const Node&) override { return nullptr; }
  std::optional<GraphOptions> graph_options() const override { return options_; }

 private:
  GraphOptions options_;
};

const GraphOptions kBlocked{true, true, false, true}, kBlockedWinograd{true, true, true, true};
// The runtime runs 3x3 convs as Winograd on planes of 14x14 or more (conv2d_winograd_tile).
constexpr int64_t kWinogradSide = 14;

void expect_outputs_near(std::map<std::string, Tensor> got, std::map<std::string, Tensor> want, double tolerance) {
  for (const char* name : {"y", "z", "u"}) {
    const Tensor& a = got.at(name);
    const Tensor& b = want.at(name);
    ASSERT_EQ(a.shape(), b.shape()) << name;
    double total = 0;
    for (int64_t i = 0; i < a.elements(); ++i) {
      ASSERT_NEAR(a.data_as<float>()[i], b.data_as<float>()[i], tolerance) << name << " " << i;
      total += std::fabs(b.data_as<float>()[i]);
    }
    EXPECT_GT(total, 0) << name;
  }
}

// Output y of `got` and `want` on random inputs x of `x_shape`, one per seed.
void expect_same_y(Session& got, Session& want, const std::vector<int64_t>& x_shape,
                   std::initializer_list<uint64_t> seeds) {
  for (uint64_t seed : seeds) {
    const Tensor x = random_tensor({DType::f32, x_shape}, seed);
    const Tensor a = got.run({{"x", x}}).at("y"), b = want.run({{"x", x}}).at("y");
    ASSERT_EQ(a.shape(), b.shape());
    for (int64_t i = 0; i < a.elements(); ++i) ASSERT_NEAR(a.data_as<float>()[i], b.data_as<float>()[i], 1e-4) << i;
  }
}

// The graph optimized with `options` on reference kernels against the unoptimized one.
void expect_blocked_matches_unfused(const std::string& bytes, const GraphOptions& options,
                                    const std::vector<int64_t>& x_shape, std::initializer_list<uint64_t> seeds) {
  std::vector<std::unique_ptr<KernelProvider>> providers;
  providers.push_back(std::make_unique<BlockingReferenceProvider>(options));
  Session blocked(import_onnx_bytes(bytes), std::move(providers), SessionOptions{optimize_graph});
  Session unfused(import_onnx_bytes(bytes), {});
  expect_same_y(blocked, unfused, x_shape, seeds);
}

TEST(BlockActivations, BlocksValuesThatConvsPassToConvs) {
  Graph g = import_onnx_bytes(blocking_cnn_bytes());
  optimize_graph(g, kBlocked);
  std::map<std::string, const Node*> by_name;
  int layouts = 0;
  for (const Node& n : g.nodes()) {
    by_name[n.name] = &n;
    if (n.op == "NeeLayout") ++layouts;
  }
  const auto blocks = [&](const char* node) {
    const Node& n = *by_name.at(node);
    return std::make_pair(n.attrs.get_int("input_block", 0), n.attrs.get_int("output_block", 0));
  };
  EXPECT_EQ(blocks("c1"), std::make_pair(int64_t{0}, int64_t{16}));   // 3 channels in
  EXPECT_EQ(blocks("c2"), std::make_pair(int64_t{16}, int64_t{16}));
  EXPECT_EQ(blocks("c3"), std::make_pair(int64_t{16}, int64_t{16}));
  EXPECT_EQ(blocks("dw"), std::make_pair(int64_t{16}, int64_t{16}));  // depthwise after a conv
  EXPECT_EQ(by_name.at("dw")->attrs.get_int("weight_block", 0), 16);
  EXPECT_EQ(blocks("c4"), std::make_pair(int64_t{16}, int64_t{0}));   // read by the global pool
  EXPECT_EQ(blocks("c5"), std::make_pair(int64_t{16}, int64_t{0}));   // a graph output
  // The MaxPool between c2 and the depthwise dw2 pools the blocked tensor.
  EXPECT_EQ(by_name.at("maxpool")->attrs.get_int("input_block", 0), 16);
  EXPECT_EQ(g.type_of(by_name.at("maxpool")->outputs[0]).shape, (std::vector<int64_t>{1, 2, 10, 10, 16}));
  EXPECT_EQ(g.producer(by_name.at("maxpool")->inputs[0])->name, "c2");
  EXPECT_EQ(blocks("dw2"), std::make_pair(int64_t{16}, int64_t{16}));
  EXPECT_EQ(by_name.at("dw2")->attrs.get_int("weight_block", 0), 16);
  EXPECT_EQ(blocks("c6"), std::make_pair(int64_t{16}, int64_t{0}));  // a graph output
  const std::optional<Workload> pool = workload_of(g, *by_name.at("maxpool"));
  ASSERT_TRUE(pool);
  EXPECT_EQ(pool2d_attrs(*pool).block, 16);
  EXPECT_EQ(pool->inputs[0].shape, (std::vector<int64_t>{1, 2, 10, 10, 16}));
  // The one copy back to NCHW: c3's output for c4's residual.
  EXPECT_EQ(layouts, 1);
  EXPECT_EQ(g.producer(by_name.at("c4")->inputs.back())->op, "NeeLayout");
  EXPECT_EQ(g.type_of(by_name.at("c2")->outputs[0]).shape, (std::vector<int64_t>{1, 2, 10, 10, 16}));
  const std::optional<Workload> w = workload_of(g, *by_name.at("c3"));
  ASSERT_TRUE(w);
  EXPECT_EQ(conv2d_attrs(*w).input_block, 16);
  EXPECT_EQ(conv2d_attrs(*w).output_block, 16);
  EXPECT_DOUBLE_EQ(w->flops(), 2.0 * 32 * 100 * 32);

  // Without block_pools (bundles from before it was recorded) the MaxPool reads NCHW.
  Graph nchw_pool = import_onnx_bytes(blocking_cnn_bytes());
  optimize_graph(nchw_pool, GraphOptions{true, true, false, false});
  for (const Node& n : nchw_pool.nodes()) {
    if (n.name == "maxpool") {
      EXPECT_EQ(n.attrs.get_int("input_block", 0), 0);
      EXPECT_EQ(nchw_pool.producer(n.inputs[0])->op, "NeeLayout");
    }
  }

  // With block_global_pool_inputs, c4's output, which only the global pool reads, is written
  // blocked and the pool reads it so, and c3's output reaches c4's residual as it is: no
  // copy is left (the pooled [1, 32, 1, 1] is viewed as NCHW for the Flatten). Without it
  // (block_elementwise alone) c4 writes NCHW, as before.
  for (const bool pool_inputs : {true, false}) {
    GraphOptions options = kBlocked;
    options.block_elementwise = true;
    options.block_global_pool_inputs = pool_inputs;
    Graph pooled = import_onnx_bytes(blocking_cnn_bytes());
    optimize_graph(pooled, options);
    int copies = 0;
    for (const Node& n : pooled.nodes()) {
      copies += n.op == "NeeLayout";
      if (n.name == "c4") {
        EXPECT_EQ(n.attrs.get_int("output_block", 0), pool_inputs ? 16 : 0);
      } else if (n.name == "pool") {
        EXPECT_EQ(n.attrs.get_int("input_block", 0), pool_inputs ? 16 : 0);
      } else if (n.name == "c5") {
        EXPECT_EQ(n.attrs.get_int("output_block", 0), 0);  // a graph output
      }
    }
    EXPECT_EQ(copies, pool_inputs ? 0 : 1);
    expect_blocked_matches_unfused(blocking_cnn_bytes(), options, {1, 3, 10, 10}, {21, 22});
  }

  // With Winograd on, c2 (3x3, stride 1, blocked on both sides) on 14x14 takes F(2x2, 3x3)
  // weights [32/16 blocks, 4x4 elements, 16 input channels, 16]; nothing else changes.
  Graph winograd = import_onnx_bytes(blocking_cnn_bytes(kWinogradSide));
  optimize_graph(winograd, kBlockedWinograd);
  for (const Node& n : winograd.nodes()) {
    if (n.op != "NeeConv") continue;
    EXPECT_EQ(n.attrs.get_int("winograd_tile", 0), n.name == "c2" ? 2 : 0) << n.name;
    EXPECT_EQ(n.attrs.get_int("output_block", 0), by_name.at(n.name)->attrs.get_int("output_block", 0)) << n.name;
    if (n.name == "c2") {
      EXPECT_EQ(winograd.type_of(n.inputs[1]).shape, (std::vector<int64_t>{2, 16, 16, 16}));
    }
  }

  // Without the option nothing is blocked.
  Graph plain = import_onnx_bytes(blocking_cnn_bytes());
  optimize_graph(plain);
  for (const Node& n : plain.nodes()) {
    EXPECT_NE(n.op, "NeeLayout");
    EXPECT_EQ(n.attrs.get_int("output_block", 0), 0) << n.name;
  }
}

TEST(BlockActivations, ReferenceKernelsComputeTheUnblockedGraph) {
  for (const GraphOptions& options : {kBlocked, kBlockedWinograd}) {
    const int64_t side = options.winograd ? kWinogradSide : 10;
    std::vector<std::unique_ptr<KernelProvider>> providers;
    providers.push_back(std::make_unique<BlockingReferenceProvider>(options));
    Session blocked(import_onnx_bytes(blocking_cnn_bytes(side)), std::move(providers), SessionOptions{optimize_graph});
    Session unfused(import_onnx_bytes(blocking_cnn_bytes(side)), {});
    for (uint64_t seed : {3, 4}) {
      const Tensor x = random_tensor({DType::f32, {1, 3, side, side}}, seed);
      expect_outputs_near(blocked.run({{"x", x}}), unfused.run({{"x", x}}), 1e-4);
    }
    bool blocked_conv = false, winograd_conv = false;
    for (const Node& n : blocked.graph().nodes()) {
      blocked_conv |= n.attrs.get_int("input_block", 0) != 0;
      winograd_conv |= n.attrs.get_int("winograd_tile", 0) != 0;
    }
    EXPECT_TRUE(blocked_conv);
    EXPECT_EQ(winograd_conv, options.winograd);
  }
}

// With layouts_as_transposes the one copy back to NCHW (c3's output for c4's residual) is a
// Transpose of blocked lanes behind planes, between Reshape views: a strided copy's workload.
TEST(BlockActivations, LayoutCopiesRunAsTransposes) {
  GraphOptions options = kBlocked;
  options.layouts_as_transposes = true;
  Graph g = import_onnx_bytes(blocking_cnn_bytes());
  optimize_graph(g, options);
  const Node* c4 = nullptr;
  for (const Node& n : g.nodes()) {
    EXPECT_NE(n.op, "NeeLayout") << n.name;
    if (n.name == "c4") c4 = &n;
  }
  ASSERT_NE(c4, nullptr);
  const Node* view = g.producer(c4->inputs.back());
  ASSERT_NE(view, nullptr);
  EXPECT_EQ(view->op, "Reshape");
  const Node* transpose = g.producer(view->inputs[0]);
  ASSERT_NE(transpose, nullptr);
  ASSERT_EQ(transpose->op, "Transpose");
  EXPECT_EQ(transpose->attrs.get_ints("perm"), (std::vector<int64_t>{0, 1, 4, 2, 3}));
  const std::optional<Workload> copy = workload_of(g, *transpose);
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->inputs[0].shape, (std::vector<int64_t>{1, 2, 10, 10, 16}));
  EXPECT_EQ(copy->output.shape, (std::vector<int64_t>{1, 2, 16, 10, 10}));
  expect_blocked_matches_unfused(blocking_cnn_bytes(), options, {1, 3, 10, 10}, {21, 22});
}

// A super-resolution tail (ESPCN's): a conv from 16 to 32 channels, Relu, a conv to 48
// channels and a PixelShuffle (DepthToSpace, CRD, blocksize 4) to 3 channels.
std::string pixel_shuffle_bytes() {
  OnnxModelBuilder m;
  m.input("x", {1, 16, 6, 7}).output("y", {1, 3, 24, 28});
  conv(m, "c1", "x", "c1_out", {32, 16, 3, 3}, true, 1, 1, 1, 190);
  m.node("Relu", {"c1_out"}, {"a1"}, "relu1");
  conv(m, "c2", "a1", "c2_out", {48, 32, 3, 3}, true, 1, 1, 1, 200);
  auto& shuffle = m.node("DepthToSpace", {"c2_out"}, {"y"}, "shuffle");
  set_attr(shuffle, "blocksize", int64_t{4});
  test::set_string_attr(shuffle, "mode", "CRD");
  return m.bytes();
}

// With compose_transposes the PixelShuffle is a Transpose, and the conv before it writes
// blocked: the copy back to NCHW and the shuffle compose into one Transpose of its
// output. Without layouts_as_transposes the conv writes NCHW.
TEST(BlockActivations, AConvWritesBlockedForATransposeThatComposes) {
  for (const bool transposes : {true, false}) {
    GraphOptions options = kBlocked;
    options.compose_transposes = true;
    options.layouts_as_transposes = transposes;
    Graph g = import_onnx_bytes(pixel_shuffle_bytes());
    optimize_graph(g, options);
    std::map<std::string, int> ops;
    const Node* c2 = nullptr;
    for (const Node& n : g.nodes()) {
      ++ops[n.op];
      if (n.name == "c2") c2 = &n;
    }
    ASSERT_NE(c2, nullptr);
    EXPECT_EQ(c2->attrs.get_int("output_block", 0), transposes ? 16 : 0);
    EXPECT_EQ(ops["Transpose"], 1) << transposes;
    EXPECT_EQ(ops["DepthToSpace"] + ops["NeeLayout"], 0) << transposes;
    expect_blocked_matches_unfused(pixel_shuffle_bytes(), options, {1, 16, 6, 7}, {23, 24});
  }
}

// A fire module (SqueezeNet's): a squeeze conv, two expand convs concatenated along
// channels, read by the next conv; a Relu of the squeeze joins the concat from NCHW.
std::string fire_module_bytes() {
  test::OnnxModelBuilder m;
  m.input("x", {1, 16, 8, 8}).output("y", {1, 16, 8, 8});
  conv(m, "squeeze", "x", "s", {16, 16, 1, 1}, true, 0);
  conv(m, "expand1", "s", "e1", {16, 16, 1, 1}, true, 0, 1, 1, 2);
  conv(m, "expand3", "s", "e3", {16, 16, 3, 3}, true, 1, 1, 1, 3);
  m.node("Relu", {"s"}, {"r"}, "relu");
  set_attr(m.node("Concat", {"e1", "e3", "r"}, {"cat"}, "concat"), "axis", int64_t{1});
  conv(m, "next", "cat", "y", {16, 48, 1, 1}, true, 0, 1, 1, 4);
  return m.bytes();
}

TEST(BlockActivations, ChannelConcatenationsOfConvOutputsStayBlocked) {
  Graph g = import_onnx_bytes(fire_module_bytes());
  optimize_graph(g, kBlocked);
  std::map<std::string, const Node*> by_name;
  for (const Node& n : g.nodes()) by_name[n.name] = &n;
  for (const char* expand : {"expand1", "expand3"}) {
    EXPECT_EQ(by_name.at(expand)->attrs.get_int("output_block", 0), 16) << expand;
  }
  const Node& concat = *by_name.at("concat");
  EXPECT_EQ(g.type_of(concat.outputs[0]).shape, (std::vector<int64_t>{1, 3, 8, 8, 16}));
  EXPECT_EQ(concat.attrs.get_int("axis"), 1);  // the block axis
  EXPECT_EQ(by_name.at("next")->attrs.get_int("input_block", 0), 16);
  // The Relu's NCHW output joins through a copy into the blocked layout.
  const Node* relu_in = g.producer(concat.inputs[2]);
  ASSERT_NE(relu_in, nullptr);
  EXPECT_EQ(relu_in->op, "NeeLayout");
  EXPECT_EQ(relu_in->attrs.get_string("to"), "nchw16c");

  expect_blocked_matches_unfused(fire_module_bytes(), kBlocked, {1, 16, 8, 8}, {11, 12});
}

// A squeeze-and-excite block (EfficientNet's) and a lone BatchNormalization (DenseNet's):
// a conv, a depthwise conv whose output a global pool squeezes, two 1x1 convs making a
// per-channel gate, the gate times the depthwise output, a BatchNormalization and Relu,
// and the 1x1 conv that reads them.
std::string squeeze_excite_bytes() {
  OnnxModelBuilder m;
  m.input("x", {1, 16, 8, 8}).output("y", {1, 16, 8, 8});
  conv(m, "c1", "x", "c1_out", {32, 16, 3, 3}, true, 1, 1, 1, 200);
  m.node("Relu", {"c1_out"}, {"a1"}, "relu1");
  conv(m, "dw", "a1", "d", {32, 1, 3, 3}, true, 1, 1, 32, 210);
  m.node("GlobalAveragePool", {"d"}, {"squeezed"}, "pool");
  conv(m, "fc1", "squeezed", "fc1_out", {8, 32, 1, 1}, true, 0, 1, 1, 220);
  m.node("Relu", {"fc1_out"}, {"r"}, "relu_fc1");
  conv(m, "fc2", "r", "fc2_out", {32, 8, 1, 1}, true, 0, 1, 1, 230);
  m.node("Sigmoid", {"fc2_out"}, {"gate"}, "sigmoid");
  m.node("Mul", {"gate", "d"}, {"excited"}, "excite");
  batch_norm(m, "bn", "excited", "normed", 32, 240);
  m.node("Relu", {"normed"}, {"a2"}, "relu2");
  conv(m, "c2", "a2", "y", {16, 32, 1, 1}, true, 0, 1, 1, 250);
  return m.bytes();
}

const GraphOptions kBlockedElementwise = [] {
  GraphOptions o = kBlocked;
  o.block_elementwise = true;
  return o;
}();

TEST(BlockActivations, SqueezeExciteAndLoneBatchNormsRunBlocked) {
  Graph g = import_onnx_bytes(squeeze_excite_bytes());
  optimize_graph(g, kBlockedElementwise);
  std::map<std::string, const Node*> by_name;
  const Node* elementwise = nullptr;
  for (const Node& n : g.nodes()) {
    by_name[n.name] = &n;
    EXPECT_NE(n.op, "NeeLayout") << n.name;  // nothing is copied between layouts
    EXPECT_NE(n.op, "BatchNormalization");
    if (n.op == "NeeElementwise") {
      EXPECT_EQ(elementwise, nullptr) << "the gate's Mul, the BatchNormalization and the Relu are one node";
      elementwise = &n;
    }
  }
  EXPECT_EQ(by_name.at("dw")->attrs.get_int("output_block", 0), 16);
  const Node& pool = *by_name.at("pool");
  EXPECT_EQ(pool.attrs.get_int("input_block", 0), 16);
  EXPECT_EQ(g.type_of(pool.outputs[0]).shape, (std::vector<int64_t>{1, 2, 1, 1, 16}));
  const std::optional<Workload> pool_work = workload_of(g, pool);
  ASSERT_TRUE(pool_work);
  EXPECT_EQ(pool2d_attrs(*pool_work).block, 16);
  // The 1x1 convs of the gate read and write the [1, 32, 1, 1] values blocked (the same bytes).
  EXPECT_EQ(by_name.at("fc1")->attrs.get_int("input_block", 0), 16);
  EXPECT_EQ(by_name.at("fc2")->attrs.get_int("output_block", 0), 16);
  ASSERT_NE(elementwise, nullptr);
  EXPECT_EQ(g.type_of(elementwise->outputs[0]).shape, (std::vector<int64_t>{1, 2, 8, 8, 16}));
  int views = 0;
  for (const std::string& in : elementwise->inputs) {
    const std::vector<int64_t>& shape = g.type_of(in).shape;
    if (shape == std::vector<int64_t>{1, 2, 8, 8, 16}) continue;  // the depthwise output
    EXPECT_EQ(shape, (std::vector<int64_t>{1, 2, 1, 1, 16})) << in;
    // The norm's [32, 1, 1] constants are viewed blocked.
    views += g.producer(in)->op == "Reshape";
  }
  EXPECT_EQ(views, 2);
  EXPECT_EQ(by_name.at("c2")->attrs.get_int("input_block", 0), 16);

  // Without the option the pool and the elementwise node read NCHW, and the norm stays.
  Graph nchw = import_onnx_bytes(squeeze_excite_bytes());
  optimize_graph(nchw, kBlocked);
  int norms = 0;
  for (const Node& n : nchw.nodes()) {
    norms += n.op == "BatchNormalization";
    if (n.name == "pool") {
      EXPECT_EQ(n.attrs.get_int("input_block", 0), 0);
    }
  }
  EXPECT_EQ(norms, 1);

  expect_blocked_matches_unfused(squeeze_excite_bytes(), kBlockedElementwise, {1, 16, 8, 8}, {13, 14});
}

TEST(BlockActivations, SqueezeExciteRunsBlockedFromABundle) {
  std::string root = ::testing::TempDir() + "nee-blocked-se-XXXXXX";
  ASSERT_NE(mkdtemp(root.data()), nullptr);
  const std::shared_ptr<KernelBundle> bundle = default_bundle(root, squeeze_excite_bytes(), kBlockedElementwise);
  EXPECT_TRUE(bundle->manifest().graph == kBlockedElementwise);
  std::vector<std::unique_ptr<KernelProvider>> providers;
  providers.push_back(make_bundle_provider(bundle));
  Session with_bundle(import_onnx(root + "/cnn.onnx"), std::move(providers), SessionOptions{optimize_graph});
  Session reference(import_onnx(root + "/cnn.onnx"), {});
  expect_same_y(with_bundle, reference, {1, 16, 8, 8}, {15, 16});
  int on_bundle = 0;
  for (const Placement& p : with_bundle.placements()) {
    if (p.op != "GlobalAveragePool" && p.op != "NeeElementwise") continue;
    EXPECT_EQ(p.provider, "bundle") << p.node;
    ++on_bundle;
  }
  EXPECT_EQ(on_bundle, 2);
  std::error_code ec;
  fs::remove_all(root, ec);
}

// ResNeXt's grouped convs: one of 2 groups of 32 channels (whole blocks) and one of 16
// groups of 4 channels between group-1 convs.
std::string grouped_convs_bytes() {
  OnnxModelBuilder m;
  m.input("x", {1, 16, 8, 8}).output("y", {1, 16, 8, 8});
  conv(m, "c1", "x", "c1_out", {64, 16, 1, 1}, true, 0, 1, 1, 300);
  m.node("Relu", {"c1_out"}, {"a1"}, "relu1");
  conv(m, "whole_blocks", "a1", "g1", {64, 32, 3, 3}, true, 1, 1, 2, 310);
  m.node("Relu", {"g1"}, {"a2"}, "relu2");
  conv(m, "small_groups", "a2", "g2", {64, 4, 3, 3}, true, 1, 1, 16, 320);
  conv(m, "c2", "g2", "y", {16, 64, 1, 1}, true, 0, 1, 1, 330);
  return m.bytes();
}

TEST(BlockActivations, GroupsOfWholeBlocksRunBlocked) {
  GraphOptions options = kBlockedElementwise;
  options.block_grouped_convs = true;
  Graph g = import_onnx_bytes(grouped_convs_bytes());
  optimize_graph(g, options);
  std::map<std::string, const Node*> by_name;
  for (const Node& n : g.nodes()) by_name[n.name] = &n;
  const Node& whole = *by_name.at("whole_blocks");
  EXPECT_EQ(whole.attrs.get_int("weight_block", 0), 16);
  EXPECT_EQ(whole.attrs.get_int("input_block", 0), 16);
  EXPECT_EQ(whole.attrs.get_int("output_block", 0), 0);  // read by the small groups' conv, which reads NCHW
  const Node& small = *by_name.at("small_groups");
  EXPECT_EQ(small.attrs.get_int("weight_block", 0), 0);
  EXPECT_EQ(small.attrs.get_int("input_block", 0), 0);
  const std::optional<Workload> w = workload_of(g, whole);
  ASSERT_TRUE(w);
  EXPECT_EQ(conv2d_attrs(*w).group, 2);
  EXPECT_EQ(w->inputs[1].shape, (std::vector<int64_t>{4, 32, 3, 3, 16}));

  // Without the option (bundles from before it) grouped weights stay OIHW.
  Graph plain = import_onnx_bytes(grouped_convs_bytes());
  optimize_graph(plain, kBlockedElementwise);
  for (const Node& n : plain.nodes()) {
    if (n.name == "whole_blocks") {
      EXPECT_EQ(n.attrs.get_int("weight_block", 0), 0);
    }
  }

  expect_blocked_matches_unfused(grouped_convs_bytes(), options, {1, 16, 8, 8}, {17, 18});
}

// MobileNetV3-style layers whose channels are not multiples of 16: a conv of 40 from the
// 24-channel input, a depthwise conv, a squeeze-excite gate (a global pool, convs of 10
// and 40 channels, a Sigmoid, the Mul), a projection to 24 channels read by a conv with
// it as its residual and by a Sigmoid that is a graph output. The residual conv's output
// q is read by a conv of 16 channels, by the square root of its magnitude and by a
// Concat of the two; the last conv reads the Concat and adds the 16-channel conv.
std::string narrow_channels_bytes() {
  OnnxModelBuilder m;
  m.input("x", {1, 24, 8, 8}).output("y", {1, 16, 8, 8}).output("z", {1, 24, 8, 8});
  conv(m, "c1", "x", "c1_out", {40, 24, 3, 3}, true, 1, 1, 1, 400);
  m.node("Relu", {"c1_out"}, {"a"}, "relu1");
  conv(m, "dw", "a", "d", {40, 1, 3, 3}, true, 1, 1, 40, 410);
  m.node("GlobalAveragePool", {"d"}, {"s"}, "pool");
  conv(m, "fc1", "s", "fc1_out", {10, 40, 1, 1}, true, 0, 1, 1, 420);
  m.node("Relu", {"fc1_out"}, {"r"}, "relu_fc1");
  conv(m, "fc2", "r", "fc2_out", {40, 10, 1, 1}, true, 0, 1, 1, 430);
  m.node("Sigmoid", {"fc2_out"}, {"gate"}, "sigmoid");
  m.node("Mul", {"d", "gate"}, {"excited"}, "excite");
  conv(m, "proj", "excited", "p", {24, 40, 1, 1}, true, 0, 1, 1, 440);
  conv(m, "c2", "p", "c2_out", {24, 24, 1, 1}, true, 0, 1, 1, 450);
  m.node("Add", {"c2_out", "p"}, {"q"}, "add");
  m.node("Sigmoid", {"p"}, {"z"}, "graph_output");
  conv(m, "c3", "q", "u", {16, 24, 1, 1}, true, 0, 1, 1, 460);
  m.node("Abs", {"q"}, {"magnitude"}, "abs");
  m.node("Sqrt", {"magnitude"}, {"e"}, "sqrt");
  set_attr(m.node("Concat", {"q", "e"}, {"cat"}, "concat"), "axis", int64_t{1});
  conv(m, "last", "cat", "last_out", {16, 48, 1, 1}, true, 0, 1, 1, 470);
  m.node("Add", {"last_out", "u"}, {"y"}, "add_last");
  return m.bytes();
}

TEST(PadChannels, ConvOutputsWidenWithZerosWhereAReaderTakesThemWide) {
  Graph g = import_onnx_bytes(narrow_channels_bytes());
  GraphOptions options;
  options.pad_channels = true;
  optimize_graph(g, options);
  std::map<std::string, const Node*> by_name;
  int slices = 0;
  for (const Node& n : g.nodes()) {
    by_name[n.name] = &n;
    slices += n.op == "Slice";
  }
  const auto channels = [&](const char* node) { return g.type_of(by_name.at(node)->outputs[0]).shape[1]; };
  EXPECT_EQ(channels("c1"), 48);
  EXPECT_EQ(channels("dw"), 48);
  EXPECT_EQ(by_name.at("dw")->attrs.get_int("group"), 48);
  EXPECT_EQ(channels("pool"), 48);
  EXPECT_EQ(channels("fc1"), 16);
  EXPECT_EQ(channels("fc2"), 48);
  EXPECT_EQ(channels("excite"), 48);  // the Sigmoid and the Mul, one elementwise node
  EXPECT_EQ(channels("proj"), 32);
  EXPECT_EQ(channels("c2"), 32);  // its residual is the widened projection
  // The graph output, the square root (which could make a NaN of what it reads) and the
  // Concat keep the model's channels, reading the widened values through one Slice per value.
  EXPECT_EQ(channels("graph_output"), 24);
  EXPECT_EQ(channels("sqrt"), 24);
  EXPECT_EQ(channels("concat"), 48);
  EXPECT_EQ(slices, 2);
  for (const char* reader : {"graph_output", "sqrt", "concat"}) {
    const Node* from = g.producer(by_name.at(reader)->inputs[0]);
    ASSERT_NE(from, nullptr) << reader;
    EXPECT_EQ(from->op, "Slice") << reader;
  }
  EXPECT_EQ(by_name.at("c3")->inputs[0], by_name.at("c2")->outputs[0]);  // a conv reads it widened
  // Weights and biases grow with zeros (pack_conv_weights then blocks them, [O/16, C, KH,
  // KW, 16]): c1 along O only (its X is the model's input), proj along both.
  EXPECT_EQ(g.type_of(by_name.at("c1")->inputs[1]).shape, (std::vector<int64_t>{3, 24, 3, 3, 16}));
  const Tensor& proj_w = *g.constant(by_name.at("proj")->inputs[1]);
  ASSERT_EQ(proj_w.shape(), (std::vector<int64_t>{2, 48, 1, 1, 16}));
  for (int64_t o = 0; o < 32; ++o) {
    for (int64_t c = 0; c < 48; ++c) {
      const float w = proj_w.data_as<float>()[((o / 16) * 48 + c) * 16 + o % 16];
      if (o >= 24 || c >= 40) { ASSERT_EQ(w, 0.0f) << o << " " << c; }
    }
  }
  const Tensor& c1_b = *g.constant(by_name.at("c1")->inputs[2]);
  ASSERT_EQ(c1_b.shape(), (std::vector<int64_t>{48}));
  for (int64_t o = 40; o < 48; ++o) EXPECT_EQ(c1_b.data_as<float>()[o], 0.0f) << o;
  EXPECT_EQ(g.type_of(by_name.at("dw")->inputs[1]).shape, (std::vector<int64_t>{48, 1, 3, 3}));

  // Without the option nothing widens.
  Graph plain = import_onnx_bytes(narrow_channels_bytes());
  optimize_graph(plain);
  for (const Node& n : plain.nodes()) {
    EXPECT_NE(n.op, "Slice");
    if (n.name == "c1") { EXPECT_EQ(plain.type_of(n.outputs[0]).shape[1], 40); }
  }

  expect_blocked_matches_unfused(narrow_channels_bytes(), options, {1, 24, 8, 8}, {19, 20});
}

// RegNetY-400MF's shape of block: a 1x1 conv to 24 channels, a 3x3 conv of three groups
// of 8, a 1x1 conv back to 16.
std::string groups_of_eight_bytes() {
  OnnxModelBuilder m;
  m.input("x", {1, 16, 8, 8}).output("y", {1, 16, 8, 8});
  conv(m, "expand", "x", "e", {24, 16, 1, 1}, true, 0, 1, 1, 300);
  m.node("Relu", {"e"}, {"ea"}, "relu_e");
  conv(m, "grouped", "ea", "g", {24, 8, 3, 3}, true, 1, 1, 3, 310);
  m.node("Relu", {"g"}, {"ga"}, "relu_g");
  conv(m, "project", "ga", "y", {16, 24, 1, 1}, true, 0, 1, 1, 320);
  return m.bytes();
}

// A grouped conv of `groups` groups reading and writing blocked activations of `shape`.
void expect_blocked_grouped_conv(const Graph& g, const Node& conv, int64_t groups, const std::vector<int64_t>& shape) {
  EXPECT_EQ(conv.attrs.get_int("group"), groups);
  EXPECT_EQ(conv.attrs.get_int("input_block", 0), kActivationBlock);
  EXPECT_EQ(conv.attrs.get_int("output_block", 0), kActivationBlock);
  EXPECT_EQ(g.type_of(conv.outputs[0]).shape, shape);
}

TEST(PadChannels, GroupsOfEightWidenByWholeGroupsAndMergeIntoBlocks) {
  GraphOptions options = kBlocked;
  options.pad_channels = true;
  options.block_grouped_convs = true;
  options.widen_conv_groups = kWidenedGroupMinWidth;
  Graph g = import_onnx_bytes(groups_of_eight_bytes());
  optimize_graph(g, options);
  const std::vector<const Node*> convs = nodes_of(g, "NeeConv");
  ASSERT_EQ(convs.size(), 3u);
  // 24 channels widen to 32: four groups of 8, the fourth zero filters, merged in pairs
  // into two groups of 16 that read and write blocked activations.
  expect_blocked_grouped_conv(g, *convs[1], 2, {1, 2, 8, 8, 16});
  expect_blocked_matches_unfused(groups_of_eight_bytes(), options, {1, 16, 8, 8}, {21, 22});
}

// RegNetY-1.6GF's shape of block, at 5 groups of `width` channels: a 1x1 conv, a 3x3
// grouped conv, squeeze-and-excite, a 1x1 conv back to 16 and the residual.
std::string odd_groups_bytes(int64_t width) {
  const int64_t c = 5 * width;
  OnnxModelBuilder m;
  m.input("x", {1, 16, 8, 8}).output("y", {1, 16, 8, 8});
  conv(m, "expand", "x", "e", {c, 16, 1, 1}, true, 0, 1, 1, 330);
  m.node("Relu", {"e"}, {"ea"}, "relu_e");
  conv(m, "grouped", "ea", "g", {c, width, 3, 3}, true, 1, 1, 5, 340);
  m.node("Relu", {"g"}, {"ga"}, "relu_g");
  m.node("GlobalAveragePool", {"ga"}, {"squeezed"}, "pool");
  conv(m, "fc1", "squeezed", "fc1_out", {8, c, 1, 1}, true, 0, 1, 1, 350);
  m.node("Relu", {"fc1_out"}, {"r"}, "relu_fc1");
  conv(m, "fc2", "r", "fc2_out", {c, 8, 1, 1}, true, 0, 1, 1, 360);
  m.node("Sigmoid", {"fc2_out"}, {"gate"}, "sigmoid");
  m.node("Mul", {"gate", "ga"}, {"excited"}, "excite");
  conv(m, "project", "excited", "p", {16, c, 1, 1}, true, 0, 1, 1, 370);
  m.node("Add", {"p", "x"}, {"y"}, "residual");
  return m.bytes();
}

TEST(PadChannels, OddCountsOfGroupsWidenToWholeMergedGroups) {
  GraphOptions options = kBlockedElementwise;
  options.pad_channels = true;
  options.block_grouped_convs = true;
  options.merge_conv_groups = true;
  // 5 groups of 24 on 120 channels widen to 144, not 128: 6 groups, which merge in pairs
  // into 3 groups of 48, blocked; the squeeze-and-excite gate, which multiplies them
  // channel by channel, widens to 144 as well.
  Graph g = import_onnx_bytes(odd_groups_bytes(24));
  optimize_graph(g, options);
  const std::vector<const Node*> convs = nodes_of(g, "NeeConv");
  ASSERT_EQ(convs.size(), 5u);
  expect_blocked_grouped_conv(g, *convs[1], 3, {1, 9, 8, 8, 16});
  EXPECT_EQ(g.type_of(convs[3]->outputs[0]).shape[1] * g.type_of(convs[3]->outputs[0]).shape.back(), 144);
  EXPECT_TRUE(nodes_of(g, "Slice").empty());
  expect_blocked_matches_unfused(odd_groups_bytes(24), options, {1, 16, 8, 8}, {23, 24});
  // Groups of 20 would need 160 for 100 channels, more than half as many again: the
  // channels stay 100 and the grouped conv NCHW.
  Graph kept = import_onnx_bytes(odd_groups_bytes(20));
  optimize_graph(kept, options);
  EXPECT_EQ(kept.type_of(nodes_of(kept, "NeeConv")[1]->outputs[0]).shape, (std::vector<int64_t>{1, 100, 8, 8}));
  EXPECT_EQ(nodes_of(kept, "NeeConv")[1]->attrs.get_int("group"), 5);
  expect_blocked_matches_unfused(odd_groups_bytes(20), options, {1, 16, 8, 8}, {25});
}

TEST(PadChannels, WidenedValuesRunBlockedFromABundle) {
  GraphOptions options = kBlockedElementwise;
  options.pad_channels = true;
  Graph g = import_onnx_bytes(narrow_channels_bytes());
  optimize_graph(g, options);
  for (const Node& n : g.nodes()) {
    if (n.name == "dw" || n.name == "fc2" || n.name == "proj") {
      EXPECT_EQ(n.attrs.get_int("output_block", 0), 16) << n.name;
    }
  }
  std::string root = ::testing::TempDir() + "nee-padded-bundle-XXXXXX";
  ASSERT_NE(mkdtemp(root.data()), nullptr);
  const std::shared_ptr<KernelBundle> bundle = default_bundle(root, narrow_channels_bytes(), options);
  EXPECT_TRUE(bundle->manifest().graph == options);
  std::vector<std::unique_ptr<KernelProvider>> providers;
  providers.push_back(make_bundle_provider(bundle));
  Session with_bundle(import_onnx(root + "/cnn.onnx"), std::move(providers), SessionOptions{optimize_graph});
  Session reference(import_onnx(root + "/cnn.onnx"), {});
  for (uint64_t seed : {21, 22}) {
    const Tensor x = random_tensor({DType::f32, {1, 24, 8, 8}}, seed);
    const std::map<std::string, Tensor> got = with_bundle.run({{"x", x}}), want = reference.run({{"x", x}});
    // Within 1e-5 of the output's peak: y reaches about 100 here, and the kernels' Sigmoid
    // differs from the reference's by up to 2e-6.
    for (const char* name : {"y", "z"}) {
      const Tensor& a = got.at(name);
      const Tensor& b = want.at(name);
      ASSERT_EQ(a.shape(), b.shape()) << name;
      float peak = 0;
      for (int64_t i = 0; i < b.elements(); ++i) peak = std::max(peak, std::fabs(b.data_as<float>()[i]));
      ASSERT_GT(peak, 0.0f) << name;
      for (int64_t i = 0; i < a.elements(); ++i) {
        ASSERT_NEAR(a.data_as<float>()[i], b.data_as<float>()[i], 1e-5 * peak) << name << " " << i;
      }
    }
  }
  expect_convs_on_bundle(with_bundle, 8);
  std::error_code ec;
  fs::remove_all(root, ec);
}

// EfficientNet's squeeze-and-excite block: a conv and a depthwise conv, the gate made
// from the depthwise output's global pool by two 1x1 convs and a Sigmoid, the gate times
// the depthwise output, and the projection (1x1, 16 channels) that reads the product.
std::string gated_projection_bytes(int64_t side) {
  OnnxModelBuilder m;
  m.input("x", {1, 16, side, side}).output("y", {1, 16, side, side});
  conv(m, "c1", "x", "c1_out", {32, 16, 1, 1}, true, 0, 1, 1, 500);
  m.node("Relu", {"c1_out"}, {"a"}, "relu1");
  conv(m, "dw", "a", "d", {32, 1, 3, 3}, true, 1, 1, 32, 510);
  m.node("GlobalAveragePool", {"d"}, {"s"}, "pool");
  conv(m, "fc1", "s", "fc1_out", {8, 32, 1, 1}, true, 0, 1, 1, 520);
  m.node("Relu", {"fc1_out"}, {"r"}, "relu_fc1");
  conv(m, "fc2", "r", "fc2_out", {32, 8, 1, 1}, true, 0, 1, 1, 530);
  m.node("Sigmoid", {"fc2_out"}, {"gate"}, "sigmoid");
  m.node("Mul", {"d", "gate"}, {"excited"}, "excite");
  conv(m, "proj", "excited", "y", {16, 32, 1, 1}, true, 0, 1, 1, 540);
  return m.bytes();
}

TEST(FoldChannelGates, TheGateScalesTheProjectionsWeightsWhereTheyAreSmaller) {
  GraphOptions options = kBlockedElementwise;
  options.fold_channel_gates = true;
  // 8x8 planes of 32 channels (2048 values) against 16x32 weights (512): folded.
  Graph g = import_onnx_bytes(gated_projection_bytes(8));
  optimize_graph(g, options);
  std::map<std::string, const Node*> by_name;
  for (const Node& n : g.nodes()) by_name[n.name] = &n;
  const Node& proj = *by_name.at("proj");
  EXPECT_EQ(g.producer(proj.inputs[0])->name, "dw");
  EXPECT_EQ(proj.attrs.get_int("input_block", 0), 16);  // the depthwise output, blocked
  const Node* weights = g.producer(proj.inputs[1]);
  ASSERT_NE(weights, nullptr);
  EXPECT_EQ(weights->op, "NeeElementwise");
  EXPECT_EQ(weights->attrs.get_string("program"), "sigmoid(x1); mul(x0,t0)");
  ASSERT_EQ(weights->inputs.size(), 2u);
  EXPECT_NE(g.constant(weights->inputs[0]), nullptr);  // the blocked weights, [1, 32, 1, 1, 16]
  EXPECT_EQ(g.type_of(weights->inputs[0]).shape, (std::vector<int64_t>{1, 32, 1, 1, 16}));
  EXPECT_EQ(g.type_of(weights->inputs[1]).shape, (std::vector<int64_t>{1, 32, 1, 1, 1}));
  EXPECT_EQ(by_name.count("excite"), 0u);
  expect_blocked_matches_unfused(gated_projection_bytes(8), options, {1, 16, 8, 8}, {23, 24});

  // 2x2 planes (128 values): the gate stays on the activation.
  Graph small = import_onnx_bytes(gated_projection_bytes(2));
  optimize_graph(small, options);
  for (const Node& n : small.nodes()) {
    if (n.name == "proj") { EXPECT_EQ(small.producer(n.inputs[0])->name, "excite"); }
  }
  // Nor does it fold where the product is not the program's last step (the lone norm after
  // the gate in squeeze_excite_bytes).
  Graph normed = import_onnx_bytes(squeeze_excite_bytes());
  optimize_graph(normed, options);
  for (const Node& n : normed.nodes()) {
    if (n.name == "c2") { EXPECT_EQ(normed.producer(n.inputs[0])->op, "NeeElementwise"); }
    if (n.op == "NeeElementwise") {
      EXPECT_EQ(normed.producer(n.inputs[1])->name, "dw") << n.attrs.get_string("program");
    }
  }
}

TEST(FoldChannelGates, GatedWeightsRunFromABundle) {
  GraphOptions options = kBlockedElementwise;
  options.fold_channel_gates = true;
  std::string root = ::testing::TempDir() + "nee-gated-bundle-XXXXXX";
  ASSERT_NE(mkdtemp(root.data()), nullptr);
  const std::shared_ptr<KernelBundle> bundle = default_bundle(root, gated_projection_bytes(8), options);
  EXPECT_TRUE(bundle->manifest().graph == options);
  std::vector<std::unique_ptr<KernelProvider>> providers;
  providers.push_back(make_bundle_provider(bundle));
  Session with_bundle(import_onnx(root + "/cnn.onnx"), std::move(providers), SessionOptions{optimize_graph});
  Session reference(import_onnx(root + "/cnn.onnx"), {});
  expect_same_y(with_bundle, reference, {1, 16, 8, 8}, {25, 26});
  int elementwise = 0;
  for (const Placement& p : with_bundle.placements()) {
    if (p.op != "NeeElementwise" && p.op != "NeeConv") continue;
    elementwise += p.op == "NeeElementwise";
    EXPECT_EQ(p.provider, "bundle") << p.node;
  }
  EXPECT_EQ(elementwise, 1);  // the gated weights
  std::error_code ec;
  fs::remove_all(root, ec);
}

TEST(BlockActivations, NarrowGroupsWidenToWholeBlocks) {
  GraphOptions options = kBlockedElementwise;
  options.block_grouped_convs = true;
  options.widen_conv_groups = 4;
  options.record_group_widths = true;
  Graph g = import_onnx_bytes(grouped_convs_bytes());
  optimize_graph(g, options);
  const Node* small = nullptr;
  for (const Node& n : g.nodes()) {
    if (n.name == "small_groups") small = &n;
  }
  ASSERT_NE(small, nullptr);
  // 16 groups of 4 channels -> 4 groups of 16, blocked on both sides.
  EXPECT_EQ(small->attrs.get_int("group"), 4);
  EXPECT_EQ(small->attrs.get_int("weight_block", 0), 16);
  EXPECT_EQ(small->attrs.get_int("input_block", 0), 16);
  EXPECT_EQ(small->attrs.get_int("output_block", 0), 16);
  // A block's channels weigh all 16 inputs between them: no width to record.
  EXPECT_FALSE(small->attrs.has("group_width"));
  // Blocked weights [64/16, 16, 3, 3, 16]: output o reads only the 4 inputs of its own
  // original group, (o / 4) % 4 * 4 onwards within its group of 16.
  const Tensor& w = *g.constant(small->inputs[1]);
  ASSERT_EQ(w.shape(), (std::vector<int64_t>{4, 16, 3, 3, 16}));
  for (int64_t o = 0; o < 64; ++o) {
    for (int64_t c = 0; c < 16; ++c) {
      const bool own = c / 4 == (o / 4) % 4;
      for (int64_t tap = 0; tap < 9; ++tap) {
        const float v = w.data_as<float>()[((o / 16 * 16 + c) * 9 + tap) * 16 + o % 16];
        if (!own) { ASSERT_EQ(v, 0.0f) << o << " " << c << " " << tap; }
      }
    }
  }
  expect_blocked_matches_unfused(grouped_convs_bytes(), options, {1, 16, 8, 8}, {27, 28});

  // From 8 channels a group up, groups of 4 stay as they are.
  options.widen_conv_groups = 8;
  Graph wider_only = import_onnx_bytes(grouped_convs_bytes());
  optimize_graph(wider_only, options);
  for (const Node& n : wider_only.nodes()) {
    if (n.name == "small_groups") { EXPECT_EQ(n.attrs.get_int("group"), 16); }
  }
}

// 16 -> 96 channels, 4 groups of 24 (RegNetY-1.6GF's width), 96 -> 72, 3 groups of 24, 72 -> 16.
std::string groups_of_24_bytes() {
  OnnxModelBuilder m;
  m.input("x", {1, 16, 8, 8}).output("y", {1, 16, 8, 8});
  conv(m, "c1", "x", "c1_out", {96, 16, 1, 1}, true, 0, 1, 1, 340);
  m.node("Relu", {"c1_out"}, {"a1"}, "relu1");
  conv(m, "pairs", "a1", "g1", {96, 24, 3, 3}, true, 1, 1, 4, 350);
  m.node("Relu", {"g1"}, {"a2"}, "relu2");
  conv(m, "c2", "a2", "c2_out", {72, 96, 1, 1}, true, 0, 1, 1, 360);
  conv(m, "odd_count", "c2_out", "g2", {72, 24, 3, 3}, true, 1, 1, 3, 370);
  conv(m, "c3", "g2", "y", {16, 72, 1, 1}, true, 0, 1, 1, 380);
  return m.bytes();
}

// Groups of 24 merge in pairs into groups of 48 (three whole blocks), where their count
// is even, and only with merge_conv_groups.
TEST(BlockActivations, GroupsOf24MergeInPairsOfWholeBlocks) {
  GraphOptions options = kBlockedElementwise;
  options.block_grouped_convs = true;
  options.widen_conv_groups = 4;
  options.merge_conv_groups = true;
  options.record_group_widths = true;
  Graph g = import_onnx_bytes(groups_of_24_bytes());
  optimize_graph(g, options);
  std::map<std::string, const Node*> by_name;
  for (const Node& n : g.nodes()) by_name[n.name] = &n;
  const Node& pairs = *by_name.at("pairs");
  EXPECT_EQ(pairs.attrs.get_int("group"), 2);
  EXPECT_EQ(pairs.attrs.get_int("group_width", 0), 24);
  EXPECT_EQ(pairs.attrs.get_int("weight_block", 0), 16);
  EXPECT_EQ(pairs.attrs.get_int("input_block", 0), 16);
  // Blocked weights [96/16, 48, 3, 3, 16]: output o reads only the 24 inputs of its own
  // original group, (o / 24) % 2 * 24 onwards within its group of 48.
  const Tensor& w = *g.constant(pairs.inputs[1]);
  ASSERT_EQ(w.shape(), (std::vector<int64_t>{6, 48, 3, 3, 16}));
  int64_t nonzero = 0;
  for (int64_t o = 0; o < 96; ++o) {
    for (int64_t c = 0; c < 48; ++c) {
      const bool own = c / 24 == (o / 24) % 2;
      for (int64_t tap = 0; tap < 9; ++tap) {
        const float v = w.data_as<float>()[((o / 16 * 48 + c) * 9 + tap) * 16 + o % 16];
        if (!own) {
          ASSERT_EQ(v, 0.0f) << o << " " << c << " " << tap;
        }
        nonzero += v != 0.0f;
      }
    }
  }
  EXPECT_GT(nonzero, 96 * 24 * 9 / 2);
  const Node& odd = *by_name.at("odd_count");
  EXPECT_EQ(odd.attrs.get_int("group"), 3);
  EXPECT_EQ(odd.attrs.get_int("weight_block", 0), 0);
  expect_blocked_matches_unfused(groups_of_24_bytes(), options, {1, 16, 8, 8}, {29, 30});

  // Without record_group_widths the merged conv is the workload older bundles hold.
  options.record_group_widths = false;
  Graph unrecorded = import_onnx_bytes(groups_of_24_bytes());
  optimize_graph(unrecorded, options);
  for (const Node& n : unrecorded.nodes()) {
    if (n.name == "pairs") {
      EXPECT_EQ(n.attrs.get_int("group"), 2);
      EXPECT_FALSE(n.attrs.has("group_width"));
    }
  }

  options.merge_conv_groups = false;
  Graph unmerged = import_onnx_bytes(groups_of_24_bytes());
  optimize_graph(unmerged, options);
  for (const Node& n : unmerged.nodes()) {
    if (n.name == "pairs") {
      EXPECT_EQ(n.attrs.get_int("group"), 4);
    }
  }
}

// A 1-D Conv `name` with weights [M, C/G, K] and a bias, its pads (begin, end), stride,
// dilation and groups.
void conv1d(OnnxModelBuilder& m, const std::string& name, const std::string& in, const std::string& out,
            const std::vector<int64_t>& w_shape, const std::vector<int64_t>& pads, int64_t stride, int64_t dilation,
            int64_t group, uint64_t seed) {
  m.initializer(name + "_w", random_tensor({DType::f32, w_shape}, seed));
  m.initializer(name + "_b", random_tensor({DType::f32, {w_shape[0]}}, seed + 1));
  auto& node = m.node("Conv", {in, name + "_w", name + "_b"}, {out}, name);
  set_attr(node, "pads", pads);
  set_attr(node, "strides", std::vector<int64_t>{stride});
  set_attr(node, "dilations", std::vector<int64_t>{dilation});
  set_attr(node, "group", group);
}

// A sequence CNN on two sequences of 8 channels: a strided conv with uneven padding,
// BatchNormalization and Relu; a dilated conv with the first's output added; a grouped
// conv; a strided max pool.
std::string sequence_cnn_bytes() {
  OnnxModelBuilder m;
  m.input("x", {2, 8, 50}).output("y", {2, 16, 13});
  conv1d(m, "c1", "x", "c1_out", {16, 8, 5}, {2, 1}, 2, 1, 1, 400);
  batch_norm(m, "bn", "c1_out", "bn_out", 16, 410);
  m.node("Relu", {"bn_out"}, {"a1"}, "relu1");
  conv1d(m, "c2", "a1", "c2_out", {16, 16, 3}, {2, 2}, 1, 2, 1, 420);
  m.node("Add", {"c2_out", "a1"}, {"sum"}, "residual");
  conv1d(m, "c3", "sum", "c3_out", {16, 4, 3}, {1, 1}, 1, 1, 4, 430);
  auto& pool = m.node("MaxPool", {"c3_out"}, {"y"}, "pool");
  set_attr(pool, "kernel_shape", std::vector<int64_t>{3});
  set_attr(pool, "strides", std::vector<int64_t>{2});
  set_attr(pool, "pads", std::vector<int64_t>{1, 1});
  return m.bytes();
}

TEST(ConvFusion, OneDimensionalConvsAndPoolsRunAsTwoDOnesOverRows) {
  const std::string bytes = sequence_cnn_bytes();
  Graph g = import_onnx_bytes(bytes);
  optimize_graph(g);
  // Views only: x as rows, y back; each node reads the rows the one before it wrote.
  EXPECT_EQ(ops_after_optimize(bytes),
            (std::vector<std::string>{"Reshape", "NeeConv", "NeeConv", "NeeConv", "MaxPool", "Reshape"}));
  const std::vector<const Node*> convs = nodes_of(g, "NeeConv");
  ASSERT_EQ(convs.size(), 3u);
  EXPECT_EQ(g.type_of(convs[0]->outputs[0]).shape, (std::vector<int64_t>{2, 16, 1, 25}));
  EXPECT_EQ(convs[0]->attrs.get_ints("pads"), (std::vector<int64_t>{0, 2, 0, 1}));
  EXPECT_EQ(convs[1]->inputs[0], convs[0]->outputs[0]);
  EXPECT_EQ(convs[1]->inputs.back(), convs[0]->outputs[0]);  // the residual
  EXPECT_EQ(convs[2]->attrs.get_int("group"), 4);
  const Node* pool = nodes_of(g, "MaxPool")[0];
  EXPECT_EQ(pool->inputs[0], convs[2]->outputs[0]);
  EXPECT_EQ(pool->attrs.get_ints("kernel_shape"), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(g.type_of(pool->outputs[0]).shape, (std::vector<int64_t>{2, 16, 1, 13}));
  EXPECT_EQ(workload_of(g, *convs[1])->op, "conv2d");
  expect_blocked_matches_unfused(bytes, GraphOptions{}, {2, 8, 50}, {1, 2});
  expect_blocked_matches_unfused(bytes, kBlocked, {2, 8, 50}, {3});
}

// A 3-D Conv `name` with weights [M, C/G, KT, KH, KW] and a bias, its ONNX pads (begins,
// then ends), strides and dilations per dim (time, height, width).
void conv3d(OnnxModelBuilder& m, const std::string& name, const std::string& in, const std::string& out,
            const std::vector<int64_t>& w_shape, const std::vector<int64_t>& pads,
            const std::vector<int64_t>& strides = {1, 1, 1}, const std::vector<int64_t>& dilations = {1, 1, 1},
            int64_t group = 1, uint64_t seed = 1) {
  // Scaled by 1 / sqrt(fan-in), as networks are initialized, to keep outputs near 1.
  Tensor w = random_tensor({DType::f32, w_shape}, seed);
  const float scale = 1.0f / std::sqrt(static_cast<float>(w.elements() / w_shape[0]));
  for (int64_t i = 0; i < w.elements(); ++i) w.data_as<float>()[i] *= scale;
  m.initializer(name + "_w", w);
  m.initializer(name + "_b", random_tensor({DType::f32, {w_shape[0]}}, seed + 1));
  auto& node = m.node("Conv", {in, name + "_w", name + "_b"}, {out}, name);
  set_attr(node, "pads", pads);
  set_attr(node, "strides", strides);
  set_attr(node, "dilations", dilations);
  set_attr(node, "group", group);
}

std::map<std::string, int> op_counts(const Graph& g) {
  std::map<std::string, int> counts;
  for (const Node& n : g.nodes()) ++counts[n.op];
  return counts;
}

// A 1x1x1 conv, then R3D-18's basic block on its [1, 16, 5, 14, 14] (planes large enough
// for Winograd): a 3x3x3 conv, BatchNormalization, Relu, a 3x3x3 conv,
// BatchNormalization, the block's input added, Relu.
std::string video_block_bytes() {
  OnnxModelBuilder m;
  m.input("x", {1, 16, 5, 14, 14}).output("y", {1, 16, 5, 14, 14});
  const std::vector<int64_t> same = {1, 1, 1, 1, 1, 1};
  conv3d(m, "c0", "x", "x0", {16, 16, 1, 1, 1}, {0, 0, 0, 0, 0, 0}, {1, 1, 1}, {1, 1, 1}, 1, 5);
  conv3d(m, "c1", "x0", "c1_out", {16, 16, 3, 3, 3}, same, {1, 1, 1}, {1, 1, 1}, 1, 10);
  batch_norm(m, "bn1", "c1_out", "bn1_out", 16, 20);
  m.node("Relu", {"bn1_out"}, {"a1"}, "relu1");
  conv3d(m, "c2", "a1", "c2_out", {16, 16, 3, 3, 3}, same, {1, 1, 1}, {1, 1, 1}, 1, 30);
  batch_norm(m, "bn2", "c2_out", "bn2_out", 16, 40);
  m.node("Add", {"bn2_out", "x0"}, {"sum"}, "residual");
  m.node("Relu", {"sum"}, {"y"}, "relu2");
  return m.bytes();
}


TEST(Conv3dAsFrames, AVideoResidualBlockRunsAsConvsOverFrames) {
  const std::string bytes = video_block_bytes();
  Graph g = import_onnx_bytes(bytes);
  optimize_graph(g);
  // Each conv's frames go to the next conv's gather, and c0's to c2 as its residual, as
  // they are; only y is viewed and transposed back into ONNX's layout.
  EXPECT_EQ(op_counts(g), (std::map<std::string, int>{
                              {"NeeConv", 3}, {"NeeFrameGather", 3}, {"Reshape", 1}, {"Transpose", 1}}));
  const std::vector<const Node*> convs = nodes_of(g, "NeeConv"), gathers = nodes_of(g, "NeeFrameGather");
  EXPECT_EQ(g.type_of(convs[1]->inputs[0]).shape, (std::vector<int64_t>{5, 48, 14, 14}));
  EXPECT_EQ(convs[1]->attrs.get_string("activation"), "relu");
  EXPECT_EQ(convs[2]->attrs.get_int("residual"), 1);
  EXPECT_EQ(convs[2]->inputs.back(), convs[0]->outputs[0]);
  EXPECT_EQ(convs[2]->attrs.get_string("activation"), "relu");
  EXPECT_EQ(gathers[0]->attrs.get_int("input_frames", 0), 0);
  EXPECT_EQ(gathers[2]->inputs[0], convs[1]->outputs[0]);
  EXPECT_EQ(gathers[2]->attrs.get_int("input_frames"), 5);
  EXPECT_EQ(workload_of(g, *convs[2])->op, "conv2d");
  expect_blocked_matches_unfused(bytes, GraphOptions{}, {1, 16, 5, 14, 14}, {7, 8});

  // Blocked, the frames stay blocked through the gathers, and the middle conv, blocked on
  // both sides, may run as Winograd.
  Graph blocked = import_onnx_bytes(bytes);
  optimize_graph(blocked, kBlocked);
  const std::vector<const Node*> blocked_gathers = nodes_of(blocked, "NeeFrameGather");
  ASSERT_EQ(blocked_gathers.size(), 3u);
  EXPECT_EQ(blocked_gathers[2]->attrs.get_int("input_block", 0), kActivationBlock);
  EXPECT_EQ(blocked.type_of(blocked_gathers[2]->outputs[0]).shape, (std::vector<int64_t>{5, 3, 14, 14, 16}));
  expect_blocked_matches_unfused(bytes, kBlocked, {1, 16, 5, 14, 14}, {9});
  Graph winograd = import_onnx_bytes(bytes);
  optimize_graph(winograd, kBlockedWinograd);
  EXPECT_NE(nodes_of(winograd, "NeeConv")[1]->attrs.get_int("winograd_tile", 0), 0);
  expect_blocked_matches_unfused(bytes, kBlockedWinograd, {1, 16, 5, 14, 14}, {10});
}

// On a batch of two clips: a (3,1,1) temporal conv, a (1,3,3) spatial one (R(2+1)D's
// pair), a grouped conv with time stride 2, time dilation 2 and uneven time padding, a
// 1x1x1 conv of stride 2 with a HardSigmoid, and a (2,1,1) conv padded at the end.
std::string video_geometries_bytes() {
  OnnxModelBuilder m;
  m.input("x", {2, 4, 6, 7, 7}).output("y", {2, 4, 2, 4, 4});
  conv3d(m, "t", "x", "t_out", {6, 4, 3, 1, 1}, {1, 0, 0, 1, 0, 0}, {1, 1, 1}, {1, 1, 1}, 1, 50);
  m.node("Relu", {"t_out"}, {"t_act"}, "relu_t");
  conv3d(m, "s", "t_act", "s_out", {6, 6, 1, 3, 3}, {0, 1, 1, 0, 1, 1}, {1, 1, 1}, {1, 1, 1}, 1, 60);
  m.node("Relu", {"s_out"}, {"s_act"}, "relu_s");
  conv3d(m, "g", "s_act", "g_out", {8, 3, 3, 3, 3}, {2, 1, 1, 1, 1, 1}, {2, 1, 1}, {2, 1, 1}, 2, 70);
  conv3d(m, "d", "g_out", "d_out", {5, 8, 1, 1, 1}, {0, 0, 0, 0, 0, 0}, {2, 2, 2}, {1, 1, 1}, 1, 80);
  // HardSigmoid(0) is 0.5: the widened channels are not zero, their weights in e are.
  set_attr(m.node("HardSigmoid", {"d_out"}, {"d_act"}, "hard_sigmoid"), "alpha", 1.0f / 6.0f);
  conv3d(m, "e", "d_act", "y", {4, 5, 2, 1, 1}, {0, 0, 0, 1, 0, 0}, {1, 1, 1}, {1, 1, 1}, 1, 90);
  return m.bytes();
}

TEST(Conv3dAsFrames, EveryTimeGeometryComputesTheConv) {
  const std::string bytes = video_geometries_bytes();
  Graph g = import_onnx_bytes(bytes);
  optimize_graph(g);
  // The spatial conv reads the temporal one's frames as they are: a view, not a gather.
  const std::map<std::string, int> counts = op_counts(g);
  EXPECT_EQ(counts.count("Conv"), 0u);
  EXPECT_EQ(counts.at("NeeConv"), 5);
  EXPECT_EQ(counts.at("NeeFrameGather"), 4);
  EXPECT_EQ(counts.at("Transpose"), 1);
  for (const Node* n : nodes_of(g, "NeeFrameGather")) {
    if (n->attrs.get_int("group") == 2) {
      EXPECT_EQ(g.type_of(n->outputs[0]).shape, (std::vector<int64_t>{6, 18, 7, 7}));
    }
  }
  // t's 6 channels, which only the spatial conv reads, and d's 5, which only e's gather
  // reads, are widened to 16; s's, read by a conv of two groups, g's (two groups) and y
  // are not.
  const std::vector<const Node*> convs = nodes_of(g, "NeeConv");
  ASSERT_EQ(convs.size(), 5u);
  EXPECT_EQ(g.type_of(convs[0]->outputs[0]).shape, (std::vector<int64_t>{12, 16, 7, 7}));
  EXPECT_EQ(g.type_of(convs[1]->outputs[0]).shape, (std::vector<int64_t>{12, 6, 7, 7}));
  EXPECT_EQ(g.type_of(convs[2]->outputs[0]).shape, (std::vector<int64_t>{6, 8, 7, 7}));
  EXPECT_EQ(g.type_of(convs[3]->outputs[0]).shape, (std::vector<int64_t>{4, 16, 4, 4}));
  EXPECT_EQ(g.type_of(convs[4]->inputs[0]).shape, (std::vector<int64_t>{4, 32, 4, 4}));
  EXPECT_EQ(g.type_of(convs[4]->outputs[0]).shape, (std::vector<int64_t>{4, 4, 4, 4}));
  expect_blocked_matches_unfused(bytes, GraphOptions{}, {2, 4, 6, 7, 7}, {7, 8});
  expect_blocked_matches_unfused(bytes, kBlocked, {2, 4, 6, 7, 7}, {9});
}

// With convs_read_frames, the strided 1x1x1 conv and the conv padded at the end read the
// frames before them in place; the first conv's gather (of X in ONNX's layout) and the
// grouped conv's stay.
TEST(Conv3dAsFrames, ConvsReadTheirFramesInPlace) {
  const std::string bytes = video_geometries_bytes();
  for (GraphOptions options : {GraphOptions{}, kBlocked}) {
    options.convs_read_frames = true;
    Graph g = import_onnx_bytes(bytes);
    optimize_graph(g, options);
    EXPECT_EQ(op_counts(g).at("NeeFrameGather"), 2);
    std::vector<int64_t> taps;
    for (const Node* n : nodes_of(g, "NeeConv")) {
      if (n->attrs.get_int("frame_taps", 0) == 0) continue;
      taps.push_back(n->attrs.get_int("frame_taps"));
      EXPECT_EQ(workload_of(g, *n)->op, "conv2d") << n->name;
    }
    EXPECT_EQ(taps, (std::vector<int64_t>{1, 2}));
    expect_blocked_matches_unfused(bytes, options, {2, 4, 6, 7, 7}, {11, 12});
  }
}

// A 3-D pool `name` of `op` with its window, strides, ONNX pads, ceil_mode and (average
// pools) count_include_pad.
void pool3d(OnnxModelBuilder& m, const std::string& op, const std::string& name, const std::string& in,
            const std::string& out, const std::vector<int64_t>& kernel, const std::vector<int64_t>& strides,
            const std::vector<int64_t>& pads, int64_t ceil_mode, int64_t count_include_pad = 0) {
  auto& node = m.node(op, {in}, {out}, name);
  set_attr(node, "kernel_shape", kernel);
  set_attr(node, "strides", strides);
  set_attr(node, "pads", pads);
  set_attr(node, "ceil_mode", ceil_mode);
  if (op == "AveragePool") set_attr(node, "count_include_pad", count_include_pad);
}

// S3D's shapes of pooling: a conv, then two branches, a max pool of 3x3x3 with padding and
// a conv, and an average pool with padding counted, concatenated, then max pools of 2x2x2
// rounding up (odd extents) and of 1x3x3 with a plane stride, and an average pool of the
// input itself excluding its padding.
std::string video_pools_bytes() {
  OnnxModelBuilder m;
  m.input("x", {1, 16, 5, 9, 9}).output("y", {1, 32, 3, 3, 3}).output("z", {1, 16, 5, 9, 9});
  const std::vector<int64_t> one = {1, 1, 1}, none = {0, 0, 0, 0, 0, 0}, all = {1, 1, 1, 1, 1, 1};
  conv3d(m, "c", "x", "c_out", {16, 16, 1, 1, 1}, none, one, one, 1, 100);
  m.node("Relu", {"c_out"}, {"a"}, "relu");
  pool3d(m, "MaxPool", "max_branch", "a", "m", {3, 3, 3}, one, all, 0);
  conv3d(m, "b", "m", "b_out", {16, 16, 1, 1, 1}, none, one, one, 1, 110);
  pool3d(m, "AveragePool", "avg_branch", "a", "v", {3, 3, 3}, one, all, 0, 1);
  set_attr(m.node("Concat", {"b_out", "v"}, {"cat"}, "concat"), "axis", int64_t{1});
  pool3d(m, "MaxPool", "halve", "cat", "h", {2, 2, 2}, {2, 2, 2}, none, 1);
  pool3d(m, "MaxPool", "planes", "h", "y", {1, 3, 3}, {1, 2, 2}, {0, 1, 1, 0, 1, 1}, 0);
  pool3d(m, "AveragePool", "input_avg", "x", "z", {3, 3, 3}, one, all, 0, 0);
  return m.bytes();
}

TEST(Conv3dAsFrames, PoolsAndConcatenationsRunOverFrames) {
  const std::string bytes = video_pools_bytes();
  Graph g = import_onnx_bytes(bytes);
  optimize_graph(g);
  for (const Node& n : g.nodes()) {
    if (n.op == "MaxPool" || n.op == "AveragePool") {
      EXPECT_EQ(n.attrs.get_ints("kernel_shape").size(), 2u) << n.name;
    }
    if (n.op == "MaxPool" || n.op == "AveragePool" || n.op == "Concat") {
      EXPECT_EQ(g.type_of(n.inputs[0]).shape.size(), 4u) << n.name;
    }
  }
  // The concat reads the frames of the conv and the average pool.
  const std::vector<const Node*> concats = nodes_of(g, "Concat");
  ASSERT_EQ(concats.size(), 1u);
  EXPECT_EQ(g.type_of(concats[0]->outputs[0]).shape, (std::vector<int64_t>{5, 32, 9, 9}));
  Session lowered(import_onnx_bytes(bytes), {}, SessionOptions{optimize_graph});
  Session reference(import_onnx_bytes(bytes), {});
  const Tensor x = random_tensor({DType::f32, {1, 16, 5, 9, 9}}, 11);
  const std::map<std::string, Tensor> got = lowered.run({{"x", x}}), want = reference.run({{"x", x}});
  for (const char* name : {"y", "z"}) {
    const Tensor& a = got.at(name);
    const Tensor& b = want.at(name);
    ASSERT_EQ(a.shape(), b.shape()) << name;
    for (int64_t i = 0; i < a.elements(); ++i) ASSERT_NEAR(a.data_as<float>()[i], b.data_as<float>()[i], 1e-5) << name;
  }
}

TEST(Conv3dAsFrames, WeightsThatAreNotConstantStayAConv) {
  OnnxModelBuilder m;
  m.input("x", {1, 2, 3, 4, 4}).input("w", {3, 2, 1, 1, 1}).output("y", {1, 3, 3, 4, 4});
  m.node("Conv", {"x", "w"}, {"y"}, "conv3d");
  EXPECT_EQ(ops_after_optimize(m.bytes()), std::vector<std::string>{"Conv"});
}

// NeeFrameGather of x on the reference kernel against its definition (passes.h), element
// by element: frames [N * T, C, H, W] where `input_frames` is T, else [N, C, T, H, W].
void expect_gather_as_defined(const std::vector<int64_t>& x_shape, int64_t input_frames, int64_t taps,
                              int64_t stride, int64_t dilation, int64_t pad, int64_t groups,
                              const std::vector<int64_t>& y_shape) {
  Graph g;
  g.add_value("x", {DType::f32, x_shape});
  g.add_input("x");
  Node gather{"NeeFrameGather", "frames", {"x"}, {"y"}, {}};
  gather.attrs.set("kernel", taps);
  gather.attrs.set("stride", stride);
  gather.attrs.set("dilation", dilation);
  gather.attrs.set("pad_begin", pad);
  gather.attrs.set("group", groups);
  if (input_frames) gather.attrs.set("input_frames", input_frames);
  g.add_node(gather);
  g.add_value("y", {DType::f32, y_shape});
  g.add_output("y");
  const Tensor x = random_tensor({DType::f32, x_shape}, 3);
  Session session(g, {});
  const Tensor y = session.run({{"x", x}}).at("y");
  const int64_t channels = y_shape[1] / taps, per_group = channels / groups, plane = y_shape[2] * y_shape[3];
  const int64_t time = input_frames ? input_frames : x_shape[2];
  const int64_t out_frames = y_shape[0] / (input_frames ? x_shape[0] / input_frames : x_shape[0]);
  int64_t wrong = 0;
  for (int64_t i = 0; i < y.elements(); ++i) {
    const int64_t frame = i / (y_shape[1] * plane), channel = i / plane % y_shape[1], at = i % plane;
    const int64_t g_index = channel / per_group / taps, tap = channel / per_group % taps;
    const int64_t c = g_index * per_group + channel % per_group, n = frame / out_frames;
    const int64_t t = frame % out_frames * stride + tap * dilation - pad;
    float want = 0;
    if (t >= 0 && t < time) {
      want = x.data_as<float>()[(input_frames ? (n * time + t) * channels + c : (n * channels + c) * time + t) * plane +
                                at];
    }
    wrong += y.data_as<float>()[i] != want;
  }
  EXPECT_EQ(wrong, 0);
}

// Both sizes: over 8 MiB the copies are shared by a thread per core (of two or more).
TEST(Conv3dAsFrames, TheFrameGatherCopiesThePlanesItsDefinitionNames) {
  expect_gather_as_defined({12, 16, 64, 64}, 6, 3, 1, 1, 1, 2, {12, 48, 64, 64});
  expect_gather_as_defined({12, 16, 8, 8}, 6, 3, 1, 1, 1, 2, {12, 48, 8, 8});
  expect_gather_as_defined({2, 8, 7, 64, 64}, 0, 2, 2, 2, 2, 1, {2 * 4, 16, 64, 64});
}

TEST(Conv3dAsFrames, AFrameGatherOfTheWrongShapeIsRefusedByName) {
  Graph g;
  g.add_value("x", {DType::f32, {1, 2, 3, 4, 4}});
  g.add_input("x");
  Node gather{"NeeFrameGather", "frames", {"x"}, {"y"}, {}};
  for (const char* attr : {"kernel", "stride", "dilation", "group"}) gather.attrs.set(attr, int64_t{1});
  gather.attrs.set("pad_begin", int64_t{0});
  g.add_node(gather);
  g.add_value("y", {DType::f32, {3, 4, 4, 4}});  // 2 channels a frame, not 4
  g.add_output("y");
  try {
    Session session(g, {});
    session.run({{"x", random_tensor({DType::f32, {1, 2, 3, 4, 4}}, 1)}});
    FAIL() << "the session ran a gather of the wrong shape";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("NeeFrameGather 'frames'"), std::string::npos) << e.what();
  }
}


class BlockedBundle : public ::testing::TestWithParam<bool> {};

TEST_P(BlockedBundle, BundleKernelsComputeTheUnblockedGraph) {
  std::string root = ::testing::TempDir() + "nee-blocked-bundle-XXXXXX";
  ASSERT_NE(mkdtemp(root.data()), nullptr);
  const std::string model = root + "/cnn.onnx";
  const GraphOptions options = GetParam() ? kBlockedWinograd : kBlocked;
  const int64_t side = options.winograd ? kWinogradSide : 10;
  const std::shared_ptr<KernelBundle> bundle = default_bundle(root, blocking_cnn_bytes(side), options);
  EXPECT_TRUE(bundle->manifest().graph == options);
  std::vector<std::unique_ptr<KernelProvider>> providers;
  providers.push_back(make_bundle_provider(bundle));
  Session with_bundle(import_onnx(model), std::move(providers), SessionOptions{optimize_graph});
  Session reference(import_onnx(model), {});
  for (uint64_t seed : {5, 6}) {
    const Tensor x = random_tensor({DType::f32, {1, 3, side, side}}, seed);
    expect_outputs_near(with_bundle.run({{"x", x}}), reference.run({{"x", x}}), 1e-4);
  }
  int convs = 0, pools = 0;
  for (const Placement& p : with_bundle.placements()) {
    if (p.op != "NeeConv" && p.op != "MaxPool") continue;
    ++(p.op == "NeeConv" ? convs : pools);
    EXPECT_EQ(p.provider, "bundle") << p.node;
  }
  EXPECT_EQ(convs, 8);
  EXPECT_EQ(pools, 1);  // the channel-blocked MaxPool
  bool winograd_conv = false;
  for (const Node& n : with_bundle.graph().nodes()) winograd_conv |= n.attrs.get_int("winograd_tile", 0) != 0;
  EXPECT_EQ(winograd_conv, options.winograd);
  std::error_code ec;
  fs::remove_all(root, ec);
}

INSTANTIATE_TEST_SUITE_P(DirectAndWinograd, BlockedBundle, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("Winograd") : std::string("Direct");
                         });

}  // namespace
}  // namespace nee
