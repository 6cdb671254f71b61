// The matmul kernel, compiled by the Builder into shared libraries (default and random
// valid schedules) and called through HalideKernel, against compute_reference on fresh
// random inputs at awkward shapes. All CPU and OpenCL kernels are compiled once, in one
// parallel build, and shared by the tests.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <random>

#include "core/error.h"
#include "runtime/bundle/halide_kernel.h"
#include "runtime/tensor_io.h"
#include "schedules/schedule_space.h"
#include "tuner/builder.h"
#include "tuner/kernel_compiler.h"
#include "tuner/measure/workload_reference.h"
#include "tuner/local_runner.h"

namespace nee {
namespace {

namespace fs = std::filesystem;

Workload plain(int64_t m, int64_t k, int64_t n) {
  return make_matmul_workload({DType::f32, {m, k}}, {DType::f32, {k, n}}, nullptr, MatmulAttrs{});
}

std::string make_temp_dir(const std::string& tag) {
  std::string pattern = ::testing::TempDir() + "nee-" + tag + "-XXXXXX";
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

struct Built {
  Candidate candidate;
  BuildResult build;
};

class MatmulKernel : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    built_ = new std::map<std::string, Built>();
    work_dir_ = make_temp_dir("kernels");
    const Target cpu = host_target(TargetKind::cpu);
    std::vector<std::pair<std::string, Candidate>> wanted;
    const auto add_default = [&](const std::string& name, const Workload& w, const Target& t) {
      wanted.push_back({name, Candidate{w, t, make_schedule_space(w, t.kind())->default_config(), "default", 0, {}}});
    };
    add_default("1x1x1", plain(1, 1, 1), cpu);
    add_default("7x13x5", plain(7, 13, 5), cpu);
    add_default("129x65x33", plain(129, 65, 33), cpu);
    add_default("batched_broadcast",
                make_matmul_workload({DType::f32, {2, 3, 5, 7}}, {DType::f32, {7, 4}}, nullptr, MatmulAttrs{}), cpu);
    {
      MatmulAttrs a;
      a.trans_a = a.trans_b = true;
      a.alpha = 0.5;
      a.beta = 2;
      const TensorType c{DType::f32, {1, 10}};
      add_default("gemm_trans_bias_row", make_matmul_workload({DType::f32, {6, 9}}, {DType::f32, {10, 6}}, &c, a), cpu);
    }
    {
      MatmulAttrs a;
      a.alpha = 0.5;
      a.beta = 2;
      a.relu = true;
      const TensorType c{DType::f32, {1}};
      add_default("gemm_scalar_bias_relu", make_matmul_workload({DType::f32, {9, 6}}, {DType::f32, {6, 10}}, &c, a),
                  cpu);
    }
    {
      MatmulAttrs a;
      a.relu = true;
      const TensorType c{DType::f32, {19}};
      add_default("matmul_bias_relu", make_matmul_workload({DType::f32, {17, 11}}, {DType::f32, {11, 19}}, &c, a),
                  cpu);
    }
    {
      MatmulAttrs a;
      a.gelu = true;
      a.alpha = 0.25;
      const TensorType c{DType::f32, {19}};
      add_default("matmul_scaled_bias_gelu",
                  make_matmul_workload({DType::f32, {2, 17, 11}}, {DType::f32, {11, 19}}, &c, a), cpu);
    }
    // Random valid non-default CPU points: one with kc > 0, one with parallel = 2, one more.
    {
      const Workload w = plain(129, 65, 33);
      const auto space = make_schedule_space(w, TargetKind::cpu);
      std::mt19937_64 rng(2024);
      std::optional<ScheduleConfig> with_kc, with_parallel2, other;
      for (int i = 0; i < 10000 && !(with_kc && with_parallel2 && other); ++i) {
        ScheduleConfig c = space->random_config(rng);
        if (c == space->default_config()) continue;
        if (!with_kc && c.at("kc") > 0) {
          with_kc = c;
        } else if (!with_parallel2 && c.at("parallel") == 2 && c.at("kc") == 0) {
          with_parallel2 = c;
        } else if (!other && c.at("kc") == 0 && c.at("parallel") != 2) {
          other = c;
        }
      }
      ASSERT_TRUE(with_kc && with_parallel2 && other) << "random_config never gave the wanted points";
      wanted.push_back({"random_kc", Candidate{w, cpu, *with_kc, "random", 0, {}}});
      wanted.push_back({"random_parallel2", Candidate{w, cpu, *with_parallel2, "random", 0, {}}});
      wanted.push_back({"random_other", Candidate{w, cpu, *other, "random", 0, {}}});
    }
    add_default("opencl_16x8x12", plain(16, 8, 12), host_target(TargetKind::opencl));

    std::vector<Candidate> candidates;
    for (const auto& named : wanted) candidates.push_back(named.second);
    Builder builder(work_dir_, 2, 240);
    const std::vector<BuildResult> results = builder.build(candidates);
    for (size_t i = 0; i < wanted.size(); ++i) (*built_)[wanted[i].first] = Built{candidates[i], results[i]};
  }

