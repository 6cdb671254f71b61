// The physical ceiling that imported times are held to: generous enough for every
// honest measurement (DESIGN.md's figures), far below a poisoned one.
#include "tuning-db/speed_ceiling.h"

#include <gtest/gtest.h>

#include "core/matmul_workload.h"
#include "core/strided_copy_workload.h"
#include "core/workload_speed.h"
#include "tests/tuning-db/test_support.h"

namespace nee {
namespace {

Target cpu(const std::string& halide, int cores) {
  Target t = testing_support::make_target();
  t.halide = halide;
  t.device.cores = cores;
  return t;
}

const char* const kAvx2 = "x86-64-linux-avx-avx2-f16c-fma-sse41";
const char* const kAvx512 = "x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41";

TEST(SpeedCeiling, CpuBoundIsCoresTimesFmaLanesAtSixGigahertz) {
  const Workload m = matmul_workload_from_shape("1024x1024x1024");
  // cores x f32 lanes x 2 FMA units x 2 flops x 6 GHz
  EXPECT_DOUBLE_EQ(speed_ceiling(m, cpu(kAvx2, 2)), 2 * 8 * 2 * 2 * 6.0);
  EXPECT_DOUBLE_EQ(speed_ceiling(m, cpu(kAvx512, 2)), 2 * 16 * 2 * 2 * 6.0);
  EXPECT_DOUBLE_EQ(speed_ceiling(m, cpu("x86-64-linux-sse41", 4)), 4 * 4 * 2 * 2 * 6.0);
  EXPECT_DOUBLE_EQ(speed_ceiling(m, cpu("arm-64-linux", 4)), 4 * 4 * 4 * 2 * 6.0);
  EXPECT_DOUBLE_EQ(speed_ceiling(m, cpu(kAvx2, 0)), 1024 * 8 * 2 * 2 * 6.0) << "unknown core count";
  // Data movers: two loads and a store of a vector per cycle.
  const Workload copy = strided_copy_workload_from_shape("128x2304,starts=0x768,ends=128x1536");
  EXPECT_DOUBLE_EQ(speed_ceiling(copy, cpu(kAvx2, 2)), 2 * 8 * 4 * 3 * 6.0);
}

TEST(SpeedCeiling, HonestFiguresPassAndAPoisonedOneIsNamed) {
  const Workload m = matmul_workload_from_shape("1024x1024x1024");
  const Target two_core_avx2 = cpu(kAvx2, 2);
  // The AVX2 FMA peak measured on two cores, about 270 GFLOP/s, and OpenBLAS's 135.
  for (const double gflops : {135.0, 270.0}) {
    const double us = m.flops() / gflops / 1e3;
    EXPECT_EQ(impossible_speed(m, two_core_avx2, us), "") << gflops;
  }
  // The poisoned record: 262,144 GFLOP/s.
  const double poisoned_us = m.flops() / 262144.0 / 1e3;
  const std::string why = impossible_speed(m, two_core_avx2, poisoned_us);
  EXPECT_NE(why.find("262144 GFLOP/s, above the 384 GFLOP/s this target can reach (2 cores)"), std::string::npos)
      << why;
}

TEST(SpeedCeiling, GpuTargetsHaveAFixedGenerousBound) {
  Target gpu = cpu("x86-64-linux-cuda-cuda_capability_80", 2);
  const Workload m = matmul_workload_from_shape("4096x4096x4096");
  EXPECT_DOUBLE_EQ(speed_ceiling(m, gpu), 1e6);
  // An H200's f32 peak, about 67 TFLOP/s, passes.
  EXPECT_EQ(impossible_speed(m, gpu, m.flops() / 67e3 / 1e3), "");
}

}  // namespace
}  // namespace nee
