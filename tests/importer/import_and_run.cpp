#include "import_and_run.h"

#include <gtest/gtest.h>

#include <random>

#include "core/error.h"
#include "importer/import_onnx.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"

namespace nee::test {

std::map<std::string, Tensor> run_model(const OnnxModelBuilder& model, const std::map<std::string, Tensor>& inputs) {
  Session session(import_onnx_bytes(model.bytes()), {}, SessionOptions{optimize_graph});
  return session.run(inputs);
}

Tensor run_single_output(const OnnxModelBuilder& model, const std::map<std::string, Tensor>& inputs) {
  auto outputs = run_model(model, inputs);
  EXPECT_EQ(outputs.size(), 1u);
  return outputs.begin()->second;
}

std::string import_error(const OnnxModelBuilder& model) {
  try {
    import_onnx_bytes(model.bytes());
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "import succeeded";
  return "";
}

void expect_near_all(const std::vector<float>& actual, const std::vector<float>& expected, float tolerance) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) EXPECT_NEAR(actual[i], expected[i], tolerance) << "at " << i;
}

Tensor random_f32(const std::vector<int64_t>& shape, uint32_t seed, float bound) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-bound, bound);
  Tensor t(DType::f32, shape);
  for (int64_t i = 0; i < t.elements(); ++i) t.data_as<float>()[i] = dist(gen);
  return t;
}

std::vector<std::string> dims_text(const std::vector<int64_t>& shape) {
  std::vector<std::string> dims;
  for (int64_t d : shape) dims.push_back(std::to_string(d));
  return dims;
}

}  // namespace nee::test
