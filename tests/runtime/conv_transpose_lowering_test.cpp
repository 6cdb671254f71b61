// lower_conv_transpose: a 1-D or 2-D ConvTranspose as a Conv of its phases and a depth-to-space,
// computing what the ConvTranspose computes.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "importer/import_onnx.h"
#include "onnx_model_builder.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"
#include "runtime/tensor_io.h"

namespace nee {
namespace {

using test::OnnxModelBuilder;
using test::set_attr;

struct Geometry {
  int64_t kernel_h, kernel_w, stride_h, stride_w;
  std::vector<int64_t> pads;  // begins, then ends
  std::vector<int64_t> output_padding;
  bool bias;
};

std::string conv_transpose_bytes(const Geometry& g) {
  OnnxModelBuilder m;
  m.input("x", {2, 5, 6, 7});
  m.initializer("w", random_tensor({DType::f32, {5, 3, g.kernel_h, g.kernel_w}}, 41));
  std::vector<std::string> inputs = {"x", "w"};
  if (g.bias) {
    m.initializer("b", random_tensor({DType::f32, {3}}, 42));
    inputs.push_back("b");
  }
  onnx::NodeProto& node = m.node("ConvTranspose", inputs, {"y"}, "up");
  set_attr(node, "kernel_shape", std::vector<int64_t>{g.kernel_h, g.kernel_w});
  set_attr(node, "strides", std::vector<int64_t>{g.stride_h, g.stride_w});
  set_attr(node, "pads", g.pads);
  if (!g.output_padding.empty()) set_attr(node, "output_padding", g.output_padding);
  m.output("y");
  return m.bytes();
}

// Optimizes the model `bytes` with `options`, checks that it computes what the model as
// built does (on one random input, `label` naming the case) and returns its op counts.
std::map<std::string, int> expect_same_as_built(const std::string& bytes, const GraphOptions& options,
                                                const std::string& label) {
  Graph lowered = import_onnx_bytes(bytes);
  optimize_graph(lowered, options);
  std::map<std::string, int> ops;
  for (const Node& n : lowered.nodes()) ++ops[n.op];
  Session lowered_session(lowered, {});
  Session plain(import_onnx_bytes(bytes), {});
  const Tensor x = random_tensor(plain.graph().type_of("x"), 43);
  const Tensor got = lowered_session.run({{"x", x}}).at("y"), want = plain.run({{"x", x}}).at("y");
  EXPECT_EQ(got.shape(), want.shape()) << label;
  if (got.shape() != want.shape()) return ops;
  for (int64_t i = 0; i < want.elements(); ++i) {
    EXPECT_NEAR(got.data_as<float>()[i], want.data_as<float>()[i], 1e-5f) << label << " at " << i;
  }
  return ops;
}

TEST(LowerConvTranspose, EveryStrideKernelAndPaddingComputesTheConvTranspose) {
  const std::vector<Geometry> geometries = {
      {2, 2, 2, 2, {0, 0, 0, 0}, {}, true},      // U-Net's upsampling: a 1x1 conv of 4 phases
      {4, 4, 2, 2, {1, 1, 1, 1}, {}, false},     // DCGAN's
      {3, 3, 2, 2, {1, 1, 1, 1}, {1, 1}, true},  // output_padding
      {3, 3, 1, 1, {1, 1, 1, 1}, {}, true},      // stride 1: a 3x3 conv of reversed taps
      {5, 3, 3, 2, {2, 0, 1, 1}, {2, 0}, true},  // uneven strides, kernels and pads
  };
  for (const Geometry& g : geometries) {
    const std::string label = std::to_string(g.kernel_h) + "x" + std::to_string(g.kernel_w);
    std::map<std::string, int> ops = expect_same_as_built(conv_transpose_bytes(g), {}, label);
    EXPECT_EQ(ops["ConvTranspose"], 0) << label;
    EXPECT_EQ(ops["NeeConv"], 1) << label;
  }
}

// 1-D ones, as one-row 2-D ones: with GraphOptions::lower_1d_conv_transposes only, which
// a bundle built before it reads as false.
TEST(LowerConvTranspose, OneDimensionalOnesComputeTheConvTranspose) {
  struct Geometry1d {
    int64_t kernel, stride;
    std::vector<int64_t> pads, output_padding;
  };
  const std::vector<Geometry1d> geometries = {
      {16, 8, {4, 4}, {}},   // HiFi-GAN's upsampling by 8
      {16, 8, {0, 0}, {}},   // Conv-TasNet's decoder
      {3, 2, {1, 1}, {1}},   // output_padding
      {5, 3, {2, 0}, {2}},   // uneven pads
  };
  for (const Geometry1d& g : geometries) {
    OnnxModelBuilder m;
    m.input("x", {2, 5, 9});
    m.initializer("w", random_tensor({DType::f32, {5, 3, g.kernel}}, 45));
    m.initializer("b", random_tensor({DType::f32, {3}}, 46));
    onnx::NodeProto& node = m.node("ConvTranspose", {"x", "w", "b"}, {"y"}, "up");
    set_attr(node, "kernel_shape", std::vector<int64_t>{g.kernel});
    set_attr(node, "strides", std::vector<int64_t>{g.stride});
    set_attr(node, "pads", g.pads);
    if (!g.output_padding.empty()) set_attr(node, "output_padding", g.output_padding);
    m.output("y");
    for (bool lower : {false, true}) {
      GraphOptions options;
      options.lower_1d_conv_transposes = lower;
      const std::string label = "kernel " + std::to_string(g.kernel) + (lower ? ", lowered" : ", kept");
      std::map<std::string, int> ops = expect_same_as_built(m.bytes(), options, label);
      EXPECT_EQ(ops["ConvTranspose"], lower ? 0 : 1) << label;
      EXPECT_EQ(ops["NeeConv"], lower ? 1 : 0) << label;
    }
  }
}

// Groups and weights that are inputs stay on the ConvTranspose.
TEST(LowerConvTranspose, GroupsAndWeightsThatAreInputsStay) {
  OnnxModelBuilder m;
  m.input("x", {1, 4, 5, 5}).input("w", {4, 2, 3, 3});
  m.initializer("wg", random_tensor({DType::f32, {4, 1, 3, 3}}, 44));
  set_attr(m.node("ConvTranspose", {"x", "w"}, {"y"}, "by_input"), "kernel_shape", std::vector<int64_t>{3, 3});
  onnx::NodeProto& grouped = m.node("ConvTranspose", {"x", "wg"}, {"z"}, "grouped");
  set_attr(grouped, "kernel_shape", std::vector<int64_t>{3, 3});
  set_attr(grouped, "group", int64_t{4});
  m.output("y").output("z");
  Graph g = import_onnx_bytes(m.bytes());
  optimize_graph(g);
  int conv_transposes = 0;
  for (const Node& n : g.nodes()) conv_transposes += n.op == "ConvTranspose";
  EXPECT_EQ(conv_transposes, 2);
}

}  // namespace
}  // namespace nee
