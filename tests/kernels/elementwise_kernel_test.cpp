// The elementwise kernel, compiled by the Builder into shared libraries (the default
// schedule and two seeded random valid points per program) and called through
// HalideKernel, against compute_reference at awkward and broadcasting shapes; one CPU
// and one OpenCL kernel also go through nee-measure. All kernels are compiled once, in
// one parallel build.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <random>

#include "core/elementwise_workload.h"
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

Workload elementwise(const std::vector<std::vector<int64_t>>& inputs, const std::vector<int64_t>& output,
                     const std::string& program) {
  std::vector<TensorType> types;
  for (const auto& s : inputs) types.push_back({DType::f32, s});
  return make_elementwise_workload(types, {DType::f32, output}, ElementwiseProgram::parse(program));
}

const char* kGelu = "div(x0,1.4142135); erf(t0); add(t1,1); mul(x0,t2); mul(t3,0.5)";

std::map<std::string, Workload> cases() {
  return {
      {"gelu_awkward", elementwise({{3, 5, 7}}, {3, 5, 7}, kGelu)},
      // Every kind of broadcast: a size-1 dim inside, a lower rank, a trailing 1.
      {"broadcast", elementwise({{2, 1, 9}, {3, 1}, {9}}, {2, 3, 9},
                                "mul(x0,x1); add(t0,x2); tanh(t1); sigmoid(x1); sub(t2,t3)")},
      {"log_sqrt_pow", elementwise({{13, 11}, {11}}, {13, 11},
                                   "abs(x0); add(t0,1); log(t1); sqrt(t1); pow(x1,2); mul(t2,t4); "
                                   "pow(t3,1.5); div(t5,t6); reciprocal(t1); add(t7,t8)")},
      {"clip_leaky_exp", elementwise({{1, 4, 3, 3}}, {1, 4, 3, 3},
                                     "leaky_relu(x0,0.1); max(t0,-0.05); min(t1,0.3); exp(x0); neg(t3); "
                                     "relu(x0); mul(t2,t4); add(t6,t5)")},
      // erf over [-6, 6] at 4099 points: the approximation against std::erf.
      {"erf_range", elementwise({{4099}}, {4099}, "mul(x0,6); erf(t0)")},
      {"large_parallel", elementwise({{4, 64, 129}, {64, 1}}, {4, 64, 129}, "add(x0,x1); relu(t0)")},
  };
}

struct Built {
  Candidate candidate;
  BuildResult build;
};

