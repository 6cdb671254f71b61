// A short tuning run stores every measurement, the default point among them, and a
// second run over the same database measures no schedule twice.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "core/matmul_workload.h"
#include "schedules/schedule_space.h"
#include "temp_dir.h"
#include "tuner/compile/kernel_compiler.h"
#include "tuner/scheduling/tuning_loop.h"

namespace nee {
namespace {

using tuner_test::TempDir;

TEST(TuningLoop, ShortRunStoresRecordsAndNeverRepeatsASchedule) {
  TempDir dir("tune");
  const Workload w = matmul_workload_from_shape("64x64x64");
  const Target target = host_target(TargetKind::cpu);
  TuningDatabase db(dir.file("tuning.db"));
  TuneOptions options;
  options.trials = 4;
  options.baselines = false;  // tests/tuner/model_tuning_test.cpp covers them
  options.strategy = "evolutionary";
  options.build_jobs = 2;
  options.seed = 1;
  options.work_dir = dir.file("work");
  options.runner.repeats = 3;
  options.runner.min_sample_ms = 2;
  options.runner.timeout_seconds = 60;

  const TuneReport first = tune_workload(db, w, target, options);
  EXPECT_EQ(first.measured, 4);
  std::vector<TuningRecord> history = db.history(w, target);
  ASSERT_EQ(history.size(), 4u);
  const ScheduleConfig default_config = make_schedule_space(w, TargetKind::cpu)->default_config();
  int defaults = 0;
  for (const TuningRecord& r : history) {
    if (r.config == default_config) {
      ++defaults;
      EXPECT_EQ(r.strategy, "default");
      EXPECT_EQ(r.result.status, MeasureStatus::ok) << r.result.error;
    }
  }
  EXPECT_EQ(defaults, 1);
  ASSERT_TRUE(first.default_record.has_value());
  const auto best = db.best(w, target);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->result.status, MeasureStatus::ok);
  EXPECT_GT(best->result.median_us, 0);
  ASSERT_TRUE(first.best.has_value());
  EXPECT_EQ(first.best->id, best->id);
  for (const TuningRecord& r : history) {
    if (r.result.status == MeasureStatus::ok) {
      EXPECT_LE(best->ranked_us(), r.ranked_us());
    }
  }

  // Same seed, same database: the search is seeded with what was measured.
  const TuneReport second = tune_workload(db, w, target, options);
  EXPECT_EQ(second.measured, 4);
  history = db.history(w, target);
  ASSERT_EQ(history.size(), 8u);
  std::set<ScheduleConfig> distinct;
  for (const TuningRecord& r : history) {
    EXPECT_TRUE(distinct.insert(r.config).second) << "measured twice: " << r.config.to_string();
    EXPECT_EQ(make_schedule_space(w, TargetKind::cpu)->check(r.config), "") << r.config.to_string();
  }
  std::set<int> trials;
  for (const TuningRecord& r : history) trials.insert(r.trial);
  EXPECT_EQ(trials.size(), 8u);  // trial numbers continue across runs
  // Candidate libraries are scratch: nothing is left behind in the work dir.
  int leftover = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(options.work_dir)) {
    leftover += e.path().extension() == ".so" && e.path().filename() == "kernel.so";
  }
  EXPECT_EQ(leftover, 0);
}

}  // namespace
}  // namespace nee
