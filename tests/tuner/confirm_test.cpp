// The end-of-run re-measurement (WorkloadTuner::confirm, TuneOptions::confirm_top): real
// builds of a small matmul, measured by a scripted runner whose first samples of two
// points are lucky. The re-measured times, not the lucky ones, decide the best record; a
// point whose re-measurement computes a wrong answer can never be best; and Ctrl-C
// during the re-measurement changes no record.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <thread>

#include "core/matmul_workload.h"
#include "synthetic_timing.h"
#include "temp_dir.h"
#include "tuner/runners/runner.h"
#include "tuner/scheduling/tuning_loop.h"
#include "tuner/scheduling/workload_tuner.h"

namespace nee {
namespace {

using tuner_test::ok_result;
using tuner_test::synthetic_us;
using tuner_test::TempDir;

// Measures a point at synthetic_us, except the second and third points ever measured:
// their first sample is lucky (1 and 2 us), and the third one's second measurement
// computes a wrong answer.
class ScriptedRunner : public Runner {
 public:
  std::string name() const override { return "scripted"; }
  DeviceFingerprint device(TargetKind) override { return tuner_test::synthetic_target().device; }
  void measure(const std::vector<MeasureTask>& tasks, double, const ResultSink& sink) override {
    for (size_t i = 0; i < tasks.size(); ++i) {
      const ScheduleConfig& c = tasks[i].candidate.config;
      const int times = ++measured_[c];
      if (times == 1) order_.push_back(c);
      MeasureResult r = ok_result(synthetic_us(c));
      if (times == 1 && order_.size() == 2) r = ok_result(1.0);
      if (times == 1 && order_.size() == 3) r = ok_result(2.0);
      if (times == 2 && order_.size() >= 3 && c == order_[2]) {
        r.status = MeasureStatus::wrong_result;
        r.error = "max abs error 0.25";
      }
      if (!sink(i, r)) return;
    }
  }
  int times(const ScheduleConfig& c) const { return measured_.count(c) ? measured_.at(c) : 0; }
  const std::vector<ScheduleConfig>& order() const { return order_; }