  static void TearDownTestSuite() {
    delete built_;
    built_ = nullptr;
    std::error_code ec;
    fs::remove_all(work_dir_, ec);
  }

  static const Built& get(const std::string& name) {
    if (!built_->count(name)) throw std::runtime_error("kernel '" + name + "' was not built");
    return built_->at(name);
  }

  // Builds ok, loads, checks the signature, and compares with compute_reference on fresh
  // random inputs (two seeds). Returns the kernel's output for the last seed.
  static Tensor check_against_reference(const std::string& name, uint64_t seed_base = 100) {
    const Built& b = get(name);
    EXPECT_TRUE(b.build.ok()) << name << ": " << b.build.error;
    if (!b.build.ok()) return Tensor();
    const Workload& w = b.candidate.workload;
    SharedLibrary lib(b.build.artifact);
    HalideKernel kernel(lib, b.build.symbol);
    kernel.check_signature(w.inputs, w.output);
    Tensor out;
    double sum = 0;  // the answers are not all zero
    for (uint64_t seed = seed_base; seed < seed_base + 2; ++seed) {
      std::vector<Tensor> inputs;
      std::vector<const Tensor*> ptrs;
      for (size_t i = 0; i < w.inputs.size(); ++i) inputs.push_back(random_tensor(w.inputs[i], seed * 10 + i));
      for (const Tensor& t : inputs) ptrs.push_back(&t);
      out = Tensor(w.output);
      std::fill(out.data_as<float>(), out.data_as<float>() + out.elements(), NAN);
      Tensor want(w.output);
      kernel.run(ptrs, out);
      compute_reference(w, ptrs, want);
      const auto& sa = w.inputs[0].shape;
      const int64_t k = matmul_attrs(w).trans_a ? sa[sa.size() - 2] : sa.back();
      int bad = 0;
      for (int64_t i = 0; i < out.elements() && bad < 5; ++i) {
        const float g = out.data_as<float>()[i], r = want.data_as<float>()[i];
        if (!(std::fabs(g - r) <= 2e-6 * k + 1e-4 * std::fabs(r))) {
          ADD_FAILURE() << name << " [" << b.candidate.config.to_string() << "] element " << i << ": got " << g
                        << ", reference " << r;
          ++bad;
        }
      }
      for (int64_t i = 0; i < want.elements(); ++i) sum += std::fabs(want.data_as<float>()[i]);
    }
    EXPECT_GT(sum, 0) << name;
    return out;
  }

  static std::string work_dir_;
  static std::map<std::string, Built>* built_;
};

std::string MatmulKernel::work_dir_;
std::map<std::string, Built>* MatmulKernel::built_ = nullptr;

TEST_F(MatmulKernel, OneByOneByOne) { check_against_reference("1x1x1"); }
TEST_F(MatmulKernel, Shape7x13x5) { check_against_reference("7x13x5"); }
TEST_F(MatmulKernel, Shape129x65x33) { check_against_reference("129x65x33"); }

TEST_F(MatmulKernel, BatchedBroadcast) {
  const Built& b = get("batched_broadcast");
  EXPECT_EQ(b.candidate.workload.output.shape, (std::vector<int64_t>{2, 3, 5, 4}));
  check_against_reference("batched_broadcast");
}

TEST_F(MatmulKernel, GemmTransposedWithAlphaBetaAndRowBias) { check_against_reference("gemm_trans_bias_row"); }
TEST_F(MatmulKernel, GemmScalarBiasAndRelu) { check_against_reference("gemm_scalar_bias_relu"); }
TEST_F(MatmulKernel, MatMulBiasRelu) { check_against_reference("matmul_bias_relu"); }
TEST_F(MatmulKernel, MatMulScaledBiasGelu) { check_against_reference("matmul_scaled_bias_gelu"); }

TEST(MatmulWorkload, KeysWithoutGeluAreUnchanged) {
  const TensorType c{DType::f32, {2}};
  MatmulAttrs a;
  a.relu = true;
  const Workload w = make_matmul_workload({DType::f32, {4, 8}}, {DType::f32, {8, 2}}, &c, a);
  EXPECT_EQ(w.key(), R"(matmul(f32[4,8],f32[8,2],f32[2])->f32[4,2]{"alpha":1.0,"beta":1.0,"bias":1,"relu":1,"trans_a":0,"trans_b":0})");
  a.relu = false;
  a.gelu = true;
  const Workload g = make_matmul_workload({DType::f32, {4, 8}}, {DType::f32, {8, 2}}, &c, a);
  EXPECT_NE(g.key().find(R"("gelu":1)"), std::string::npos);
  EXPECT_TRUE(matmul_attrs(g).gelu);
  a.relu = true;
  EXPECT_THROW(make_matmul_workload({DType::f32, {4, 8}}, {DType::f32, {8, 2}}, &c, a), Error);
}

// The reference itself, for the Gemm case, against loops written here.
TEST_F(MatmulKernel, GemmMatchesHandWrittenLoops) {
  const Built& b = get("gemm_trans_bias_row");
  ASSERT_TRUE(b.build.ok()) << b.build.error;
  const Workload& w = b.candidate.workload;
  const Tensor a = random_tensor(w.inputs[0], 5), bm = random_tensor(w.inputs[1], 6), c = random_tensor(w.inputs[2], 7);
  SharedLibrary lib(b.build.artifact);
  HalideKernel kernel(lib, b.build.symbol);
  Tensor out(w.output);
  kernel.run({&a, &bm, &c}, out);
  const int64_t m = 9, k = 6, n = 10;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p) s += a.data_as<float>()[p * m + i] * bm.data_as<float>()[j * k + p];
      const double want = 0.5 * s + 2.0 * c.data_as<float>()[j];
      EXPECT_NEAR(out.data_as<float>()[i * n + j], want, 1e-5) << i << "," << j;
    }
  }
}

