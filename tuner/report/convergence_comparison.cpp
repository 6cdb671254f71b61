#include "tuner/report/convergence_comparison.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace nee {

namespace {

std::string trials_text(const std::optional<int>& trials) { return trials ? std::to_string(*trials) : "never"; }

UniformDraws uniform_draws(const NamedRun& run, double level_us) {
  UniformDraws d;
  for (const ConvergenceStep& s : run.steps) {
    ++d.points;
    if (s.trial_us && *s.trial_us <= level_us) ++d.at_level;
  }
  d.median_draws = median_draws_to_hit(d.at_level, d.points);
  return d;
}

std::string draws_text(const std::optional<UniformDraws>& d) {
  if (!d) return "";
  return fmt::format("{} ({} of {})", d->median_draws ? std::to_string(*d->median_draws) : "-", d->at_level,
                     d->points);
}

}  // namespace

std::optional<int> median_draws_to_hit(int hits, int draws) {
  if (hits <= 0 || draws <= 0) return std::nullopt;
  const double p = static_cast<double>(hits) / draws;
  if (p >= 0.5) return 1;
  return static_cast<int>(std::ceil(std::log(0.5) / std::log1p(-p)));
}

ConvergenceComparison compare_convergence(const std::vector<NamedRun>& runs, double fraction,
                                          const std::vector<std::string>& uniform) {
  for (const std::string& name : uniform) {
    const auto run = std::find_if(runs.begin(), runs.end(), [&](const NamedRun& r) { return r.name == name; });
    if (run == runs.end()) throw Error("--uniform " + name + ": no run of that name");
    if (std::count(uniform.begin(), uniform.end(), name) > 1) throw Error("--uniform " + name + ": named twice");
    const bool timed = std::any_of(run->steps.begin(), run->steps.end(), [](const ConvergenceStep& s) {
      return s.trial_us.has_value();
    });
    if (!timed) throw Error("--uniform " + name + ": its CSV has no trial_us column (written before NEE kept it)");
  }
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
    if (std::find(uniform.begin(), uniform.end(), run.name) != uniform.end()) {
      r.draws = uniform_draws(run, c.overall_best_us * (1 + fraction));
      if (uniform.size() >= 2) {
        UniformDraws& pooled = c.pooled ? *c.pooled : c.pooled.emplace();
        pooled.points += r.draws->points;
        pooled.at_level += r.draws->at_level;
      }
    }
    c.runs.push_back(r);
  }
  if (c.pooled) c.pooled->median_draws = median_draws_to_hit(c.pooled->at_level, c.pooled->points);
  return c;
}

std::string comparison_table(const ConvergenceComparison& c) {
  const int percent = static_cast<int>(c.fraction * 100 + 0.5);
  const bool any_uniform = std::any_of(c.runs.begin(), c.runs.end(), [](const RunConvergence& r) { return r.draws; });
  std::string out = fmt::format("{:<28} {:>7} {:>12} {:>20} {:>22}", "run", "trials", "best us",
                                fmt::format("to {}% of own best", percent), fmt::format("to {}% of best of all", percent));
  out += any_uniform ? fmt::format(" {:>26}\n", "as uniform draws: median") : "\n";
  for (const RunConvergence& r : c.runs) {
    out += fmt::format("{:<28} {:>7} {:>12.1f} {:>20} {:>22}", r.name, r.trials, r.best_us, trials_text(r.to_own),
                       trials_text(r.to_overall));
    out += any_uniform ? fmt::format(" {:>26}\n", draws_text(r.draws)) : "\n";
  }
  if (c.pooled) {
    out += fmt::format("{:<28} {:>7} {:>12} {:>20} {:>22} {:>26}\n", "uniform runs pooled", "", "", "", "",
                       draws_text(c.pooled));
  }
  if (any_uniform) {
    out += fmt::format(
        "median: the trials uniform draws need to reach {}% of the best of all, half the time, from the run's hit "
        "rate (hits of points)\n",
        percent);
  }
  return out;
}

}  // namespace nee
