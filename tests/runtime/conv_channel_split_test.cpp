// split_conv_channels and elementwise_over_rows: convs whose channel halves are read
// apart (a WaveNet's gated units, a GLU) split into one conv per half, and elementwise ops
// between 1-D convs run over the convs' rows, so the whole block runs channel-blocked with
// no copies; each graph against the same graph run as built.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "importer/import_onnx.h"
#include "onnx_model_builder.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"
#include "runtime/tensor_io.h"

namespace nee {
namespace {

using test::make_i64;
using test::OnnxModelBuilder;
using test::set_attr;

// The graph options nee-tune sets for a CPU.
GraphOptions cpu_options() {
  GraphOptions o;
  o.block_activations = o.block_pools = o.block_elementwise = o.block_grouped_convs = true;
  o.pad_channels = o.fold_channel_gates = o.pack_matmul_weights = true;
  o.fold_operand_scales = o.split_matmul_columns = true;
  o.fuse_group_norms = o.fold_pads_into_convs = o.split_conv_channels = o.elementwise_over_rows = true;
  return o;
}

void conv(OnnxModelBuilder& m, const std::string& x, const std::string& y, int64_t in, int64_t out,
          const std::vector<int64_t>& kernel, int64_t dilation, uint64_t seed) {
  std::vector<int64_t> w = {out, in};
  w.insert(w.end(), kernel.begin(), kernel.end());
  m.initializer(y + ".w", random_tensor({DType::f32, w}, seed));
  m.initializer(y + ".b", random_tensor({DType::f32, {out}}, seed + 1));
  onnx::NodeProto& node = m.node("Conv", {x, y + ".w", y + ".b"}, {y}, y);
  set_attr(node, "kernel_shape", kernel);
  set_attr(node, "dilations", std::vector<int64_t>(kernel.size(), dilation));
}

// y = a * sigmoid(b) (or tanh(a) * sigmoid(b)), a and b the two halves of `h`'s channels.
void gate(OnnxModelBuilder& m, const std::string& h, const std::string& y, int64_t half, bool split, bool tanh) {
  if (split) {
    m.initializer(h + ".sizes", make_i64({2}, {half, half}));
    set_attr(m.node("Split", {h, h + ".sizes"}, {h + ".lo", h + ".hi"}, h + ".split"), "axis", int64_t{1});
  } else {
    m.initializer(h + ".axis", make_i64({1}, {1}));
    m.initializer(h + ".first", make_i64({1}, {0}));
    m.initializer(h + ".half", make_i64({1}, {half}));
    m.initializer(h + ".all", make_i64({1}, {2 * half}));
    m.node("Slice", {h, h + ".first", h + ".half", h + ".axis"}, {h + ".lo"}, h + ".slice_a");
    m.node("Slice", {h, h + ".half", h + ".all", h + ".axis"}, {h + ".hi"}, h + ".slice_b");
  }
  std::string a = h + ".lo";
  if (tanh) {
    m.node("Tanh", {a}, {h + ".ta"}, h + ".tanh");
    a = h + ".ta";
  }
  m.node("Sigmoid", {h + ".hi"}, {h + ".sb"}, h + ".sigmoid");
  m.node("Mul", {a, h + ".sb"}, {y}, y);
}

std::map<std::string, int> expect_same_outputs(const std::string& bytes, const GraphOptions& options) {
  Graph optimized = import_onnx_bytes(bytes);
  optimize_graph(optimized, options);
  Session fused(optimized, {});
  Session plain(import_onnx_bytes(bytes), {});
  const Tensor x = random_tensor(plain.graph().type_of("x"), 5);
  const Tensor got = fused.run({{"x", x}}).at("y"), want = plain.run({{"x", x}}).at("y");
  EXPECT_EQ(got.shape(), want.shape());
  for (int64_t i = 0; i < want.elements(); ++i) {
    EXPECT_NEAR(got.data_as<float>()[i], want.data_as<float>()[i], 1e-5f) << "at " << i;
  }
  std::map<std::string, int> ops;
  for (const Node& n : fused.graph().nodes()) ++ops[n.op];
  return ops;
}

// A WaveNet layer: a dilated causal 1-D conv of 32 channels, its halves gated by Slices
// (tanh . sigmoid), then a 1x1 conv: three blocked convs and one blocked elementwise op,
// no Slice, no layout copy. Its nodes are named after their outputs, as hand-made models
// name them: a view lower_1d_to_rows made once took its conv's name, and block_activations
// then took the view for the conv.
TEST(SplitConvChannels, AWaveNetLayerRunsBlockedFromConvToConv) {
  OnnxModelBuilder m;
  m.input("x", {1, 16, 40});
  m.initializer("causal", make_i64({6}, {0, 0, 2, 0, 0, 0}));
  m.node("Pad", {"x", "causal"}, {"padded"}, "pad");
  conv(m, "padded", "h", 16, 32, {2}, 2, 11);
  gate(m, "h", "g", 16, false, true);
  conv(m, "g", "y", 16, 16, {1}, 1, 13);
  m.output("y");
  const std::map<std::string, int> ops = expect_same_outputs(m.bytes(), cpu_options());
  EXPECT_EQ(ops.at("NeeConv"), 3);
  EXPECT_EQ(ops.at("NeeElementwise"), 1);
  for (const char* gone : {"Slice", "Pad", "NeeLayout"}) EXPECT_EQ(ops.count(gone), 0u) << gone;
  Graph g = import_onnx_bytes(m.bytes());
  optimize_graph(g, cpu_options());
  for (const Node& n : g.nodes()) {
    if (n.op == "NeeElementwise") {
      EXPECT_EQ(g.type_of(n.outputs[0]).shape, (std::vector<int64_t>{1, 1, 1, 40, 16}));
    }
  }
  // Without the options (bundles from before them) the Slices stay.
  GraphOptions before = cpu_options();
  before.split_conv_channels = before.elementwise_over_rows = false;
  EXPECT_EQ(expect_same_outputs(m.bytes(), before).at("Slice"), 2);
}

// A 2-D GLU by a Split: two convs, no Split; a conv whose output another node also reads
// whole stays one conv.
TEST(SplitConvChannels, AGluSplitsItsConvAndAWholeReaderKeepsIt) {
  OnnxModelBuilder glu;
  glu.input("x", {1, 8, 5, 6});
  conv(glu, "x", "h", 8, 32, {3, 3}, 1, 21);
  gate(glu, "h", "y", 16, true, false);
  glu.output("y");
  std::map<std::string, int> ops = expect_same_outputs(glu.bytes(), cpu_options());
  EXPECT_EQ(ops.at("NeeConv"), 2);
  EXPECT_EQ(ops.count("Split"), 0u);

  OnnxModelBuilder whole;
  whole.input("x", {1, 8, 5, 6});
  conv(whole, "x", "h", 8, 32, {3, 3}, 1, 21);
  gate(whole, "h", "gated", 16, true, false);
  whole.node("ReduceMean", {"h"}, {"mean"}, "mean");
  whole.node("Add", {"gated", "mean"}, {"y"}, "add");
  whole.output("y");
  ops = expect_same_outputs(whole.bytes(), cpu_options());
  EXPECT_EQ(ops.at("NeeConv"), 1);
  EXPECT_EQ(ops.at("Split"), 1);
}

}  // namespace
}  // namespace nee
