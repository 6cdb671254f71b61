#pragma once
#include <optional>
#include <string>
#include <vector>

#include "bench/comparison.h"
#include "bench/plots/bar_chart_svg.h"
#include "bench/plots/roofline_svg.h"
#include "bench/probes/machine_peaks.h"

namespace nee::bench {

// NEE-tuned's speed over every other engine (one series each), one group per workload.
BarChart kernel_ratio_chart(const std::vector<WorkloadComparison>& comparisons);
// Every timed engine's median on every workload, under the measured ceilings, at the
// FLOPs its kernel executes.
Roofline kernel_roofline(const std::vector<WorkloadComparison>& comparisons, const MachinePeaks& peaks);

// Writes <dir>/ratios.svg and, when `peaks` is given, <dir>/roofline.svg; returns the
// file names written. Throws nee::Error when it cannot write.
std::vector<std::string> write_kernel_plots(const std::string& dir, const std::vector<WorkloadComparison>& comparisons,
                                            const std::optional<MachinePeaks>& peaks);

}  // namespace nee::bench
