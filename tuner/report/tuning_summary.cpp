#include "tuner/report/tuning_summary.h"

#include <fmt/format.h>

#include <algorithm>

#include "tuner/report/convergence_svg.h"

namespace nee {

namespace {

constexpr size_t kKeyWidth = 52;

std::string median_text(const std::optional<TuningRecord>& r) { return r ? format_us(r->ranked_us()) : "-"; }

std::string speedup_text(const std::optional<TuningRecord>& over, const std::optional<TuningRecord>& best) {
  if (!over || !best) return "-";
  return fmt::format("{:.2f}x", over->ranked_us() / best->ranked_us());
}

std::optional<TuningRecord> baseline(const TuneReport& r, const std::string& name) {
  const auto it = r.baselines.find(name);
  if (it == r.baselines.end()) return std::nullopt;
  return it->second;
}

// sum(count x default) and sum(count x best_of(report)) over the workloads that have a
// default and a best record.
template <typename BestOf>
ModelEstimate estimate(const std::vector<TuneReport>& reports, BestOf best_of) {
  ModelEstimate e;
  e.workloads = static_cast<int>(reports.size());
  for (const TuneReport& r : reports) {
    if (!r.default_record || !r.best) continue;
    e.default_us += r.count * r.default_record->ranked_us();
    e.tuned_us += r.count * best_of(r);
    ++e.covered;
  }
  return e;
}

}  // namespace

std::string format_us(double us) {
  if (us <= 0) return "-";
  if (us < 1000) return fmt::format("{:.0f} us", us);
  if (us < 1e6) return fmt::format("{:.1f} ms", us / 1e3);
  return fmt::format("{:.2f} s", us / 1e6);
}

ModelEstimate model_estimate(const std::vector<TuneReport>& reports) {
  return estimate(reports, [](const TuneReport& r) { return r.best->ranked_us(); });
}

ModelEstimate running_model_estimate(const std::vector<TuneReport>& reports) {
  return estimate(reports, [](const TuneReport& r) {
    const double search_best_us = r.convergence.empty() ? 0 : r.convergence.back().best_us;
    return search_best_us > 0 ? std::min(r.best->ranked_us(), search_best_us) : r.best->ranked_us();
  });
}

std::string tuning_summary(const std::vector<TuneReport>& reports, bool model) {
  const auto row = [](const auto&... cells) {
    return fmt::format("{:<52} {:>5} {:>6} {:>6} {:>9} {:<13} {:>9} {:>9} {:>13} {:>7} {:>7} {:>6}\n", cells...);
  };
  std::string out = row("workload", "count", "share", "trials", "best", "best by", "default", "Adams2019",
                        "Mullapudi2016", "vs def", "vs A19", "to 10%");
  // A workload's share of the model's estimated time: count x best over the sum.
  const double model_us = model ? model_estimate(reports).tuned_us : 0;
  const auto share_text = [&](const TuneReport& r) {
    if (model_us <= 0 || !r.best) return std::string("-");
    return fmt::format("{:.1f}%", 100 * r.count * r.best->ranked_us() / model_us);
  };
  for (const TuneReport& r : reports) {
    std::string key = r.workload.key();
    if (key.size() > kKeyWidth) key = key.substr(0, kKeyWidth - 3) + "...";
    // Trials of this run until the search's best was within 10% of its final best.
    const std::optional<int> to_10 = trials_to_within(r.convergence, 0.10);
    const std::optional<TuningRecord> adams = baseline(r, "Adams2019");
    out += row(key, r.count, share_text(r), r.measured, median_text(r.best), r.best ? r.best->strategy : "-",
               median_text(r.default_record), median_text(adams), median_text(baseline(r, "Mullapudi2016")),
               speedup_text(r.default_record, r.best), speedup_text(adams, r.best),
               to_10 ? std::to_string(*to_10) : "-");
  }
  if (model) {
    const ModelEstimate e = model_estimate(reports);
    out += fmt::format("estimated model time (sum of count x median, {} of {} workloads): default {} -> tuned {}",
                       e.covered, e.workloads, format_us(e.default_us), format_us(e.tuned_us));
    if (e.tuned_us > 0) out += fmt::format(" ({:.2f}x)", e.default_us / e.tuned_us);
    out += "\n";
  }
  return out;
}

}  // namespace nee
