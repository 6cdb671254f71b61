// The elementwise kernel, compiled by the Builder into shared libraries (the default
// schedule and two seeded random valid points per program) and called through
// HalideKernel, against compute_reference at awkward and broadcasting shapes; one CPU
// and one OpenCL kernel also go through nee-measure. All kernels are compiled once, in
// one parallel build.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "core/elementwise_workload.h"
#include "core/error.h"
#include "tests/kernels/compiled_kernels.h"
#include "tuner/compile/kernel_compiler.h"

namespace nee {
namespace {

using test::CompiledKernels;

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
      // tanh over [-10, 10] at 4099 points: the vectorizing approximation against std::tanh.
      {"tanh_range", elementwise({{4099}}, {4099}, "mul(x0,10); tanh(t0)")},
      {"large_parallel", elementwise({{4, 64, 129}, {64, 1}}, {4, 64, 129}, "add(x0,x1); relu(t0)")},
      // Round, as QuantizeLinear rounds (quantize_pairs_as_elementwise): ties to even.
      {"round_ties", elementwise({{4099}}, {4099}, "mul(x0,8); round(t0)")},
  };
}

// K = 1 for an elementwise kernel: check_against_reference() allows 2e-6 + 1e-4 * |ref|,
// nee-measure's tolerance.
class ElementwiseKernel : public test::CompiledKernelsTest<ElementwiseKernel> {
 public:
  static constexpr char kWorkDirTag[] = "elementwise";

  static void add_kernels(CompiledKernels& kernels) {
    const Target cpu = host_target(TargetKind::cpu);
    std::mt19937_64 rng(2027);
    for (const auto& [name, w] : cases()) kernels.add_points(name, w, cpu, 2, rng);
    kernels.add_default("opencl/broadcast", cases().at("broadcast"), host_target(TargetKind::opencl));
    // float4 loads and stores by default: rows of 12 against a row vector and a column.
    kernels.add_default("opencl/vectors",
                        elementwise({{2, 8, 12}, {12}, {8, 1}}, {2, 8, 12}, "add(x0,x1); mul(t0,x2); relu(t1)"),
                        host_target(TargetKind::opencl));
  }
};

TEST_F(ElementwiseKernel, GeluAtAnAwkwardShape) { kernels().check_points("gelu_awkward"); }
TEST_F(ElementwiseKernel, BroadcastingInputs) { kernels().check_points("broadcast"); }
TEST_F(ElementwiseKernel, LogSqrtPow) { kernels().check_points("log_sqrt_pow"); }
TEST_F(ElementwiseKernel, ClipLeakyReluExp) { kernels().check_points("clip_leaky_exp"); }
TEST_F(ElementwiseKernel, LargeParallel) { kernels().check_points("large_parallel"); }

// Every point of round_ties on x = k / 16 (x * 8 = k / 2, a tie for every odd k): the
// nearest integer, the even one at a tie, as std::nearbyint gives.
TEST_F(ElementwiseKernel, RoundsTiesToEven) {
  kernels().check_points("round_ties");
  Tensor x(DType::f32, {4099});
  for (int64_t i = 0; i < 4099; ++i) x.data_as<float>()[i] = static_cast<float>(i - 2049) / 16.0f;
  for (const char* point : {"round_ties/default", "round_ties/random0", "round_ties/random1"}) {
    const Tensor y = kernels().run(point, {&x});
    for (int64_t i = 0; i < 4099; ++i) {
      ASSERT_EQ(y.data_as<float>()[i], std::nearbyint(x.data_as<float>()[i] * 8.0f)) << point << " at " << i;
    }
  }
}

TEST_F(ElementwiseKernel, ErfApproximationIsWithin5e7OfStdErf) {
  kernels().check_points("erf_range");
  const auto [out, want] = kernels().run_random("erf_range/default", 5);
  double worst = 0;
  for (int64_t i = 0; i < out.elements(); ++i) {
    worst = std::max(worst, std::fabs(static_cast<double>(out.data_as<float>()[i]) - want.data_as<float>()[i]));
  }
  EXPECT_LT(worst, 5e-7);
  EXPECT_GT(worst, 0);  // the kernel's erf is the approximation, not std::erf
}

// Both branches of the approximation (|x| below and above 0.625) within 4 float ulps.
TEST_F(ElementwiseKernel, TanhApproximationIsWithin4UlpsOfStdTanh) {
  kernels().check_points("tanh_range");
  const auto [out, want] = kernels().run_random("tanh_range/default", 6);
  int small = 0;
  double worst = 0;
  for (int64_t i = 0; i < out.elements(); ++i) {
    const double expected = want.data_as<float>()[i];
    small += std::fabs(expected) < std::tanh(0.625);
    const double ulp = std::ldexp(1.0, std::ilogb(std::max(std::fabs(expected), 1e-30)) - 23);
    worst = std::max(worst, std::fabs(out.data_as<float>()[i] - expected) / ulp);
  }
  EXPECT_LE(worst, 4);
  EXPECT_GT(small, 100);
  EXPECT_LT(small, out.elements() - 100);
}

TEST_F(ElementwiseKernel, CpuKernelVerifiedByNeeMeasure) {
  const MeasureResult r = kernels().measure("log_sqrt_pow/default");
  EXPECT_EQ(to_string(r.status), "ok") << r.error;
  EXPECT_GT(r.median_us, 0);
}

// OpenCL runs only in a process without libHalide: nee-measure, through LocalRunner.
TEST_F(ElementwiseKernel, OpenClKernelsVerifiedByNeeMeasure) {
  EXPECT_EQ(kernels().get("opencl/vectors").candidate.config.at("vector"), 4);
  for (const char* name : {"opencl/broadcast", "opencl/vectors"}) {
    const MeasureResult r = kernels().measure(name);
    EXPECT_EQ(to_string(r.status), "ok") << name << ": " << r.error;
    EXPECT_LT(r.max_abs_error, 1e-4) << name;
  }
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
