// What the passes make of an expanded Attention node (importer/expansions/attention.cpp).
#include <gtest/gtest.h>

#include <algorithm>

#include "fusion_check.h"
#include "importer/import_onnx.h"
#include "onnx_model_builder.h"

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

}  // namespace
}  // namespace nee
