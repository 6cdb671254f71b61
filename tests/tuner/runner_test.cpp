// LocalRunner: whatever happens to the measuring process becomes the candidate's status.
// And a kernel that computes a wrong answer is caught by nee-measure and never becomes
// the database's best.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "core/error.h"
#include "core/matmul_workload.h"
#include "schedules/schedule_space.h"
#include "temp_dir.h"
#include "tuner/compile/builder.h"
#include "tuner/compile/kernel_compiler.h"
#include "tuner/measure/measurement.h"
#include "tuner/runners/local_runner.h"
#include "tuning-db/tuning_database.h"

namespace nee {
namespace {

using tuner_test::TempDir;

Workload plain(int64_t m, int64_t k, int64_t n, bool relu = false) {
  MatmulAttrs a;
  a.relu = relu;
  return make_matmul_workload({DType::f32, {m, k}}, {DType::f32, {k, n}}, nullptr, a);
}

class FakeMeasure : public ::testing::Test {
 protected:
  FakeMeasure() : dir_("runner") {
    std::filesystem::create_directories(dir_.file("candidate"));
    build_.artifact = dir_.file("candidate/kernel.so");
    build_.symbol = "nee_fake";
    candidate_.workload = plain(4, 4, 4);
    candidate_.target = host_target(TargetKind::cpu);
    candidate_.config = make_schedule_space(candidate_.workload, TargetKind::cpu)->default_config();
  }
  MeasureResult measure_with(const std::string& script_body, double timeout_s = 10) {
    RunnerOptions o;
    o.timeout_seconds = timeout_s;
    LocalRunner runner(o, dir_.script("fake-measure", script_body), /*shared_child=*/false);
    return runner.measure(build_, candidate_, 1);
  }
  TempDir dir_;
  BuildResult build_;
  Candidate candidate_;
};

TEST_F(FakeMeasure, HangIsTimeout) {
  const auto start = std::chrono::steady_clock::now();
  const MeasureResult r = measure_with("sleep 30", 1);
  EXPECT_EQ(r.status, MeasureStatus::timeout) << r.error;
  EXPECT_NE(r.error.find("exceeded"), std::string::npos) << r.error;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10);
}

TEST_F(FakeMeasure, SegfaultIsCrash) {
  const MeasureResult r = measure_with("kill -SEGV $$");
  EXPECT_EQ(r.status, MeasureStatus::crash) << r.error;
  EXPECT_NE(r.error.find("crashed"), std::string::npos) << r.error;
}

TEST_F(FakeMeasure, GarbageIsRuntimeError) {
  const MeasureResult r = measure_with("echo 'this is not a result'");
  EXPECT_EQ(r.status, MeasureStatus::runtime_error) << r.error;
  EXPECT_NE(r.error.find("this is not a result"), std::string::npos) << r.error;
}

TEST_F(FakeMeasure, MalformedJsonIsRuntimeError) {
  const MeasureResult r = measure_with("echo '{\"status\": '");
  EXPECT_EQ(r.status, MeasureStatus::runtime_error) << r.error;
}

TEST_F(FakeMeasure, ArgumentsAndWorkloadFileArePassed) {
  // The fake program reports ok only when it got the library, symbol and workload file.
  const MeasureResult r = measure_with(
      "case \"$*\" in *--library*kernel.so*--symbol\\ nee_fake*--workload*) ;; *) echo \"bad args: $*\"; exit 1;; esac\n"
      "w=$(echo \"$*\" | sed 's/.*--workload \\([^ ]*\\).*/\\1/')\n"
      "grep -q matmul \"$w\" || { echo 'no workload'; exit 1; }\n"
      "echo 'log line'\n"
      "echo '{\"status\":\"ok\",\"median_us\":12.5,\"min_us\":12,\"stddev_us\":0.1,\"repeats\":7,"
      "\"max_abs_error\":0,\"error\":\"\"}'");
  EXPECT_EQ(r.status, MeasureStatus::ok) << r.error;
  EXPECT_DOUBLE_EQ(r.median_us, 12.5);
}

TEST_F(FakeMeasure, BuildErrorIsNotMeasured) {
  build_.error = "Halide said no";
  const MeasureResult r = measure_with("echo should not run; exit 1");
  EXPECT_EQ(r.status, MeasureStatus::build_error);
  EXPECT_EQ(r.error, "Halide said no");
}

TEST(LocalRunner, MissingProgramIsRefused) {
  EXPECT_THROW(LocalRunner(RunnerOptions{}, "/nonexistent/nee-measure"), Error);
}

// A kernel built for relu=true, measured as the workload without relu: same signature,
// wrong values (random inputs in [-1, 1] give negative products).
TEST(WrongResult, IsReportedAndNeverBest) {
  TempDir dir("wrong");
  const Target target = host_target(TargetKind::cpu);
  const Workload built_for = plain(16, 8, 12, /*relu=*/true);
  const Workload claimed = plain(16, 8, 12, /*relu=*/false);
  ASSERT_NE(built_for.key(), claimed.key());
  const ScheduleConfig config = make_schedule_space(claimed, TargetKind::cpu)->default_config();
  ASSERT_EQ(config, make_schedule_space(built_for, TargetKind::cpu)->default_config());

  Builder builder(dir.file("work"), 1, 120);
  const std::vector<BuildResult> builds = builder.build({Candidate{built_for, target, config, "default", 0, {}}});
  ASSERT_TRUE(builds[0].ok()) << builds[0].error;

  RunnerOptions options;
  options.repeats = 3;
  options.min_sample_ms = 1;
  options.timeout_seconds = 60;
  LocalRunner runner(options, NEE_MEASURE_PATH);
  // Control: measured as what it is, the kernel is right.
  const Candidate honest{built_for, target, config, "default", 0, {}};
  const MeasureResult right = runner.measure(builds[0], honest, 3);
  ASSERT_EQ(right.status, MeasureStatus::ok) << right.error;

  const Candidate liar{claimed, target, config, "default", 0, {}};
  const MeasureResult wrong = runner.measure(builds[0], liar, 3);
  EXPECT_EQ(wrong.status, MeasureStatus::wrong_result) << wrong.error;
  EXPECT_GT(wrong.max_abs_error, 1e-3);
  EXPECT_NE(wrong.error.find("differs from the reference"), std::string::npos) << wrong.error;
  EXPECT_EQ(wrong.median_us, 0);  // never timed

  // As the tuning loop does: every result is stored; best() must skip the wrong one,
  // though its median (0: never timed) is the smallest.
  TuningDatabase db(dir.file("tuning.db"));
  const auto record = [&](const MeasureResult& r, int trial) {
    TuningRecord rec;
    rec.workload = claimed;
    rec.target = target;
    rec.config = config;
    rec.config.knobs["unroll_k"] = trial + 1;  // distinct points
    rec.result = r;
    rec.strategy = "random";
    rec.trial = trial;
    rec.halide_version = halide_version();
    return db.add_record(rec);
  };
  const int64_t wrong_id = record(wrong, 0);
  EXPECT_FALSE(db.best(claimed, target).has_value());
  MeasureResult slow_ok = right;
  slow_ok.median_us = right.median_us + 1000;
  const int64_t ok_id = record(slow_ok, 1);
  const auto best = db.best(claimed, target);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->id, ok_id);
  EXPECT_NE(best->id, wrong_id);
  EXPECT_EQ(best->result.status, MeasureStatus::ok);
  for (const TuningRecord& r : db.top_k(claimed, target, 10)) EXPECT_NE(r.id, wrong_id);
  EXPECT_EQ(db.history(claimed, target).size(), 2u);

