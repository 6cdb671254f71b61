// Tuning with real builds and measurements on tiny shapes: the autoscheduler baselines
// are verified, stored with their provenance and measured once; a model's rounds keep
// each workload's state, seed later workloads from earlier ones, and never measure a
// schedule twice, within a run or across runs; the model's estimated time is reported
// as a convergence curve.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "core/conv2d_workload.h"
#include "core/matmul_workload.h"
#include "schedules/schedule_space.h"
#include "temp_dir.h"
#include "tuner/compile/autoscheduler_config.h"
#include "tuner/compile/kernel_compiler.h"
#include "tuner/scheduling/model_tuning.h"
#include "tuner/scheduling/tuning_loop.h"

namespace nee {
namespace {

using tuner_test::TempDir;
namespace fs = std::filesystem;

TuneOptions quick_options(const TempDir& dir) {
  TuneOptions options;
  options.strategy = "evolutionary";
  options.build_jobs = 2;
  options.seed = 3;
  options.work_dir = dir.file("work");
  options.runner.repeats = 3;
  options.runner.min_sample_ms = 2;
  options.runner.timeout_seconds = 60;
  return options;
}

void expect_no_schedule_twice(const TuningDatabase& db, const Workload& w, const Target& t) {
  std::set<ScheduleConfig> distinct;
  for (const TuningRecord& r : db.history(w, t)) {
    EXPECT_TRUE(distinct.insert(r.config).second) << "measured twice: " << r.config.to_string();
  }
}

void expect_baselines_stored(const Workload& w) {
  TempDir dir("baselines");
  const Target target = host_target(TargetKind::cpu);
  TuningDatabase db(dir.file("tuning.db"));
  TuneOptions options = quick_options(dir);
  options.trials = 1;  // the default point
  const TuneReport report = tune_workload(db, w, target, options);
  EXPECT_EQ(report.measured, 1) << "baselines are not trials";
  const std::vector<TuningRecord> history = db.history(w, target);
  ASSERT_EQ(history.size(), 3u);
  for (const std::string& name : autoscheduler_names()) {
    const auto it = std::find_if(history.begin(), history.end(),
                                 [&](const TuningRecord& r) { return r.config == autoscheduler_config(name); });
    ASSERT_NE(it, history.end()) << name;
    EXPECT_EQ(it->strategy, autoscheduler_strategy(name));
    // Verified on fresh random inputs like every candidate before it was timed.
    EXPECT_EQ(it->result.status, MeasureStatus::ok) << name << ": " << it->result.error;
    EXPECT_GT(it->result.median_us, 0);
    ASSERT_TRUE(report.baselines.count(name)) << name;
    EXPECT_EQ(report.baselines.at(name).id, it->id);
  }
  // best() is the truly fastest correct record, baseline or not.
  const std::optional<TuningRecord> best = db.best(w, target);
  ASSERT_TRUE(best);
  for (const TuningRecord& r : history) EXPECT_LE(best->ranked_us(), r.ranked_us());
  EXPECT_EQ(report.best->id, best->id);

  // A second run measures one new point and no baseline again.
  const TuneReport again = tune_workload(db, w, target, options);
  EXPECT_EQ(again.measured, 1);
  EXPECT_EQ(db.history(w, target).size(), 4u);
  EXPECT_EQ(again.baselines.size(), 2u) << "known from the database";
  expect_no_schedule_twice(db, w, target);
}

TEST(Baselines, MatmulBaselinesAreStoredWithProvenance) {
  expect_baselines_stored(matmul_workload_from_shape("24x40x32"));
}

TEST(Baselines, Conv2dBaselinesAreStoredWithProvenance) {
  expect_baselines_stored(conv2d_workload_from_shape("1x4x10x12,6x3x3,p1"));
}

TEST(Baselines, WinogradConv2dBaselinesAreStoredWithProvenance) {
  const Workload w = conv2d_runtime_layout(conv2d_workload_from_shape("1x16x14x14,16x3x3,p1"), true, true);
  ASSERT_EQ(conv2d_attrs(w).winograd_tile, 2);
  expect_baselines_stored(w);
}

TEST(ModelTuning, RoundsResumeWithoutMeasuringAnythingTwice) {
  TempDir dir("model");
  const Target target = host_target(TargetKind::cpu);
  TuningDatabase db(dir.file("tuning.db"));
  TuneOptions options = quick_options(dir);
  options.trials = 4;
  options.batch = 2;
  options.baselines = false;
  ModelTuneOptions model_options;
  model_options.total_trials = 6;
  model_options.scheduler.early_stop_threshold = 0;
  model_options.scheduler.epsilon = 0;
  // Near each other (K and M 2x apart): the second is seeded from the first's records.
  // The first counts 30 times, so its search rounds come first whatever the two defaults
  // measure (CI once ran the second's search first, with only the first's default point to
  // seed from, and it mapped onto the second's own default).
  const std::vector<Workload> workloads = {matmul_workload_from_shape("32x32x32"),
                                           matmul_workload_from_shape("16x64x32")};
  const std::vector<int> counts = {30, 1};
  options.report_dir = dir.file("report");
  const ModelTuneReport first = tune_model(db, workloads, counts, target, options, model_options);
  ASSERT_EQ(first.workloads.size(), 2u);
  // The model's curve: from the measurement that gave both workloads a time (two default
  // points at least) to the last, never rising, and written as SVG and CSV.
  ASSERT_FALSE(first.convergence.empty());
  EXPECT_GE(first.convergence.front().measured, 2);
  EXPECT_EQ(first.convergence.back().measured, 6);
  for (size_t i = 1; i < first.convergence.size(); ++i) {
    EXPECT_LE(first.convergence[i].best_us, first.convergence[i - 1].best_us);
    EXPECT_GE(first.convergence[i].seconds, first.convergence[i - 1].seconds);
  }
  EXPECT_TRUE(fs::exists(dir.file("report/model-evolutionary.svg")));
  std::ifstream csv(dir.file("report/model-evolutionary.csv"));
  std::string line;
  int lines = 0;
  while (std::getline(csv, line)) ++lines;
  EXPECT_EQ(lines, static_cast<int>(first.convergence.size()) + 1) << "a header and a line per step";
  int measured = 0;
  for (size_t i = 0; i < 2; ++i) {
    const TuneReport& r = first.workloads[i];
    measured += r.measured;
    EXPECT_EQ(r.count, counts[i]);
    EXPECT_LE(r.measured, options.trials);
    ASSERT_TRUE(r.default_record) << "every workload's first round measures its default point";
    expect_no_schedule_twice(db, workloads[i], target);
  }
  EXPECT_EQ(measured, 6);
  EXPECT_GE(first.rounds, 3);
  // The second workload's first search round took points from the first workload's
  // records (its first round measured its default point alone).
  std::set<int64_t> first_ids;
  for (const TuningRecord& r : db.history(workloads[0], target)) first_ids.insert(r.id);
  int transferred = 0;
  for (const TuningRecord& r : db.history(workloads[1], target)) {
    if (r.strategy != "transfer") continue;
    ++transferred;
    ASSERT_TRUE(r.parent_record);
    EXPECT_TRUE(first_ids.count(*r.parent_record)) << "the seed's source record";
  }
  EXPECT_GT(transferred, 0);
  EXPECT_EQ(first.workloads[1].transferred, transferred);

  // A second run over the same database continues: no default point and no schedule again.
  options.report_dir.clear();
  const ModelTuneReport second = tune_model(db, workloads, counts, target, options, model_options);
  int measured_again = 0;
  for (const TuneReport& r : second.workloads) measured_again += r.measured;
  EXPECT_EQ(measured_again, 6);
  for (const Workload& w : workloads) expect_no_schedule_twice(db, w, target);
  EXPECT_EQ(db.history(workloads[0], target).size() + db.history(workloads[1], target).size(), 12u);
}

}  // namespace
}  // namespace nee