class ElementwiseKernel : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    built_ = new std::map<std::string, Built>();
    work_dir_ = make_temp_dir("elementwise");
    const Target cpu = host_target(TargetKind::cpu);
    std::vector<std::pair<std::string, Candidate>> wanted;
    std::mt19937_64 rng(2027);
    for (const auto& [name, w] : cases()) {
      const auto space = make_schedule_space(w, TargetKind::cpu);
      const ScheduleConfig def = space->default_config();
      wanted.push_back({name + "/default", Candidate{w, cpu, def, "default", 0, {}}});
      for (int i = 0; i < 2; ++i) {
        ScheduleConfig point = space->random_config(rng);
        for (int tries = 0; tries < 100 && point == def; ++tries) point = space->random_config(rng);
        wanted.push_back({name + "/random" + std::to_string(i), Candidate{w, cpu, point, "random", 0, {}}});
      }
    }
    const Workload broadcast = cases().at("broadcast");
    wanted.push_back({"opencl/broadcast",
                      Candidate{broadcast, host_target(TargetKind::opencl),
                                make_schedule_space(broadcast, TargetKind::opencl)->default_config(), "default", 0,
                                {}}});
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

  // Runs a built kernel on random inputs (seeded) and returns its output and the
  // reference's.
  static std::pair<Tensor, Tensor> run(const std::string& name, uint64_t seed) {
    const Built& b = get(name);
    const Workload& w = b.candidate.workload;
    SharedLibrary lib(b.build.artifact);
    HalideKernel kernel(lib, b.build.symbol);
    kernel.check_signature(w.inputs, w.output);
    std::vector<Tensor> inputs;
    std::vector<const Tensor*> ptrs;
    for (size_t i = 0; i < w.inputs.size(); ++i) inputs.push_back(random_tensor(w.inputs[i], seed * 10 + i));
    for (const Tensor& t : inputs) ptrs.push_back(&t);
    Tensor out(w.output), want(w.output);
    std::fill(out.data_as<float>(), out.data_as<float>() + out.elements(), NAN);
    kernel.run(ptrs, out);
    compute_reference(w, ptrs, want);
    return {std::move(out), std::move(want)};
  }

  // Builds ok, loads, checks the signature, and compares with compute_reference on two
  // sets of random inputs with nee-measure's tolerance (K = 1).
  static void check_against_reference(const std::string& name) {
    const Built& b = get(name);
    ASSERT_TRUE(b.build.ok()) << name << " [" << b.candidate.config.to_string() << "]: " << b.build.error;
    double sum = 0;
    for (uint64_t seed = 100; seed < 102; ++seed) {
      const auto [out, want] = run(name, seed);
      int bad = 0;
      for (int64_t i = 0; i < out.elements() && bad < 5; ++i) {
        const float g = out.data_as<float>()[i], r = want.data_as<float>()[i];
        if (!(std::fabs(g - r) <= 2e-6 + 1e-4 * std::fabs(r))) {
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

std::string ElementwiseKernel::work_dir_;
std::map<std::string, Built>* ElementwiseKernel::built_ = nullptr;

TEST_F(ElementwiseKernel, GeluAtAnAwkwardShape) { check_all_points("gelu_awkward"); }
TEST_F(ElementwiseKernel, BroadcastingInputs) { check_all_points("broadcast"); }
TEST_F(ElementwiseKernel, LogSqrtPow) { check_all_points("log_sqrt_pow"); }
TEST_F(ElementwiseKernel, ClipLeakyReluExp) { check_all_points("clip_leaky_exp"); }
TEST_F(ElementwiseKernel, LargeParallel) { check_all_points("large_parallel"); }

TEST_F(ElementwiseKernel, ErfApproximationIsWithin5e7OfStdErf) {
  check_all_points("erf_range");
  const auto [out, want] = run("erf_range/default", 5);
  double worst = 0;
  for (int64_t i = 0; i < out.elements(); ++i) {
    worst = std::max(worst, std::fabs(static_cast<double>(out.data_as<float>()[i]) - want.data_as<float>()[i]));
  }
  EXPECT_LT(worst, 5e-7);
  EXPECT_GT(worst, 0);  // the kernel's erf is the approximation, not std::erf
}

TEST_F(ElementwiseKernel, CpuKernelVerifiedByNeeMeasure) {
  const MeasureResult r = measure("log_sqrt_pow/default");
  EXPECT_EQ(to_string(r.status), "ok") << r.error;
  EXPECT_GT(r.median_us, 0);
}

// OpenCL runs only in a process without libHalide: nee-measure, through LocalRunner.
TEST_F(ElementwiseKernel, OpenClKernelVerifiedByNeeMeasure) {
  const MeasureResult r = measure("opencl/broadcast");
  EXPECT_EQ(to_string(r.status), "ok") << r.error;
  EXPECT_LT(r.max_abs_error, 1e-4);
}

TEST(ElementwiseProgram, TextRoundTripsAndIsCanonical) {
  const ElementwiseProgram p = ElementwiseProgram::parse(" div( x0 , 1.41421354 );erf(t0); add(t1,1.0)");
  EXPECT_EQ(p.to_string(), "div(x0,1.4142135); erf(t0); add(t1,1)");
  EXPECT_EQ(ElementwiseProgram::parse(p.to_string()).to_string(), p.to_string());
  EXPECT_EQ(p.input_count(), 1);
  std::vector<float> temps;
  const float x = 0.7f;
  EXPECT_FLOAT_EQ(p.evaluate(&x, temps), 1.0f + std::erf(0.7f / 1.4142135f));
}

TEST(ElementwiseProgram, BadProgramsAreRefusedByName) {
  const auto message = [](const std::string& text, int inputs) {
    try {
      ElementwiseProgram::parse(text).validate(inputs);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("cosh(x0)", 1).find("unknown elementwise op 'cosh'"), std::string::npos);
  EXPECT_NE(message("add(x0)", 1).find("takes 2 operands"), std::string::npos);
  EXPECT_NE(message("exp(t0)", 1).find("not computed before"), std::string::npos);
  EXPECT_NE(message("exp(x3)", 2).find("reads input x3"), std::string::npos);
  EXPECT_NE(message("exp(x0", 1).find("malformed"), std::string::npos);
  EXPECT_NE(message("add(x0,nan)", 1).find("bad operand"), std::string::npos);
}

TEST(ElementwiseWorkload, ValidatesShapesAndCountsFlops) {
  const Workload w = elementwise({{2, 1, 9}, {3, 1}}, {2, 3, 9}, "mul(x0,x1); exp(t0)");
  EXPECT_EQ(w.key(), R"k(elementwise(f32[2,1,9],f32[3,1])->f32[2,3,9]{"program":"mul(x0,x1); exp(t0)"})k");
  EXPECT_DOUBLE_EQ(w.flops(), 2.0 * 54);
  EXPECT_EQ(Workload::from_json(w.to_json()).key(), w.key());
  EXPECT_THROW(elementwise({{4}}, {3}, "exp(x0)"), Error);               // does not broadcast
  EXPECT_THROW(elementwise({{3}, {3}}, {3}, "exp(x0)"), Error);          // x1 unused
  EXPECT_THROW(elementwise({{1}}, {}, "exp(x0)"), Error);                // scalar output
}

}  // namespace
}  // namespace nee
