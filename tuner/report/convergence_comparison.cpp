#include "tuner/report/convergence_comparison.h"

#include <fmt/format.h>

namespace nee {

namespace {

std::string trials_text(const std::optional<int>& trials) { return trials ? std::to_string(*trials) : "never"; }

}  // namespace

ConvergenceComparison compare_convergence(const std::vector<NamedRun>& runs, double fraction) {
  ConvergenceComparison c;
  c.fraction = fraction;
  for (const NamedRun& run : runs) {
    if (!run.steps.empty() && run.steps.back().best_us > 0 &&
        (c.overall_best_us == 0 || run.steps.back().best_us < c.overall_best_us)) {
      c.overall_best_us = run.steps.back().best_us;
    }
  }
  for (const NamedRun& run : runs) {
    RunConvergence r;
    r.name = run.name;
    r.trials = run.steps.empty() ? 0 : run.steps.back().measured;
    r.best_us = run.steps.empty() ? 0 : run.steps.back().best_us;
    r.to_own = trials_to_within(run.steps, fraction);
    if (c.overall_best_us > 0) r.to_overall = trials_to_level(run.steps, c.overall_best_us * (1 + fraction));
    c.runs.push_back(r);
  }
  return c;
}

std::string comparison_table(const ConvergenceComparison& c) {
  const int percent = static_cast<int>(c.fraction * 100 + 0.5);
  std::string out = fmt::format("{:<28} {:>7} {:>12} {:>20} {:>22}\n", "run", "trials", "best us",
                                fmt::format("to {}% of own best", percent), fmt::format("to {}% of best of all", percent));
  for (const RunConvergence& r : c.runs) {
    out += fmt::format("{:<28} {:>7} {:>12.1f} {:>20} {:>22}\n", r.name, r.trials, r.best_us, trials_text(r.to_own),
                       trials_text(r.to_overall));
  }
  return out;
}

}  // namespace nee
