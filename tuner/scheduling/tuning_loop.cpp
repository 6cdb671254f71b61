#include "tuner/scheduling/tuning_loop.h"

#include <fmt/format.h>

#include <chrono>

#include "core/workload_speed.h"
#include "tuner/scheduling/interrupt.h"
#include "tuner/scheduling/progress_bar.h"
#include "tuner/scheduling/workload_tuner.h"

namespace nee {

static std::string best_speed_text(const Workload& w, const std::optional<double>& us) {
  if (!us) return "-";
  return speed_text(w, *us);
}

TuneReport tune_workload(TuningDatabase& db, const Workload& workload, const Target& target,
                         const TuneOptions& options) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - start).count(); };
  const uint64_t seed = options.seed ? options.seed : static_cast<uint64_t>(clock::now().time_since_epoch().count());
  WorkloadTuner tuner(db, workload, target, options, seed);

  // A time budget with a huge trial count is bounded by time: show progress by time.
  const bool time_bound = options.time_budget_s > 0 && options.trials >= 100000;
  ProgressBar progress(workload.key(), time_bound ? 0 : options.trials);
  const auto fraction_spent = [&] {
    double f = options.trials > 0 ? static_cast<double>(tuner.measured()) / options.trials : 1.0;
    if (options.time_budget_s > 0) f = std::max(f, elapsed() / options.time_budget_s);
    return f;
  };
  // --time bounds the whole run: the search leaves the time its re-measurement is expected to take.
  const auto seconds_left = [&] {
    if (options.time_budget_s > 0) {
      return options.time_budget_s - tuner.confirm_seconds_estimate(options.confirm_top, options.confirm_rounds) - elapsed();
    }
    const int done = tuner.measured();
    return done ? elapsed() / done * (options.trials - done) : 0.0;
  };
  // Rounds are sized to the trials left, so within a round only time and Ctrl-C stop.
  const auto time_is_up = [&] { return interrupted() || (options.time_budget_s > 0 && seconds_left() <= 0); };
  const auto out_of_budget = [&] { return tuner.measured() >= options.trials || time_is_up(); };
  // While searching, the faster of the ranked best and the search's best: a search's
  // picks rank below the default until they are re-measured at the end, and a progress
  // line that showed only the ranked best stayed at the default for a whole run.
  const auto show = [&] {
    std::optional<double> us = tuner.best_us();
    if (const std::optional<double> search = tuner.search_best_us(); search && (!us || *search < *us)) us = search;
    progress.update(tuner.measured(), fraction_spent(), best_speed_text(workload, us), seconds_left());
  };
  while (!out_of_budget() && !tuner.exhausted()) {
    tuner.run_round(std::min(options.batch, options.trials - tuner.measured()), time_is_up, show);
  }
  if (!interrupted() && options.confirm_top > 0) {
    progress.update(tuner.measured(), 1.0, fmt::format("re-measuring the best {} and the default", options.confirm_top), 0);
    tuner.confirm(options.confirm_top, options.confirm_rounds, interrupted,
                  [&] { return options.time_budget_s > 0 && elapsed() >= options.time_budget_s; });
  }
  const TuneReport& report = tuner.report();
  std::string summary = fmt::format("{}: {} measured ({} failed) in {}, best {}", workload.key(), report.measured,
                                    report.failed, format_duration(report.seconds), best_speed_text(workload, tuner.best_us()));
  if (report.confirmed > 0) summary += fmt::format(" ({} points re-measured in {} rounds)", report.confirmed, options.confirm_rounds);
  if (report.best && report.default_record) {
    summary += fmt::format(", {:.2f}x the default schedule",
                           report.default_record->ranked_us() / report.best->ranked_us());
  }
  progress.finish(summary);
  tuner.write_report();
  return report;
}

}  // namespace nee
