#pragma once
#include <string>
#include <vector>

namespace nee {

// Summary of repeated timings: the median is the figure to compare; p10..p90 is the
// spread to judge whether a difference is noise.
struct TimingSummary {
  int runs = 0;
  double median_ms = 0, min_ms = 0, p10_ms = 0, p90_ms = 0;
};

TimingSummary summarize_timings(std::vector<double> samples_ms);
std::string to_string(const TimingSummary& s);

}  // namespace nee
