// The conv2d kernel, compiled by the Builder into shared libraries (the default schedule
// and two seeded random valid points per shape) and called through HalideKernel, against
// compute_reference at awkward shapes; one CPU and one OpenCL kernel also go through
// nee-measure. All kernels are compiled once, in one parallel build.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <random>

#include "core/conv_workload.h"
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

std::string make_temp_dir(const std::string& tag) {
  std::string pattern = ::testing::TempDir() + "nee-" + tag + "-XXXXXX";
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

struct ConvCase {
  std::vector<int64_t> x, w;
  Conv2dAttrs attrs;
  bool bias = false, residual = false;
};

Workload workload_of_case(const ConvCase& c) {
  const TensorType x{DType::f32, c.x}, w{DType::f32, c.w};
  const TensorType bias{DType::f32, {c.w[0]}};
  // The residual has the output's shape: build once without it to learn that shape.
  const Workload plain = make_conv2d_workload(x, w, nullptr, nullptr, c.attrs);
  const TensorType residual = plain.output;
  return make_conv2d_workload(x, w, c.bias ? &bias : nullptr, c.residual ? &residual : nullptr, c.attrs);
}

std::map<std::string, ConvCase> cases() {
  std::map<std::string, ConvCase> all;
  Conv2dAttrs pad1;
  pad1.pads = {1, 1, 1, 1};
  all["3x3_pad1"] = {{1, 3, 7, 9}, {4, 3, 3, 3}, pad1, true, false};
  Conv2dAttrs stride2 = pad1;
  stride2.strides = {2, 2};
  all["stride2"] = {{1, 3, 7, 9}, {5, 3, 3, 3}, stride2, false, false};
  Conv2dAttrs dilation2;
  dilation2.dilations = {2, 2};
  dilation2.pads = {2, 1, 0, 2};  // asymmetric
  all["dilation2_asymmetric_pads"] = {{1, 4, 9, 11}, {3, 4, 3, 3}, dilation2, true, false};
  Conv2dAttrs depthwise = pad1;
  depthwise.group = 6;
  all["depthwise"] = {{2, 6, 8, 10}, {6, 1, 3, 3}, depthwise, true, false};
  Conv2dAttrs grouped = pad1;
  grouped.group = 2;
  all["group2"] = {{1, 4, 6, 6}, {6, 2, 3, 3}, grouped, false, false};
  all["pointwise"] = {{1, 16, 5, 7}, {8, 16, 1, 1}, Conv2dAttrs{}, true, false};
  Conv2dAttrs relu = pad1;
  relu.activation = ConvActivation::relu;
  all["residual_relu"] = {{1, 3, 7, 9}, {4, 3, 3, 3}, relu, true, true};
  Conv2dAttrs clip = pad1;
  clip.activation = ConvActivation::clip;
  clip.clip_min = -0.3;
  clip.clip_max = 0.4;
  all["clip"] = {{1, 3, 7, 9}, {4, 3, 3, 3}, clip, false, false};
  Conv2dAttrs silu = pad1;
  silu.activation = ConvActivation::silu;
  all["bias_silu"] = {{1, 3, 7, 9}, {4, 3, 3, 3}, silu, true, false};
  Conv2dAttrs gelu = pad1;
  gelu.activation = ConvActivation::gelu;
  all["residual_gelu"] = {{1, 3, 6, 5}, {3, 3, 3, 3}, gelu, false, true};
  return all;
}

struct Built {
  Candidate candidate;
  BuildResult build;
};

class Conv2dKernel : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    built_ = new std::map<std::string, Built>();
    work_dir_ = make_temp_dir("conv2d");
    const Target cpu = host_target(TargetKind::cpu);
    std::vector<std::pair<std::string, Candidate>> wanted;
    std::mt19937_64 rng(2026);
    for (const auto& [name, c] : cases()) {
      const Workload w = workload_of_case(c);
      const auto space = make_schedule_space(w, TargetKind::cpu);
      const ScheduleConfig def = space->default_config();
      wanted.push_back({name + "/default", Candidate{w, cpu, def, "default", 0, {}}});
      for (int i = 0; i < 2; ++i) {
        ScheduleConfig point = space->random_config(rng);
        for (int tries = 0; tries < 100 && point == def; ++tries) point = space->random_config(rng);
        wanted.push_back({name + "/random" + std::to_string(i), Candidate{w, cpu, point, "random", 0, {}}});
      }
    }
    const Workload small = workload_of_case(cases().at("residual_relu"));
    wanted.push_back({"opencl/residual_relu",
                      Candidate{small, host_target(TargetKind::opencl),
                                make_schedule_space(small, TargetKind::opencl)->default_config(), "default", 0, {}}});
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
    const int64_t k = conv2d_reduction_length(w);
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

std::string Conv2dKernel::work_dir_;
std::map<std::string, Built>* Conv2dKernel::built_ = nullptr;

TEST_F(Conv2dKernel, ThreeByThreePad1) { check_all_points("3x3_pad1"); }
TEST_F(Conv2dKernel, Stride2) { check_all_points("stride2"); }
TEST_F(Conv2dKernel, Dilation2AsymmetricPads) { check_all_points("dilation2_asymmetric_pads"); }
TEST_F(Conv2dKernel, Depthwise) { check_all_points("depthwise"); }
TEST_F(Conv2dKernel, Group2) { check_all_points("group2"); }
TEST_F(Conv2dKernel, Pointwise) { check_all_points("pointwise"); }
TEST_F(Conv2dKernel, ResidualRelu) { check_all_points("residual_relu"); }
TEST_F(Conv2dKernel, Clip) { check_all_points("clip"); }
TEST_F(Conv2dKernel, BiasSilu) { check_all_points("bias_silu"); }
TEST_F(Conv2dKernel, ResidualGelu) { check_all_points("residual_gelu"); }

TEST_F(Conv2dKernel, OutputShapes) {
  EXPECT_EQ(get("stride2/default").candidate.workload.output.shape, (std::vector<int64_t>{1, 5, 4, 5}));
  EXPECT_EQ(get("dilation2_asymmetric_pads/default").candidate.workload.output.shape,
            (std::vector<int64_t>{1, 3, 7, 10}));
}

TEST_F(Conv2dKernel, CpuKernelVerifiedByNeeMeasure) {
  const MeasureResult r = measure("residual_relu/default");
  EXPECT_EQ(to_string(r.status), "ok") << r.error;
  EXPECT_GT(r.median_us, 0);
}

// OpenCL runs only in a process without libHalide: nee-measure, through LocalRunner.
TEST_F(Conv2dKernel, OpenClKernelVerifiedByNeeMeasure) {
  const MeasureResult r = measure("opencl/residual_relu");
  EXPECT_EQ(to_string(r.status), "ok") << r.error;
  EXPECT_LT(r.max_abs_error, 1e-3);
}

TEST(Conv2dWorkload, ValidatesShapesAndParsesTheCommandLine) {
  Conv2dAttrs a;
  EXPECT_THROW(make_conv2d_workload({DType::f32, {1, 3, 5, 5}}, {DType::f32, {4, 2, 3, 3}}, nullptr, nullptr, a),
               Error);
  const TensorType bad_bias{DType::f32, {3}};
  EXPECT_THROW(make_conv2d_workload({DType::f32, {1, 3, 5, 5}}, {DType::f32, {4, 3, 3, 3}}, &bad_bias, nullptr, a),
               Error);
  EXPECT_THROW(make_conv2d_workload({DType::f32, {1, 3, 2, 2}}, {DType::f32, {4, 3, 3, 3}}, nullptr, nullptr, a),
               Error);
  const Workload w = conv2d_workload_from_shape("1x64x56x56,64x3x3,s1,p1");
  EXPECT_EQ(w.output.shape, (std::vector<int64_t>{1, 64, 56, 56}));
  EXPECT_DOUBLE_EQ(w.flops(), 2.0 * 64 * 56 * 56 * 64 * 9);
  EXPECT_EQ(w.key(), Workload::from_json(w.to_json()).key());
  EXPECT_EQ(conv2d_workload_from_shape("1x32x8x8,32x3x3,s2,p1,g32").inputs[1].shape,
            (std::vector<int64_t>{32, 1, 3, 3}));
  EXPECT_THROW(conv2d_workload_from_shape("1x64x56x56,64x3x3,q1"), Error);
}

}  // namespace
}  // namespace nee
