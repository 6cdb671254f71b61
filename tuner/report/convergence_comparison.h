#pragma once
#include <optional>
#include <string>
#include <vector>

#include "tuner/report/convergence_svg.h"

namespace nee {

// How fast each run came near a level: its own final best, and the best of all runs.
struct RunConvergence {
  std::string name;
  int trials = 0;                     // steps of the run
  double best_us = 0;                 // its final best; 0 when it has none
  std::optional<int> to_own;          // first trial within the fraction of its own best
  std::optional<int> to_overall;      // first trial within the fraction of the best of all runs
};

struct ConvergenceComparison {
  double fraction = 0.1;
  double overall_best_us = 0;
  std::vector<RunConvergence> runs;
};

// Compares runs of the same workload (or model) by the trials each needed to come within
// `fraction` of a level.
ConvergenceComparison compare_convergence(const std::vector<NamedRun>& runs, double fraction);
// The comparison as a terminal table.
std::string comparison_table(const ConvergenceComparison& comparison);

}  // namespace nee
