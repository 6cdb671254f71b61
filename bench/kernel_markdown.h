#pragma once
#include <string>
#include <vector>

#include "bench/comparison.h"
#include "bench/report.h"

namespace nee::bench {

// The kernel-level report as Markdown: machine, versions and measured peaks, one table
// per workload (the terminal table's columns), the targets, and links to the plots in
// `plots_dir` (relative to the Markdown file; empty: no plots were written).
std::string format_kernel_markdown(const RunInfo& info, const std::vector<WorkloadComparison>& comparisons,
                                   const std::vector<std::string>& errors, const std::vector<TargetCheck>& checks,
                                   const std::string& plots_dir);

}  // namespace nee::bench
