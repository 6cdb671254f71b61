#include "runtime/profiling/run_statistics.h"

#include <fmt/format.h>

#include <algorithm>

namespace nee {

static double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

TimingSummary summarize_timings(std::vector<double> samples_ms) {
  std::sort(samples_ms.begin(), samples_ms.end());
  TimingSummary s;
  s.runs = static_cast<int>(samples_ms.size());
  if (samples_ms.empty()) return s;
  s.median_ms = quantile(samples_ms, 0.5);
  s.min_ms = samples_ms.front();
  s.p10_ms = quantile(samples_ms, 0.1);
  s.p90_ms = quantile(samples_ms, 0.9);
  return s;
}

std::string to_string(const TimingSummary& s) {
  return fmt::format("median {:.3f} ms (p10 {:.3f}, p90 {:.3f}, min {:.3f}) over {} runs", s.median_ms, s.p10_ms,
                     s.p90_ms, s.min_ms, s.runs);
}

}  // namespace nee
