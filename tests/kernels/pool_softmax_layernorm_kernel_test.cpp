// The pool2d, softmax and layernorm kernels, compiled by the Builder into shared libraries
// (the default schedule and two seeded random valid points per shape) and called through
// HalideKernel, against compute_reference at awkward shapes; one CPU and one OpenCL kernel
// per family also go through nee-measure. All kernels are compiled once, in one parallel
// build.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <random>

#include "core/error.h"
#include "core/layernorm_workload.h"
#include "core/pool_workload.h"
#include "core/softmax_workload.h"
#include "runtime/bundle/halide_kernel.h"
#include "runtime/tensor_io.h"
#include "schedules/schedule_space.h"
#include "tuner/builder.h"
#include "tuner/kernel_compiler.h"
#include "tuner/measure/measurement.h"
#include "tuner/measure/workload_reference.h"
#include "tuner/local_runner.h"

namespace nee {
namespace {

namespace fs = std::filesystem;

std::string make_temp_dir(const std::string& tag) {
  std::string pattern = ::testing::TempDir() + "nee-" + tag + "-XXXXXX";
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

TensorType f32(std::vector<int64_t> shape) { return TensorType{DType::f32, std::move(shape)}; }

Pool2dAttrs pool(PoolKind kind, std::array<int64_t, 2> kernel, std::array<int64_t, 2> strides,
                 std::array<int64_t, 4> pads) {
  Pool2dAttrs a;
  a.kind = kind;
  a.kernel = kernel;
  a.strides = strides;
  a.pads = pads;
  return a;
}

std::map<std::string, Workload> cases() {
  std::map<std::string, Workload> all;
  all["pool_max_3x3_s2_p1"] =
      make_pool2d_workload(f32({1, 3, 13, 7}), pool(PoolKind::max, {3, 3}, {2, 2}, {1, 1, 1, 1}), false);
  all["pool_max_ceil"] =
      make_pool2d_workload(f32({1, 2, 7, 13}), pool(PoolKind::max, {2, 2}, {2, 2}, {0, 0, 0, 0}), true);
  Pool2dAttrs dilated = pool(PoolKind::max, {3, 2}, {1, 2}, {1, 0, 0, 1});
  dilated.dilations = {2, 1};
  all["pool_max_dilated_asymmetric"] = make_pool2d_workload(f32({2, 3, 9, 11}), dilated, false);
  all["pool_avg_exclude_pad"] =
      make_pool2d_workload(f32({1, 4, 7, 13}), pool(PoolKind::average, {3, 3}, {1, 1}, {1, 1, 1, 1}), false);
  Pool2dAttrs include = pool(PoolKind::average, {3, 3}, {2, 2}, {1, 1, 1, 1});
  include.count_include_pad = true;
  all["pool_avg_include_pad_ceil"] = make_pool2d_workload(f32({1, 2, 13, 8}), include, true);
  all["pool_global_avg"] = make_global_pool2d_workload(f32({1, 5, 7, 7}), PoolKind::average);
  all["pool_global_max"] = make_global_pool2d_workload(f32({2, 3, 13, 1}), PoolKind::max);
  all["softmax_last"] = make_softmax_workload(f32({3, 13}), -1);
  all["softmax_middle"] = make_softmax_workload(f32({2, 7, 5}), 1);
  all["softmax_single_row"] = make_softmax_workload(f32({13}), 0);
  all["softmax_attention"] = make_softmax_workload(f32({1, 2, 7, 16}), 3);
  const TensorType scale48 = f32({48}), bias_2x13 = f32({1, 13});
  all["layernorm_bias"] = make_layernorm_workload(f32({2, 5, 48}), scale48, &scale48, -1, 1e-5);
  all["layernorm_two_dims"] = make_layernorm_workload(f32({3, 7, 13}), f32({13}), nullptr, 1, 1e-3);
  all["layernorm_single_row"] = make_layernorm_workload(f32({2, 13}), f32({13}), &bias_2x13, 0, 1e-5);
  return all;
}

const char* const kOpenClCases[] = {"pool_max_3x3_s2_p1", "softmax_attention", "layernorm_bias"};

struct Built {
  Candidate candidate;
  BuildResult build;
};

class PoolSoftmaxLayernormKernel : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    built_ = new std::map<std::string, Built>();
    work_dir_ = make_temp_dir("rowpool");
    const Target cpu = host_target(TargetKind::cpu);
    std::vector<std::pair<std::string, Candidate>> wanted;
    std::mt19937_64 rng(2027);
    const auto all = cases();
    for (const auto& [name, w] : all) {
      const auto space = make_schedule_space(w, TargetKind::cpu);
      const ScheduleConfig def = space->default_config();
      wanted.push_back({name + "/default", Candidate{w, cpu, def, "default", 0, {}}});
      for (int i = 0; i < 2; ++i) {
        ScheduleConfig point = space->random_config(rng);
        for (int tries = 0; tries < 100 && point == def; ++tries) point = space->random_config(rng);
        wanted.push_back({name + "/random" + std::to_string(i), Candidate{w, cpu, point, "random", 0, {}}});
      }
    }
    // Staged rows whose vector width does not divide the innermost extent (13, 5): the
    // stored stage must not read past the input.
    for (const char* name : {"layernorm_two_dims", "softmax_middle"}) {
      const Workload& w = all.at(name);
      ScheduleConfig staged = make_schedule_space(w, TargetKind::cpu)->default_config();
      staged.knobs["stage"] = 1;
      staged.knobs["vec"] = 4;
      wanted.push_back({std::string(name) + "/staged", Candidate{w, cpu, staged, "staged", 0, {}}});
    }
    for (const char* name : kOpenClCases) {
      const Workload& w = all.at(name);
      wanted.push_back({std::string("opencl/") + name,
                        Candidate{w, host_target(TargetKind::opencl),
                                  make_schedule_space(w, TargetKind::opencl)->default_config(), "default", 0, {}}});
    }
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

  // Builds ok, loads, checks the signature, and compares with compute_reference on two
  // sets of random inputs.
  static void check_against_reference(const std::string& name) {
    const Built& b = get(name);
    ASSERT_TRUE(b.build.ok()) << name << " [" << b.candidate.config.to_string() << "]: " << b.build.error;
    const Workload& w = b.candidate.workload;
    SharedLibrary lib(b.build.artifact);
    HalideKernel kernel(lib, b.build.symbol);
    kernel.check_signature(w.inputs, w.output);
    const int64_t k = reduction_length(w);
    double sum = 0;
    for (uint64_t seed = 100; seed < 102; ++seed) {
      std::vector<Tensor> inputs;
      std::vector<const Tensor*> ptrs;
      for (size_t i = 0; i < w.inputs.size(); ++i) inputs.push_back(random_tensor(w.inputs[i], seed * 10 + i));
      for (const Tensor& t : inputs) ptrs.push_back(&t);
      Tensor out(w.output), want(w.output);
      std::fill(out.data_as<float>(), out.data_as<float>() + out.elements(), NAN);
      kernel.run(ptrs, out);
      compute_reference(w, ptrs, want);
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
  }

  static void check_all_points(const std::string& shape) {
    for (const char* point : {"/default", "/random0", "/random1"}) check_against_reference(shape + point);
  }

  static MeasureResult measure(const std::string& name) {
    const Built& b = get(name);
    EXPECT_TRUE(b.build.ok()) << b.build.error;
    RunnerOptions options;
    options.timeout_seconds = 120;
    options.repeats = 1;
    options.min_sample_ms = 1;
    LocalRunner runner(options, NEE_MEASURE_PATH);
    return runner.measure(b.build, b.candidate, 11);
  }

  static std::string work_dir_;
  static std::map<std::string, Built>* built_;
};

std::string PoolSoftmaxLayernormKernel::work_dir_;
std::map<std::string, Built>* PoolSoftmaxLayernormKernel::built_ = nullptr;

TEST_F(PoolSoftmaxLayernormKernel, MaxPool3x3Stride2Pad1) { check_all_points("pool_max_3x3_s2_p1"); }
TEST_F(PoolSoftmaxLayernormKernel, MaxPoolCeilMode) { check_all_points("pool_max_ceil"); }
TEST_F(PoolSoftmaxLayernormKernel, MaxPoolDilatedAsymmetricPads) { check_all_points("pool_max_dilated_asymmetric"); }
TEST_F(PoolSoftmaxLayernormKernel, AveragePoolExcludingPad) { check_all_points("pool_avg_exclude_pad"); }
TEST_F(PoolSoftmaxLayernormKernel, AveragePoolIncludingPadCeilMode) { check_all_points("pool_avg_include_pad_ceil"); }
TEST_F(PoolSoftmaxLayernormKernel, GlobalAveragePool) { check_all_points("pool_global_avg"); }
TEST_F(PoolSoftmaxLayernormKernel, GlobalMaxPool) { check_all_points("pool_global_max"); }
TEST_F(PoolSoftmaxLayernormKernel, SoftmaxLastAxis) { check_all_points("softmax_last"); }
TEST_F(PoolSoftmaxLayernormKernel, SoftmaxMiddleAxis) { check_all_points("softmax_middle"); }
TEST_F(PoolSoftmaxLayernormKernel, SoftmaxSingleRow) { check_all_points("softmax_single_row"); }
TEST_F(PoolSoftmaxLayernormKernel, SoftmaxAttentionShape) { check_all_points("softmax_attention"); }
TEST_F(PoolSoftmaxLayernormKernel, LayernormWithBias) { check_all_points("layernorm_bias"); }
TEST_F(PoolSoftmaxLayernormKernel, LayernormOverTwoDims) { check_all_points("layernorm_two_dims"); }
TEST_F(PoolSoftmaxLayernormKernel, LayernormSingleRow) { check_all_points("layernorm_single_row"); }

TEST_F(PoolSoftmaxLayernormKernel, StagedRowsWithVectorTails) {
  check_against_reference("layernorm_two_dims/staged");
  check_against_reference("softmax_middle/staged");
}

TEST_F(PoolSoftmaxLayernormKernel, PoolOutputShapes) {
  // ceil_mode keeps the last partial window: 7 -> 4 rows, 13 -> 7 columns.
  EXPECT_EQ(get("pool_max_ceil/default").candidate.workload.output.shape, (std::vector<int64_t>{1, 2, 4, 7}));
  EXPECT_EQ(get("pool_max_3x3_s2_p1/default").candidate.workload.output.shape, (std::vector<int64_t>{1, 3, 7, 4}));
  EXPECT_EQ(get("pool_global_avg/default").candidate.workload.output.shape, (std::vector<int64_t>{1, 5, 1, 1}));
}

TEST_F(PoolSoftmaxLayernormKernel, CpuKernelsVerifiedByNeeMeasure) {
  for (const char* name : kOpenClCases) {
    const MeasureResult r = measure(std::string(name) + "/default");
    EXPECT_EQ(to_string(r.status), "ok") << name << ": " << r.error;
    EXPECT_GT(r.median_us, 0) << name;
  }
}

// OpenCL runs only in a process without libHalide: nee-measure, through LocalRunner.
TEST_F(PoolSoftmaxLayernormKernel, OpenClKernelsVerifiedByNeeMeasure) {
  for (const char* name : kOpenClCases) {
    const MeasureResult r = measure(std::string("opencl/") + name);
    EXPECT_EQ(to_string(r.status), "ok") << name << ": " << r.error;
    EXPECT_LT(r.max_abs_error, 1e-3) << name;
  }
}

TEST(PoolSoftmaxLayernormWorkload, ValidatesShapesAndAttributes) {
  // A pad as wide as the window would let a window hold padding only.
  EXPECT_THROW(make_pool2d_workload(f32({1, 1, 5, 5}), pool(PoolKind::max, {2, 2}, {1, 1}, {2, 0, 0, 0}), false),
               Error);
  EXPECT_THROW(make_pool2d_workload(f32({1, 1, 5}), Pool2dAttrs{}, false), Error);
  EXPECT_THROW(make_pool2d_workload(f32({1, 1, 2, 2}), pool(PoolKind::max, {3, 3}, {1, 1}, {0, 0, 0, 0}), false),
               Error);
  EXPECT_THROW(make_softmax_workload(f32({2, 3}), 2), Error);
  EXPECT_THROW(make_softmax_workload(TensorType{DType::i64, {2, 3}}, 1), Error);
  EXPECT_THROW(make_layernorm_workload(f32({2, 3}), f32({2, 3}), nullptr, 1, 1e-5), Error);
  EXPECT_THROW(make_layernorm_workload(f32({2, 3}), f32({3}), nullptr, 2, 1e-5), Error);

  // Global pools are plain pools whose window is the plane: the same key.
  const Workload global = make_global_pool2d_workload(f32({1, 8, 7, 7}), PoolKind::average);
  const Workload windowed =
      make_pool2d_workload(f32({1, 8, 7, 7}), pool(PoolKind::average, {7, 7}, {1, 1}, {0, 0, 0, 0}), true);
  EXPECT_EQ(global.key(), windowed.key());
  EXPECT_DOUBLE_EQ(global.flops(), 8.0 * 49);
  EXPECT_EQ(make_softmax_workload(f32({2, 3}), -1).key(), make_softmax_workload(f32({2, 3}), 1).key());
  const Workload ln = make_layernorm_workload(f32({4, 6}), f32({6}), nullptr, -1, 1e-5);
  EXPECT_EQ(ln.key(), Workload::from_json(ln.to_json()).key());
  EXPECT_EQ(layernorm_row_length(ln), 6);
}

}  // namespace
}  // namespace nee
