#include "tuner/scheduling/model_tuning.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <limits>
#include <memory>
#include <set>

#include "core/error.h"
#include "tuner/report/convergence_csv.h"
#include "tuner/report/convergence_svg.h"
#include "tuner/report/tuning_summary.h"
#include "tuner/scheduling/baseline_verdicts.h"
#include "tuner/scheduling/interrupt.h"
#include "tuner/scheduling/progress_bar.h"
#include "tuner/scheduling/workload_tuner.h"

namespace nee {

ModelTuneReport tune_model(TuningDatabase& db, const std::vector<Workload>& workloads, const std::vector<int>& counts,
                           const Target& target, const TuneOptions& options, const ModelTuneOptions& model_options) {
  if (workloads.size() != counts.size()) throw Error("tune_model: one count per workload is needed");
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - start).count(); };
  std::mt19937_64 seeds(options.seed ? options.seed : static_cast<uint64_t>(clock::now().time_since_epoch().count()));
  std::vector<std::unique_ptr<WorkloadTuner>> tuners;
  for (const Workload& w : workloads) tuners.push_back(std::make_unique<WorkloadTuner>(db, w, target, options, seeds()));
  SchedulerOptions scheduler_options = model_options.scheduler;
  scheduler_options.seed = seeds();
  std::vector<double> weights;
  for (size_t i = 0; i < workloads.size(); ++i) weights.push_back(counts[i] * workloads[i].flops());
  TaskScheduler scheduler(counts, scheduler_options, weights);

  const int64_t budget = model_options.total_trials > 0
                             ? model_options.total_trials
                             : static_cast<int64_t>(options.trials) * static_cast<int64_t>(workloads.size());
  const auto measured = [&] {
    int64_t n = 0;
    for (const auto& t : tuners) n += t->measured();
    return n;
  };
  // --time bounds the whole run: the search leaves the time the re-measurement of every
  // workload it tuned is expected to take (ResNet-50's took 12 of 33 minutes when it did
  // not). Rounds are sized to the trials left, so within a round only time and Ctrl-C stop.
  const auto confirm_reserve_s = [&] {
    double s = 0;
    for (const auto& t : tuners) s += t->confirm_seconds_estimate(options.confirm_top, options.confirm_rounds);
    return s;
  };
  const auto search_seconds_left = [&] { return options.time_budget_s - confirm_reserve_s() - elapsed(); };
  const auto time_is_up = [&] { return interrupted() || (options.time_budget_s > 0 && search_seconds_left() <= 0); };
  const auto out_of_budget = [&] { return measured() >= budget || time_is_up(); };
  // A time budget with a huge trial count is bounded by time: show progress by time.
  const bool time_bound = options.time_budget_s > 0 && options.trials >= 100000;
  const int bar_total = time_bound ? 0 : static_cast<int>(std::min<int64_t>(budget, std::numeric_limits<int>::max()));
  ProgressBar progress(fmt::format("{} workloads", workloads.size()), bar_total);
  ModelTuneReport report;
  const auto reports = [&] {
    std::vector<TuneReport> r;
    for (size_t i = 0; i < tuners.size(); ++i) {
      r.push_back(tuners[i]->report());
      r.back().count = counts[i];
    }
    return r;
  };
  const auto show = [&] {
    const int64_t done = measured();
    double fraction = static_cast<double>(done) / static_cast<double>(budget);
    if (options.time_budget_s > 0) fraction = std::max(fraction, elapsed() / options.time_budget_s);
    const double left = options.time_budget_s > 0 ? search_seconds_left()
                        : done                    ? elapsed() / static_cast<double>(done) * static_cast<double>(budget - done)
                                                  : 0.0;
    const ModelEstimate e = running_model_estimate(reports());
    // The model's curve starts once every workload has a time.
    if (e.covered == e.workloads) report.convergence.push_back({static_cast<int>(done), elapsed(), e.tuned_us});
    progress.update(static_cast<int>(done), fraction,
                    fmt::format("{} for the model (default {}), round {}", format_us(e.tuned_us),
                                format_us(e.default_us), scheduler.total_rounds() + 1),
                    left);
  };

  // Baselines that lost everywhere they ran are not built for the remaining workloads.
  BaselineVerdicts verdicts;
  std::vector<std::set<std::string>> judged(tuners.size());  // baselines recorded per workload
  const auto judge_baselines = [&] {
    for (size_t i = 0; i < tuners.size(); ++i) {
      const std::optional<double> search_best = tuners[i]->search_best_us();
      if (!search_best) continue;
      for (const auto& [name, record] : tuners[i]->report().baselines) {
        if (judged[i].insert(name).second) verdicts.record(name, record.result.median_us, *search_best);
      }
    }
    for (auto& t : tuners) t->skip_baselines(verdicts.skipped());
  };

  while (!out_of_budget()) {
    const std::optional<size_t> task = scheduler.next();
    if (!task) break;  // every workload spent its trials or exhausted its space
    WorkloadTuner& tuner = *tuners[*task];
    const int64_t room = std::min<int64_t>(options.trials - tuner.measured(), budget - measured());
    // A workload's first round is its default point alone, the heaviest workloads first:
    // every workload has a time early, and the search's rounds (baselines and transferred
    // points in the first of them) go where the time is. First rounds of a whole batch
    // each, in the model's order, left 4 of ResNet-18's 15 workloads unmeasured when
    // `--time 2m` ran out.
    const int count = scheduler.rounds(*task) == 0 ? 0 : static_cast<int>(std::min<int64_t>(options.batch, room));
    const RoundResult round = tuner.run_round(count, time_is_up, show);
    if (options.baselines) judge_baselines();
    scheduler.record(*task, round.start_us, round.best_us, tuner.exhausted() || tuner.measured() >= options.trials);
    if (scheduler.converged()) {
      report.stopped_early = true;
      break;
    }
  }
  const double reserved_s = confirm_reserve_s();
  const double search_end_s = elapsed();
  size_t tuned = 0, remeasured = 0;  // workloads measured in this run; re-measured of them
  if (!interrupted() && options.confirm_top > 0) {
    // The re-measurement's estimate is one pass of a search trial's seconds a point, and
    // a point re-measured can call for another pass: the workloads of most time go first,
    // none starts after the budget's end, and there a started one ends after its first
    // pass (a pick not re-measured ranks below the default).
    const auto past_budget = [&] {
      return interrupted() || (options.time_budget_s > 0 && elapsed() >= options.time_budget_s);
    };
    std::vector<size_t> order;
    std::vector<double> share(tuners.size(), 0);
    for (size_t i = 0; i < tuners.size(); ++i) {
      if (tuners[i]->measured() == 0) continue;  // not tuned in this run
      order.push_back(i);
      share[i] = counts[i] * tuners[i]->best_us().value_or(0);
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return share[a] > share[b]; });
    tuned = order.size();
    for (size_t n = 0; n < order.size() && !past_budget(); ++n, ++remeasured) {
      progress.update(static_cast<int>(measured()), 1.0,
                      fmt::format("re-measuring the best points of workload {} of {}", n + 1, order.size()), 0);
      tuners[order[n]]->confirm(options.confirm_top, options.confirm_rounds, interrupted, past_budget);
    }
  }
  const ModelEstimate e = model_estimate(reports());
  const std::string skipped =
      verdicts.skipped().empty()
          ? ""
          : fmt::format("; baselines skipped after losing by over {}x on {} workloads: {}",
                        BaselineVerdicts::kLosingFactor, BaselineVerdicts::kWorkloads,
                        fmt::join(verdicts.skipped(), ", "));
  const std::string remeasuring =
      tuned > 0 ? fmt::format(" (re-measuring {} of {} workloads {}, {} reserved)", remeasured, tuned,
                              format_duration(elapsed() - search_end_s), format_duration(reserved_s))
                : "";
  progress.finish(fmt::format("{} workloads: {} measured in {} rounds, {}{}; model estimate {} (default {}){}{}",
                              workloads.size(), measured(), scheduler.total_rounds(), format_duration(elapsed()),
                              remeasuring,
                              format_us(e.tuned_us), format_us(e.default_us),
                              report.stopped_early ? ", stopped: no workload is still improving" : "", skipped));
  for (const auto& t : tuners) t->write_report();
  if (!options.report_dir.empty() && !report.convergence.empty()) {
    std::filesystem::create_directories(options.report_dir);
    const std::string stem = options.report_dir + "/model-" + options.strategy;
    write_convergence_svg(stem + ".svg", fmt::format("estimated model time, {} workloads", workloads.size()),
                          options.strategy, report.convergence);
    write_convergence_csv(stem + ".csv", report.convergence);
  }
  report.workloads = reports();
  report.rounds = scheduler.total_rounds();
  report.seconds = elapsed();
  return report;
}

}  // namespace nee
