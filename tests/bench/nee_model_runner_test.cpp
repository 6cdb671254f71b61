// nee-bench --models measures NEE as it measures the peers: in a process of its own
// (nee-model-runner, which links the runtime only), whose pid, start-up, peak RSS,
// latencies and outputs come back through its result JSON.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include "bench/models/model_bench.h"
#include "core/subprocess.h"
#include "importer/import_onnx.h"
#include "onnx_model_builder.h"
#include "runtime/node_workload.h"
#include "runtime/passes/passes.h"
#include "runtime/tensor_io.h"
#include "tuner/compile/bundle_builder.h"
#include "tuner/compile/kernel_compiler.h"

namespace nee::bench {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

// VmHWM of this test process, which links libHalide and LLVM through the bench library.
double own_peak_rss_mib() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// A one-MatMul model (x [2, 8] times a constant [8, 4]), its test input, and a bundle
// with the MatMul's default-schedule kernel, built once.
class NeeModelRunner : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("nee_model_runner_test_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "inputs");
    weights_ = random_tensor({DType::f32, {8, 4}}, 31);
    x_ = random_tensor({DType::f32, {2, 8}}, 32);
    test::OnnxModelBuilder m;
    m.input("x", {2, 8}).output("y", {2, 4});
    m.initializer("w", weights_);
    m.node("MatMul", {"x", "w"}, {"y"}, "mm");
    std::ofstream(model(), std::ios::binary) << m.bytes();
    write_tensor_pb((dir_ / "inputs" / "input_0.pb").string(), x_, "x");

    Graph graph = import_onnx(model());
    optimize_graph(graph);
    BundleRequest request;
    request.workloads = extract_workloads(graph);
    request.target = host_target(TargetKind::cpu);
    request.model_path = model();
    request.output_dir = bundle();
    request.use_database = false;
    build_bundle(nullptr, request);
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  static std::string model() { return (dir_ / "model.onnx").string(); }
  static std::string bundle() { return (dir_ / "bundle").string(); }
  static std::string inputs() { return (dir_ / "inputs").string(); }

  static fs::path dir_;
  static Tensor weights_, x_;
};

fs::path NeeModelRunner::dir_;
Tensor NeeModelRunner::weights_, NeeModelRunner::x_;

TEST_F(NeeModelRunner, FiguresComeFromAChildProcessThatLinksOnlyTheRuntime) {
  RunSettings settings;
  settings.warmup = 1;
  settings.runs = 3;
  const EngineRun r = run_nee(NEE_MODEL_RUNNER, model(), inputs(), bundle(), (dir_ / "runs").string(), settings);
  ASSERT_TRUE(r.ran()) << r.skipped;
  EXPECT_GT(r.pid, 0);
  EXPECT_NE(r.pid, getpid());
  // The child's own peak, not this process's (whose libHalide and LLVM it never maps).
  EXPECT_GT(r.peak_rss_mib, 1.0);
  EXPECT_LT(r.peak_rss_mib, own_peak_rss_mib());
  EXPECT_GT(r.session_startup_ms, 0);
  EXPECT_GT(r.process_startup_ms, r.session_startup_ms);  // exec and dynamic loading come first
  EXPECT_EQ(r.latencies_ms.size(), 3u);
  EXPECT_EQ(r.latency.count, 3);
  EXPECT_DOUBLE_EQ(r.bundle_flop_share, 1.0);  // the MatMul ran in the bundle's kernel

  ASSERT_EQ(r.outputs.size(), 1u);
  ASSERT_EQ(r.outputs[0].shape(), (std::vector<int64_t>{2, 4}));
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 4; ++j) {
      double dot = 0;
      for (int k = 0; k < 8; ++k) dot += double(x_.data_as<float>()[i * 8 + k]) * weights_.data_as<float>()[k * 4 + j];
      EXPECT_NEAR(r.outputs[0].data_as<float>()[i * 4 + j], dot, 1e-5) << i << "," << j;
    }
  }

  // The runner's dynamic dependencies hold no compiler; this test's own do (the check can fail).
  const ProcessResult runner_libs = run_process({"ldd", NEE_MODEL_RUNNER}, 30);
  ASSERT_TRUE(runner_libs.exited && runner_libs.exit_code == 0) << runner_libs.output;
  EXPECT_THAT(lower(runner_libs.output), Not(HasSubstr("halide")));
  EXPECT_THAT(lower(runner_libs.output), Not(HasSubstr("llvm")));
  EXPECT_THAT(lower(run_process({"ldd", fs::read_symlink("/proc/self/exe").string()}, 30).output),
              HasSubstr("halide"));
}

TEST_F(NeeModelRunner, AMissingRunnerOrAFailingRunIsSkippedWithItsReason) {
  RunSettings settings;
  const EngineRun missing =
      run_nee((dir_ / "absent-runner").string(), model(), inputs(), bundle(), (dir_ / "runs").string(), settings);
  EXPECT_FALSE(missing.ran());
  EXPECT_THAT(missing.skipped, HasSubstr("no nee-model-runner at " + (dir_ / "absent-runner").string()));

  const EngineRun no_bundle = run_nee(NEE_MODEL_RUNNER, model(), inputs(), (dir_ / "no-bundle").string(),
                                      (dir_ / "runs").string(), settings);
  EXPECT_FALSE(no_bundle.ran());
  EXPECT_THAT(no_bundle.skipped, HasSubstr("exit status 1: nee-model-runner: error:"));
  EXPECT_THAT(no_bundle.skipped, HasSubstr("no-bundle"));
}

}  // namespace
}  // namespace nee::bench
