#include "core/median.h"

#include <algorithm>

#include "core/error.h"

namespace nee {

double median(std::vector<double> samples) {
  if (samples.empty()) throw Error("median of no samples");
  const size_t n = samples.size();
  std::nth_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(n / 2), samples.end());
  const double upper = samples[n / 2];
  if (n % 2) return upper;
  const double lower = *std::max_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(n / 2));
  return (lower + upper) / 2;
}

}  // namespace nee
