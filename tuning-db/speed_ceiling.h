#pragma once
#include <string>

#include "core/target.h"
#include "core/workload.h"

namespace nee {

// The fastest a target could physically run a workload, in the unit of speed(w, us):
// GFLOP/s, or GB/s for a family that only moves data. Neither a target description nor
// the database records a measured peak, so the bound is derived from the target and set
// generously, so that no honest measurement reaches it (see speed_ceiling.cpp).
double speed_ceiling(const Workload& w, const Target& t);

// Empty when a time of `us` microseconds is physically possible for the workload on the
// target; otherwise why not, with the speed and the ceiling.
std::string impossible_speed(const Workload& w, const Target& t, double us);

}  // namespace nee