TEST_F(MatmulKernel, ReluClampsNegatives) {
  // A zero bias: about half the outputs are negative before the relu.
  const Built& b = get("gemm_scalar_bias_relu");
  ASSERT_TRUE(b.build.ok()) << b.build.error;
  const Workload& w = b.candidate.workload;
  const Tensor a = random_tensor(w.inputs[0], 31), bm = random_tensor(w.inputs[1], 32);
  Tensor c(w.inputs[2]);
  SharedLibrary lib(b.build.artifact);
  HalideKernel kernel(lib, b.build.symbol);
  Tensor out(w.output), want(w.output);
  kernel.run({&a, &bm, &c}, out);
  compute_reference(w, {&a, &bm, &c}, want);
  int zeros = 0, positives = 0;
  for (int64_t i = 0; i < out.elements(); ++i) {
    const float v = out.data_as<float>()[i];
    EXPECT_GE(v, 0.0f);
    EXPECT_NEAR(v, want.data_as<float>()[i], 1e-5);
    zeros += v == 0.0f;
    positives += v > 0.0f;
  }
  EXPECT_GT(zeros, 10);
  EXPECT_GT(positives, 10);
}

TEST_F(MatmulKernel, RandomScheduleWithKcSplit) {
  EXPECT_GT(get("random_kc").candidate.config.at("kc"), 0);
  check_against_reference("random_kc");
}

TEST_F(MatmulKernel, RandomScheduleWithFusedParallelTiles) {
  EXPECT_EQ(get("random_parallel2").candidate.config.at("parallel"), 2);
  check_against_reference("random_parallel2");
}

TEST_F(MatmulKernel, AnotherRandomSchedule) { check_against_reference("random_other"); }

TEST_F(MatmulKernel, KernelRefusesOtherShapes) {
  const Built& b = get("7x13x5");
  ASSERT_TRUE(b.build.ok()) << b.build.error;
  SharedLibrary lib(b.build.artifact);
  HalideKernel kernel(lib, b.build.symbol);
  const Workload other = make_matmul_workload({DType::f32, {7, 13, 2}}, {DType::f32, {7, 2, 5}}, nullptr, {});
  EXPECT_THROW(kernel.check_signature(other.inputs, other.output), Error);
}

// OpenCL runs only in a process without libHalide: nee-measure, through LocalRunner.
TEST_F(MatmulKernel, OpenClKernelVerifiedByNeeMeasure) {
  const Built& b = get("opencl_16x8x12");
  ASSERT_TRUE(b.build.ok()) << b.build.error;
  EXPECT_EQ(b.candidate.target.kind(), TargetKind::opencl);
  RunnerOptions options;
  options.timeout_seconds = 120;
  options.repeats = 1;
  options.min_sample_ms = 1;
  LocalRunner runner(options, NEE_MEASURE_PATH);
  const MeasureResult r = runner.measure(b.build, b.candidate, 11);
  EXPECT_EQ(to_string(r.status), "ok") << r.error;
  EXPECT_GT(r.median_us, 0);
  EXPECT_LT(r.max_abs_error, 1e-3);
}

TEST(MatmulKernelCuda, CompilesToAnObject) {
  const std::string dir = make_temp_dir("cuda");
  const Workload w = plain(32, 16, 24);
  const Target t = host_target(TargetKind::cuda);
  ASSERT_EQ(t.kind(), TargetKind::cuda);
  EXPECT_TRUE(t.has_feature("cuda"));
  const std::string object = dir + "/kernel.o";
  ASSERT_NO_THROW(compile_kernel_object(w, t, make_schedule_space(w, TargetKind::cuda)->default_config(),
                                        Builder::symbol_for(w), object));
  ASSERT_TRUE(fs::exists(object));
  EXPECT_GT(fs::file_size(object), 1000u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nee