  // Timed cold (buffers evicted before each call), the check still comes first.
  options.cache = CacheState::cold;
  LocalRunner cold_runner(options, NEE_MEASURE_PATH);
  const MeasureResult cold = cold_runner.measure(builds[0], honest, 3);
  ASSERT_EQ(cold.status, MeasureStatus::ok) << cold.error;
  EXPECT_GT(cold.median_us, 0);
  EXPECT_EQ(cold.repeats, 3);
  EXPECT_EQ(cold_runner.measure(builds[0], liar, 3).status, MeasureStatus::wrong_result);

  // Against a best it cannot reach (a tenth of the kernel's fastest sample: a margin no
  // load on the machine running the tests closes), timing stops after two samples;
  // checked first all the same.
  const double unreachable_us = right.min_us / 10;
  const MeasureResult losing = runner.measure(builds[0], honest, 3, unreachable_us);
  ASSERT_EQ(losing.status, MeasureStatus::ok) << losing.error;
  EXPECT_EQ(losing.repeats, 2);
  EXPECT_EQ(runner.measure(builds[0], liar, 3, unreachable_us).status, MeasureStatus::wrong_result);
}

TEST(TimingIsEnough, AfterTwoSamplesThatCannotWinOrThreeThatAgree) {
  EXPECT_FALSE(timing_is_enough({}, 0));
  EXPECT_FALSE(timing_is_enough({100}, 10));
  // Losing: the faster of the first two samples above 1.2x the best.
  EXPECT_TRUE(timing_is_enough({130, 125}, 100));
  EXPECT_FALSE(timing_is_enough({130, 119}, 100));
  EXPECT_FALSE(timing_is_enough({130, 125}, 0));  // no best yet
  // Settled: three or more within 2% of the fastest.
  EXPECT_TRUE(timing_is_enough({100, 101.5, 102}, 0));
  EXPECT_FALSE(timing_is_enough({100, 101, 102.5}, 0));
  EXPECT_FALSE(timing_is_enough({100, 101}, 0));
  EXPECT_FALSE(timing_is_enough({110, 101, 100, 101.9, 101}, 0));  // one outlier keeps it going
  EXPECT_TRUE(timing_is_enough({101, 100, 101.9}, 95));
}

TEST(RunnerOptionsJson, CacheStateTravelsAndOldBatchFlagsRead) {
  RunnerOptions o;
  o.cache = CacheState::cold;
  EXPECT_EQ(RunnerOptions::from_json(o.to_json()).cache, CacheState::cold);
  const std::vector<std::string> args = o.measure_args();
  const auto at = std::find(args.begin(), args.end(), "--cache");
  ASSERT_NE(at, args.end());
  ASSERT_NE(at + 1, args.end());
  EXPECT_EQ(*(at + 1), "cold");
  // A batch manifest packed before cache states carried flush_cache instead.
  nlohmann::json old = RunnerOptions{}.to_json();
  old.erase("cache");
  old["flush_cache"] = false;
  EXPECT_EQ(RunnerOptions::from_json(old).cache, CacheState::warm);
  old["flush_cache"] = true;
  EXPECT_EQ(RunnerOptions::from_json(old).cache, CacheState::cold);
  old.erase("flush_cache");
  EXPECT_ANY_THROW(RunnerOptions::from_json(old));
}

}  // namespace
}  // namespace nee
