// oneDNN's engine against the reference: MatMul on plain operands, and convolutions in
// oneDNN's own layout (inputs reordered in bind_inputs, the output back in finish_output).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <random>

#include "bench/engines/engine_factory.h"
#include "bench/engines/onednn_engine.h"
#include "bench/engines/onednn_verbose.h"
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

TEST(OneDnnVerbose, ExecLineNamesTheKernelThatRan) {
  // Printed by oneDNN 2.6.3 for a 256-cubed matmul on an AMD Zen 4.
  const auto e = parse_onednn_exec_line(
      "onednn_verbose,exec,cpu,matmul,brg:avx512_core,undef,src_f32::blocked:ab:f0 wei_f32::blocked:ab:f0 "
      "dst_f32::blocked:ab:f0,,,256x256:256x256:256x256,8.06421");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->primitive, "matmul");
  EXPECT_EQ(e->implementation, "brg:avx512_core");
  EXPECT_DOUBLE_EQ(e->ms, 8.06421);
  const auto old = parse_onednn_exec_line(
      "dnnl_verbose,exec,cpu,convolution,jit:avx2,forward_inference,src_f32::blocked:aBcd8b:f0,,alg:convolution_direct,"
      "mb1_ic64oc64_ih56oh56kh3sh1dh0ph1_iw56ow56kw3sw1dw0pw1,0.51");
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(old->implementation, "jit:avx2");
  EXPECT_FALSE(parse_onednn_exec_line("onednn_verbose,info,cpu,runtime:OpenMP,nthr:2").has_value());
  EXPECT_FALSE(parse_onednn_exec_line("matmul done").has_value());
  EXPECT_EQ(parse_onednn_isa_line("onednn_verbose,info,cpu,isa:Intel AVX-512 with Intel DL Boost and bfloat16 support"),
            "Intel AVX-512 with Intel DL Boost and bfloat16 support");
  EXPECT_FALSE(parse_onednn_isa_line("onednn_verbose,info,cpu,runtime:OpenMP,nthr:2").has_value());
}

// The first run's verbose line names the kernel oneDNN chose when the primitive was
// made (the provenance's impl_info_str), and stdout is this process's own again after.
TEST(OneDnnVerbose, FirstRunCapturesTheImplementationAndRestoresStdout) {
  struct stat before {}, after {};
  ASSERT_EQ(fstat(STDOUT_FILENO, &before), 0);
  const Workload w = workload_from_shape("64x64x64");
  OneDnnEngine engine(1);
  engine.prepare(w);
  EXPECT_EQ(engine.implementation(), "");
  std::mt19937_64 rng(5);
  const Tensor a = random_input(w.inputs[0], rng), b = random_input(w.inputs[1], rng);
  Tensor out(w.output);
  engine.bind_inputs({&a, &b});
  engine.run({&a, &b}, out);
  ASSERT_EQ(fstat(STDOUT_FILENO, &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);
  EXPECT_EQ(before.st_dev, after.st_dev);

  const std::string impl = engine.implementation();
  ASSERT_THAT(impl, testing::HasSubstr(" (oneDNN verbose"));
  const std::string kernel = impl.substr(0, impl.find(' '));
  EXPECT_THAT(engine.provenance(), testing::HasSubstr("dnnl::matmul (" + kernel + ")"));
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
