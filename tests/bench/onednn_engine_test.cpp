// oneDNN's engine against the reference: MatMul on plain operands, and convolutions in
// oneDNN's own layout (inputs reordered in bind_inputs, the output back in finish_output).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "bench/engines/engine_factory.h"
#include "bench/engines/onednn_engine.h"
#include "bench/suites.h"
#include "core/error.h"
#include "runtime/reference/family_reference.h"
#include "tuner/measure/measurement.h"

namespace nee::bench {
namespace {

void expect_onednn_matches_reference(const std::string& shape) {
  const Workload w = workload_from_shape(shape);
  OneDnnEngine engine(2);
  engine.prepare(w);
  std::mt19937_64 rng(11);
  std::vector<Tensor> inputs;
  for (const TensorType& t : w.inputs) inputs.push_back(random_input(t, rng));
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : inputs) ptrs.push_back(&t);
  Tensor got(w.output), want(w.output);
  std::fill(got.data_as<float>(), got.data_as<float>() + got.elements(), NAN);
  engine.bind_inputs(ptrs);
  engine.run(ptrs, got);
  engine.finish_output(got);
  compute_reference(w, ptrs, want);
  for (int64_t i = 0; i < got.elements(); ++i) {
    ASSERT_NEAR(got.data_as<float>()[i], want.data_as<float>()[i], 1e-4) << shape << " element " << i;
  }
}

TEST(OneDnnEngine, MatMulMatchesReferenceOnAwkwardShape) { expect_onednn_matches_reference("33x17x45"); }

TEST(OneDnnEngine, StridedPaddedConvMatchesReference) { expect_onednn_matches_reference("1x5x9x11,7x3x3,s2,p1"); }

TEST(OneDnnEngine, DepthwiseConvMatchesReference) { expect_onednn_matches_reference("1x6x8x8,6x3x3,p1,g6"); }

TEST(OneDnnEngine, DilatedConvMatchesReference) { expect_onednn_matches_reference("2x3x10x10,4x3x3,d2"); }

TEST(OneDnnEngine, RunRefusesInputsOtherThanTheBoundOnes) {
  const Workload w = workload_from_shape("1x2x4x4,2x1x1");
  OneDnnEngine engine(1);
  engine.prepare(w);
  std::mt19937_64 rng(3);
  Tensor x = random_input(w.inputs[0], rng), k = random_input(w.inputs[1], rng), other = random_input(w.inputs[0], rng);
  Tensor out(w.output);
  engine.bind_inputs({&x, &k});
  EXPECT_THROW(engine.run({&other, &k}, out), Error);
}

TEST(OneDnnEngine, VersionNamesTheOpenMpRuntime) {
  EXPECT_EQ(onednn_version().rfind("oneDNN 2.", 0), 0u) << onednn_version();
  EXPECT_NE(onednn_version().find("OpenMP"), std::string::npos);
}

TEST(Suites, EveryConvSuiteShapeParsesAndIsDistinct) {
  for (const char* name : {"resnet50-conv", "mobilenetv2-dw"}) {
    const Suite& s = find_suite(name);
    EXPECT_EQ(s.op, "conv2d");
    std::vector<std::string> keys;
    for (const std::string& shape : s.shapes) {
      const Workload w = workload_from_shape(shape);
      EXPECT_EQ(w.op, "conv2d") << shape;
      EXPECT_EQ(std::count(keys.begin(), keys.end(), w.key()), 0) << shape << " twice in " << name;
      keys.push_back(w.key());
    }
  }
  EXPECT_EQ(find_suite("resnet50-conv").shapes.size(), 23u);
  // The stem: 224 -> 112 with a 7x7, stride 2, pad 3.
  EXPECT_EQ(workload_from_shape(find_suite("resnet50-conv").shapes[0]).output.shape,
            (std::vector<int64_t>{1, 64, 112, 112}));
  EXPECT_EQ(find_suite("mobilenetv2-dw").shapes.size(), 10u);
}

TEST(Engines, DefaultEnginesCoverTheOperator) {
  EXPECT_EQ(default_engine_names("conv2d"), (std::vector<std::string>{"nee-tuned", "nee-default", "onednn"}));
  const auto matmul = default_engine_names("matmul");
  EXPECT_NE(std::find(matmul.begin(), matmul.end(), "openblas"), matmul.end());
  EXPECT_NE(std::find(matmul.begin(), matmul.end(), "onednn"), matmul.end());
}

}  // namespace
}  // namespace nee::bench
