#include "fusion_check.h"

#include <gtest/gtest.h>

#include "runtime/passes/passes.h"
#include "runtime/session.h"
#include "runtime/tensor_io.h"

namespace nee::test {

std::map<std::string, Tensor> random_inputs(const Graph& g) {
  std::map<std::string, Tensor> inputs;
  uint64_t seed = 10;
  for (const std::string& name : g.inputs()) inputs[name] = random_tensor(g.type_of(name), seed++);
  return inputs;
}

std::vector<std::string> expect_fusion_preserves_outputs(const Graph& g, const GraphOptions& options) {
  const auto inputs = random_inputs(g);
  Graph optimized = g;
  optimize_graph(optimized, options);
  Session unfused(g, {});
  Session fused(optimized, {});
  const auto expected = unfused.run(inputs);
  const auto actual = fused.run(inputs);
  EXPECT_EQ(expected.size(), actual.size());
  for (const auto& [name, want] : expected) {
    const Tensor& got = actual.at(name);
    EXPECT_EQ(got.shape(), want.shape()) << name;
    for (int64_t i = 0; i < want.elements(); ++i) {
      EXPECT_NEAR(got.data_as<float>()[i], want.data_as<float>()[i], 1e-5f) << name << " at " << i;
    }
  }
  std::vector<std::string> ops;
  for (const Node& node : fused.graph().nodes()) ops.push_back(node.op);
  return ops;
}

}  // namespace nee::test
