#pragma once
#include <vector>

namespace nee::bench {

// The centre and spread of timing samples. Percentiles interpolate linearly between
// the sorted samples, so p10/p90 of a handful of repeats stay inside [min, max].
struct Summary {
  int count = 0;
  double median = 0;
  double p10 = 0, p90 = 0;
  double min = 0, max = 0;
};

// Throws nee::Error on an empty sample list.
Summary summarize(std::vector<double> samples);

// Linear-interpolation percentile (q in [0, 1]) of samples sorted ascending.
double percentile_of_sorted(const std::vector<double>& sorted, double q);

}  // namespace nee::bench
