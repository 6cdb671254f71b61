#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "bench/comparison.h"
#include "bench/engines/openblas_engine.h"
#include "core/error.h"
#include "core/matmul_workload.h"

namespace nee::bench {
namespace {

// A test double: OpenBLAS's answer with one element nudged well beyond the tolerance.
class PerturbedEngine : public Engine {
 public:
  std::string name() const override { return "perturbed-blas"; }
  void prepare(const Workload& w) override { inner_.prepare(w); }
  void run(const std::vector<const Tensor*>& inputs, Tensor& output) override {
    inner_.run(inputs, output);
    output.data_as<float>()[output.elements() / 2] += 0.01f;
  }

 private:
  OpenBlasEngine inner_{1};
};

// Fails at prepare, as an engine does that cannot handle a workload.
class UnpreparableEngine : public Engine {
 public:
  std::string name() const override { return "unpreparable"; }
  void prepare(const Workload&) override { throw Error("no kernel for this workload"); }
  void run(const std::vector<const Tensor*>&, Tensor&) override { FAIL() << "run after a failed prepare"; }
};

// Prepares, then fails at run, as a kernel does that reports a Halide error.
class FailingRunEngine : public Engine {
 public:
  std::string name() const override { return "failing-run"; }
  void prepare(const Workload&) override {}
  void run(const std::vector<const Tensor*>&, Tensor&) override { throw Error("kernel failed"); }
};

CompareOptions fast_options() {
  CompareOptions o;
  o.repeats = 3;
  o.min_sample_ms = 0.1;
  o.warmup_ms = 0.1;
  return o;
}

TEST(CrossCheck, WrongEngineStopsTheComparisonAndIsNamed) {
  OpenBlasEngine blas(1);
  PerturbedEngine wrong;
  const Workload w = matmul_workload_from_shape("33x17x45");
  try {
    compare_engines("33x17x45", w, {&blas, &wrong}, fast_options());
    FAIL() << "a wrong engine was timed";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("'perturbed-blas'"));
    EXPECT_THAT(e.what(), testing::HasSubstr("no times are reported"));
  }
}

TEST(CrossCheck, AgreeingEnginesAreTimedInEveryRoundAndFailingOnesSkipped) {
  OpenBlasEngine a(1), b(1);
  UnpreparableEngine c;
  FailingRunEngine d;
  const WorkloadComparison r =
      compare_engines("33x17x45", matmul_workload_from_shape("33x17x45"), {&a, &c, &d, &b}, fast_options());
  ASSERT_EQ(r.engines.size(), 2u);
  for (const EngineTiming& t : r.engines) {
    EXPECT_EQ(t.samples_ms.size(), 3u);
    EXPECT_GT(t.ms.median, 0);
    EXPECT_LE(t.ms.p10, t.ms.median);
    EXPECT_LE(t.ms.median, t.ms.p90);
  }
  EXPECT_EQ(r.max_pairwise_difference, 0);  // the same library on the same inputs
  ASSERT_EQ(r.skipped.size(), 2u);
  EXPECT_EQ(r.skipped[0].engine, "unpreparable");
  EXPECT_EQ(r.skipped[1].engine, "failing-run");
  EXPECT_THAT(r.skipped[1].reason, testing::HasSubstr("run failed: kernel failed"));
}

}  // namespace
}  // namespace nee::bench
