#pragma once
#include <vector>

namespace nee {

// The median of timing samples: the middle one, or the mean of the middle two. Throws
// nee::Error on an empty list.
double median(std::vector<double> samples);

}  // namespace nee
