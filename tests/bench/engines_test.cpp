#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "bench/engines/engine_factory.h"
#include "bench/engines/kernel_workspace.h"
#include "bench/engines/nee_engine.h"
#include "core/conv2d_workload.h"
#include "core/error.h"
#include "core/matmul_workload.h"
#include "runtime/reference/family_reference.h"
#include "runtime/tensor.h"
#include "runtime/tensor_io.h"

namespace nee::bench {
namespace {

// An awkward shape: no size is a multiple of a vector width or a tile.
const char* kShape = "33x17x45";

void expect_engine_matches_reference(const std::string& engine_name) {
  const Workload w = matmul_workload_from_shape(kShape);
  auto engines = make_engines({engine_name}, 1, nullptr);
  Engine& engine = *engines.at(0);
  engine.prepare(w);

  const Tensor a = random_tensor(w.inputs[0], 7), b = random_tensor(w.inputs[1], 8);
  Tensor got(w.output), want(w.output);
  std::fill(got.data_as<float>(), got.data_as<float>() + got.elements(), NAN);
  // As the bench calls an engine: NEE packs B's 45 columns in padded panels here.
  engine.bind_inputs({&a, &b});
  engine.run({&a, &b}, got);
  engine.finish_output(got);
  compute_reference(w, {&a, &b}, want);

  ASSERT_EQ(got.shape(), (std::vector<int64_t>{33, 45}));
  for (int64_t i = 0; i < got.elements(); ++i) {
    ASSERT_NEAR(got.data_as<float>()[i], want.data_as<float>()[i], 1e-4) << engine_name << " element " << i;
  }
  // A value computed by hand: out[0][0] = sum_k a[0][k] * b[k][0].
  double dot = 0;
  for (int k = 0; k < 17; ++k) dot += double(a.data_as<float>()[k]) * b.data_as<float>()[k * 45];
  EXPECT_NEAR(got.data_as<float>()[0], dot, 1e-4);
}

TEST(Engines, OpenBlasMatchesReferenceOnAwkwardShape) { expect_engine_matches_reference("openblas"); }

TEST(Engines, NeeDefaultScheduleMatchesReferenceOnAwkwardShape) { expect_engine_matches_reference("nee-default"); }

TEST(Engines, TunedWithoutDatabaseFallsBackToLabelledDefaultSchedule) {
  auto engines = make_engines({"nee-tuned"}, 1, nullptr);
  engines[0]->prepare(matmul_workload_from_shape(kShape));
  EXPECT_EQ(engines[0]->provenance(), "default schedule - run nee-tune --op matmul --shape 33x17x45");
}

TEST(Engines, TunedConvWithoutDatabaseNamesItsTuneCommand) {
  EXPECT_EQ(tune_command_for(conv2d_workload_from_shape("1x64x56x56,64x3x3,s2,p1,g2")),
            "nee-tune --op conv2d --shape 1x64x56x56,64x3x3,s2,p1,g2");
  EXPECT_EQ(tune_command_for(conv2d_workload_from_shape("1x3x8x8,4x1x1")), "nee-tune --op conv2d --shape 1x3x8x8,4x1x1");
}

TEST(Engines, AutoschedulerRefusesConvWithReason) {
  auto engines = make_engines({"adams2019"}, 1, nullptr);
  try {
    engines[0]->prepare(conv2d_workload_from_shape("1x3x8x8,4x1x1"));
    FAIL() << "expected a refusal";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("matmul only"), std::string::npos) << e.what();
  }
}

TEST(Engines, UnknownEngineNameIsRefused) { EXPECT_THROW(make_engines({"cublas"}, 1, nullptr), Error); }


// A GPU conv's weights are channel-blocked as on the CPU (conv2d_runtime_layout), so the
// bench packs them before they go to the device. Where a GPU is present the output must
// match the reference. Without one the kernel's first call fails at the CUDA driver;
// unpacked rank-4 weights would be refused before that, by the engine's check of the
// operands against the kernel's signature ("argument 'weights' has rank 5").
TEST(Engines, GpuConvTakesItsWeightsChannelBlocked) {
  const Workload w = conv2d_workload_from_shape("1x8x6x6,16x3x3,p1");
  NeeEngine engine(std::make_shared<KernelWorkspace>(1), NeeSchedule::default_schedule, nullptr, TargetKind::cuda);
  engine.prepare(w);

  const Tensor x = random_tensor(w.inputs[0], 11), weights = random_tensor(w.inputs[1], 12);
  try {
    engine.bind_inputs({&x, &weights});
  } catch (const Error& e) {
    const std::string why = e.what();
    EXPECT_EQ(why.find("has rank"), std::string::npos) << why;
    // Halide 21 without a driver: "CUDA API not found: cuInit".
    EXPECT_NE(why.find("CUDA"), std::string::npos) << why;
    return;
  }
  Tensor got(w.output), want(w.output);
  engine.run({&x, &weights}, got);
  engine.finish_output(got);
  compute_reference(w, {&x, &weights}, want);
  for (int64_t i = 0; i < got.elements(); ++i) {
    ASSERT_NEAR(got.data_as<float>()[i], want.data_as<float>()[i], 1e-4) << "element " << i;
  }
}

}  // namespace
}  // namespace nee::bench
