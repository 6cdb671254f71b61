#pragma once
#include <string>

#include "core/workload.h"

namespace nee {

// How a workload's speed is reported. Families that compute are measured in GFLOP/s;
// those bound by moving data (strided_copy, whose flops() is 0; resize, a few FLOPs per
// output) in GB/s of the fewest bytes they must read and write: each output element
// read once and written once.
// Both are work / time, so a figure divides by the time, never by the FLOPs.

// The work a speed figure counts: the FLOPs, or for a family without any the bytes moved.
double speed_work(const Workload& w);
// "GFLOP/s" or "GB/s".
std::string speed_unit(const Workload& w);
// speed_work / us, in the unit's billions per second.
double speed(const Workload& w, double us);
// "12.3 GFLOP/s", "4.5 GB/s".
std::string speed_text(const Workload& w, double us);

}  // namespace nee
