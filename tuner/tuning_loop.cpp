#include "tuner/tuning_loop.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <random>

#include "schedules/schedule_space.h"
#include "tuner/builder.h"
#include "tuner/interrupt.h"
#include "tuner/kernel_compiler.h"
#include "tuner/local_runner.h"
#include "tuner/progress_bar.h"
#include "tuner/search/search_strategy.h"

namespace nee {

namespace fs = std::filesystem;

static std::string gflops_text(const Workload& w, const std::optional<TuningRecord>& r) {
  if (!r) return "-";
  return fmt::format("{:.1f} GFLOP/s", w.flops() / r->result.median_us / 1e3);
}

TuneReport tune_workload(TuningDatabase& db, const Workload& workload, const Target& target,
                         const TuneOptions& options) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - start).count(); };
  TuneReport report;
  report.workload = workload;
  report.strategy = options.strategy;

  const auto space = make_schedule_space(workload, target);
  const uint64_t seed = options.seed ? options.seed : static_cast<uint64_t>(clock::now().time_since_epoch().count());
  std::mt19937_64 rng(seed);
  auto strategy = make_search_strategy(options.strategy, *space, rng(), workload, target);

  const std::vector<TuningRecord> history = db.history(workload, target);
  for (const TuningRecord& r : history) strategy->observe(r.config, r.result);
  const ScheduleConfig default_config = space->default_config();
  for (const TuningRecord& r : history) {
    if (r.config == default_config && r.result.status == MeasureStatus::ok) report.default_record = r;
  }
  report.best = db.best(workload, target);
  int trial = static_cast<int>(history.size());

  const std::string work_dir = options.work_dir + "/" + workload.hash();
  Builder builder(work_dir, options.build_jobs, options.build_timeout_s);
  const std::shared_ptr<Runner> runner =
      options.measurer ? options.measurer : std::make_shared<LocalRunner>(options.runner);
  // A time budget with a huge trial count is bounded by time: show progress by time.
  const bool time_bound = options.time_budget_s > 0 && options.trials >= 100000;
  ProgressBar progress(workload.key(), time_bound ? 0 : options.trials);
  const auto fraction_spent = [&] {
    double f = options.trials > 0 ? static_cast<double>(report.measured) / options.trials : 1.0;
    if (options.time_budget_s > 0) f = std::max(f, elapsed() / options.time_budget_s);
    return f;
  };
  const auto seconds_left = [&] {
    if (options.time_budget_s > 0) return options.time_budget_s - elapsed();
    const int done = report.measured;
    return done ? elapsed() / done * (options.trials - done) : 0.0;
  };
  const auto out_of_budget = [&] {
    return report.measured >= options.trials || interrupted() ||
           (options.time_budget_s > 0 && elapsed() >= options.time_budget_s);
  };

  while (!out_of_budget()) {
    std::vector<Candidate> batch;
    if (!strategy->seen(default_config)) {
      batch.push_back({workload, target, default_config, "default", trial, std::nullopt});
    }
    const int wanted = std::min(options.batch, options.trials - report.measured) - static_cast<int>(batch.size());
    for (ScheduleConfig& c : strategy->propose(wanted)) {
      batch.push_back({workload, target, std::move(c), strategy->name(), 0, report.best ? std::optional<int64_t>(report.best->id) : std::nullopt});
    }
    if (batch.empty()) break;  // the space is exhausted
    const std::vector<BuildResult> builds = builder.build(batch);
    std::vector<MeasureTask> tasks;
    for (size_t i = 0; i < batch.size(); ++i) tasks.push_back({builds[i], batch[i], rng()});
    // The first candidate of a run is always measured, so even a tiny time budget
    // leaves a record (the default point, when it was never measured).
    runner->measure(tasks, report.best ? report.best->result.median_us : 0, [&](size_t i, const MeasureResult& result) {
      Candidate& c = batch[i];
      c.trial = trial++;
      TuningRecord record;
      record.workload = workload;
      record.target = target;
      record.config = c.config;
      record.strategy = c.strategy;
      record.trial = c.trial;
      record.parent_record = c.parent_record;
      if (c.strategy == strategy->name()) record.predicted_us = strategy->predicted_us(c.config);
      record.halide_version = halide_version();
      record.result = result;
      record.id = db.add_record(record);
      strategy->observe(c.config, record.result);
      ++report.measured;
      if (record.result.status != MeasureStatus::ok) {
        ++report.failed;
      } else {
        if (c.strategy == "default") report.default_record = record;
        if (!report.best || record.result.median_us < report.best->result.median_us) report.best = record;
      }
      report.convergence.push_back({report.measured, elapsed(), report.best ? report.best->result.median_us : 0});
      progress.update(report.measured, fraction_spent(), gflops_text(workload, report.best), seconds_left());
      return !out_of_budget();
    });
    for (const BuildResult& b : builds) {
      std::error_code ignored;
      fs::remove_all(fs::path(b.artifact).parent_path(), ignored);
    }
  }
  report.seconds = elapsed();
  std::string summary = fmt::format("{}: {} measured ({} failed) in {}, best {}", workload.key(), report.measured,
                                    report.failed, format_duration(report.seconds), gflops_text(workload, report.best));
  if (report.best && report.default_record) {
    summary += fmt::format(", {:.2f}x the default schedule",
                           report.default_record->result.median_us / report.best->result.median_us);
  }
  progress.finish(summary);
  if (!options.report_dir.empty() && !report.convergence.empty()) {
    fs::create_directories(options.report_dir);
    write_convergence_svg(fmt::format("{}/{}-{}.svg", options.report_dir, workload.hash(), options.strategy),
                          workload.key(), options.strategy, report.convergence);
  }
  return report;
}

}  // namespace nee