 private:
  std::map<ScheduleConfig, int> measured_;
  std::vector<ScheduleConfig> order_;
};

TuneOptions scripted_options(const TempDir& dir, std::shared_ptr<Runner> runner) {
  TuneOptions options;
  options.trials = 6;
  options.batch = 6;
  options.baselines = false;
  options.strategy = "random";
  options.seed = 5;
  options.work_dir = dir.file("work");
  options.measurer = std::move(runner);
  options.confirm_top = 3;
  options.confirm_rounds = 3;
  return options;
}

TEST(Confirm, ReMeasuredTimesDecideTheBestAndAWrongAnswerIsRuledOut) {
  TempDir dir("confirm");
  const Workload w = matmul_workload_from_shape("16x16x16");
  const Target target = tuner_test::synthetic_target();
  TuningDatabase db(dir.file("tuning.db"));
  auto runner = std::make_shared<ScriptedRunner>();
  const TuneReport report = tune_workload(db, w, target, scripted_options(dir, runner));
  ASSERT_EQ(report.measured, 6);
  ASSERT_GE(runner->order().size(), 3u);
  const ScheduleConfig& lucky = runner->order()[1];
  const ScheduleConfig& wrong = runner->order()[2];

  std::map<ScheduleConfig, TuningRecord> by_config;
  for (const TuningRecord& r : db.history(w, target)) by_config[r.config] = r;
  // The lucky point ranked first and was re-measured in all three rounds.
  EXPECT_EQ(runner->times(lucky), 4);
  const TuningRecord& lucky_record = by_config.at(lucky);
  EXPECT_EQ(lucky_record.result.median_us, 1.0) << "the first measurement is kept";
  ASSERT_TRUE(lucky_record.confirmed_us);
  EXPECT_EQ(*lucky_record.confirmed_us, synthetic_us(lucky));
  // The wrong answer on re-measurement took the second point out.
  const TuningRecord& wrong_record = by_config.at(wrong);
  EXPECT_EQ(wrong_record.result.status, MeasureStatus::wrong_result);
  EXPECT_EQ(wrong_record.result.error, "on re-measurement: max abs error 0.25");
  // The default was re-measured too, so "x over the default" compares like with like.
  ASSERT_TRUE(report.default_record);
  ASSERT_TRUE(report.default_record->confirmed_us);
  EXPECT_EQ(*report.default_record->confirmed_us, synthetic_us(report.default_record->config));
  // The three fastest picks, the best record and the default, which may coincide.
  EXPECT_GE(report.confirmed, 3);
  EXPECT_LE(report.confirmed, 5);

  // The best is the fastest by re-measured time where there is one.
  const std::optional<TuningRecord> best = db.best(w, target);
  ASSERT_TRUE(best);
  EXPECT_FALSE(best->config == wrong);
  EXPECT_TRUE(best->confirmed_us) << "further passes re-measure an unconfirmed point left on top";
  ASSERT_TRUE(report.best);
  EXPECT_EQ(report.best->id, best->id);
  for (const auto& [config, r] : by_config) {
    if (r.result.status == MeasureStatus::ok) {
      EXPECT_LE(best->ranked_us(), r.ranked_us()) << config.to_string();
    }
  }
}

TEST(Confirm, InterruptedReMeasurementChangesNoRecord) {
  TempDir dir("confirm-stop");
  const Workload w = matmul_workload_from_shape("16x16x16");
  const Target target = tuner_test::synthetic_target();
  TuningDatabase db(dir.file("tuning.db"));
  auto runner = std::make_shared<ScriptedRunner>();
  TuneOptions options = scripted_options(dir, runner);
  options.confirm_top = 0;
  tune_workload(db, w, target, options);
  for (const TuningRecord& r : db.history(w, target)) EXPECT_FALSE(r.confirmed_us);

  WorkloadTuner tuner(db, w, target, scripted_options(dir, runner), 7);
  int asked = 0;
  tuner.confirm(3, 3, [&] { return ++asked > 2; });  // Ctrl-C in the first round
  for (const TuningRecord& r : db.history(w, target)) {
    EXPECT_FALSE(r.confirmed_us);
    EXPECT_EQ(r.result.status, MeasureStatus::ok) << "the wrong answer came after the stop";
  }
}

// Takes 0.6 s for every measurement, so a search trial takes at least that long.
class SlowRunner : public Runner {
 public:
  std::string name() const override { return "slow"; }
  DeviceFingerprint device(TargetKind) override { return tuner_test::synthetic_target().device; }
  void measure(const std::vector<MeasureTask>& tasks, double, const ResultSink& sink) override {
    for (size_t i = 0; i < tasks.size(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(600));
      if (!sink(i, ok_result(synthetic_us(tasks[i].candidate.config)))) return;
    }
  }
};

// --time covers the re-measurement, for the points there are to re-measure (none while a
// workload has measured its default alone): once a trial has taken its 0.6 s or more, the
// re-measurement of 3 + 1 points in 3 rounds is expected to take at least 7.2 s, more
// than the 6 s budget, so the search stops within its first round (the default and two
// picks), where the elapsed time alone would have let it go on.
TEST(Confirm, TheSearchLeavesTheTimeBudgetItsReMeasurementNeeds) {
  TempDir dir("confirm-budget");
  const Workload w = matmul_workload_from_shape("16x16x16");
  const Target target = tuner_test::synthetic_target();
  TuningDatabase db(dir.file("tuning.db"));
  TuneOptions options = scripted_options(dir, std::make_shared<SlowRunner>());
  options.trials = 1000000;
  options.batch = 2;
  options.time_budget_s = 6;
  TuningDatabase probe_db(dir.file("probe.db"));
  WorkloadTuner probe(probe_db, w, target, options, 1);
  EXPECT_EQ(probe.confirm_seconds_estimate(3, 3), 0) << "nothing measured yet";
  // A model's first round measures the default point alone: nothing to re-measure yet.
  probe.run_round(0, [] { return false; }, [] {});
  EXPECT_EQ(probe.confirm_seconds_estimate(3, 3), 0) << "the default alone";
  probe.run_round(1, [] { return false; }, [] {});
  EXPECT_GE(probe.confirm_seconds_estimate(3, 3), 2 * 3 * 0.6) << "a pick and the default, 3 rounds, 0.6 s each";

  const TuneReport report = tune_workload(db, w, target, options);
  EXPECT_GE(report.measured, 2);
  EXPECT_LE(report.measured, 3);
  EXPECT_GE(report.confirmed, 2) << "the re-measurement ran";

  // Control: with no re-measurement to leave time for, the same budget measures more.
  TuningDatabase control_db(dir.file("control.db"));
  options.confirm_top = 0;
  EXPECT_GT(tune_workload(control_db, w, target, options).measured, 3);
}

}  // namespace
}  // namespace nee
