// What the passes make of operators the importer expands (importer/expansions/).
#include <gtest/gtest.h>

#include <algorithm>

#include "fusion_check.h"
#include "importer/import_onnx.h"
#include "onnx_model_builder.h"
#include "runtime/graph_options.h"

namespace nee {
namespace {

// The default passes turn a causal 3-D attention's two products into NeeMatMuls, the
// kernels a bundle holds, and keep its outputs.
TEST(AttentionExpansionPasses, ProductsBecomeBundleMatMuls) {
  test::OnnxModelBuilder m(23);
  m.input("q", {1, 16, 64}).input("k", {1, 16, 64}).input("v", {1, 16, 64}).output("y");
  onnx::NodeProto& node = m.node("Attention", {"q", "k", "v"}, {"y"});
  test::set_attr(node, "q_num_heads", int64_t{4});
  test::set_attr(node, "kv_num_heads", int64_t{4});
  test::set_attr(node, "is_causal", int64_t{1});
  const std::vector<std::string> ops = test::expect_fusion_preserves_outputs(import_onnx_bytes(m.bytes()));
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "NeeMatMul"), 2);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "MatMul"), 0);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "Softmax"), 1);
}

// An opset-21 GroupNormalization expands into the chain PyTorch 1.13 exports for
// torch.nn.GroupNorm, which fuse_group_norm runs as one NeeGroupNorm, outputs kept.
TEST(GroupNormalizationExpansionPasses, BecomesOneGroupNormKernel) {
  test::OnnxModelBuilder m(21);
  m.input("x", {1, 32, 6, 6}).output("y");
  std::vector<float> scale, bias;
  for (int c = 0; c < 32; ++c) {
    scale.push_back(0.5f + 0.03f * static_cast<float>(c));
    bias.push_back(0.1f * static_cast<float>(c % 5) - 0.2f);
  }
  m.initializer("scale", test::make_f32({32}, scale));
  m.initializer("bias", test::make_f32({32}, bias));
  test::set_attr(m.node("GroupNormalization", {"x", "scale", "bias"}, {"y"}), "num_groups", int64_t{8});
  GraphOptions options;
  options.fuse_group_norms = true;
  const std::vector<std::string> ops = test::expect_fusion_preserves_outputs(import_onnx_bytes(m.bytes()), options);
  EXPECT_EQ(ops, (std::vector<std::string>{"NeeGroupNorm"}));
}

}  // namespace
}  // namespace nee
