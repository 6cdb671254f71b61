#include "bench/statistics.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace nee::bench {

double percentile_of_sorted(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

Summary summarize(std::vector<double> samples) {
  if (samples.empty()) throw Error("no samples to summarize");
  std::sort(samples.begin(), samples.end());
  Summary s;
  s.count = static_cast<int>(samples.size());
  s.median = percentile_of_sorted(samples, 0.5);
  s.p10 = percentile_of_sorted(samples, 0.1);
  s.p90 = percentile_of_sorted(samples, 0.9);
  s.min = samples.front();
  s.max = samples.back();
  return s;
}

}  // namespace nee::bench
