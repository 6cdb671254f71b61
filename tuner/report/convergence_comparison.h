#pragma once
#include <optional>
#include <string>
#include <vector>

#include "tuner/report/convergence_svg.h"

namespace nee {

// A run of uniform random draws (`--strategy random --no-default-point`) as a sample of
// the space: how many of its points were at the level of the best of all runs. Its
// trials to the level are one draw of a geometric variable, so a lucky or unlucky run
// says little alone; the median of that variable, from the sample's hit rate p, is
// ceil(ln 0.5 / ln(1 - p)).
struct UniformDraws {
  int points = 0;                   // trials of the run, failed ones included
  int at_level = 0;                 // of them, ok points within the fraction of the best of all
  std::optional<int> median_draws;  // none when no point was at the level
};

// How fast each run came near a level: its own final best, and the best of all runs.
struct RunConvergence {
  std::string name;
  int trials = 0;                     // steps of the run
  double best_us = 0;                 // its final best; 0 when it has none
  std::optional<int> to_own;          // first trial within the fraction of its own best
  std::optional<int> to_overall;      // first trial within the fraction of the best of all runs
  std::optional<UniformDraws> draws;  // for the runs compared as uniform draws
};

struct ConvergenceComparison {
  double fraction = 0.1;
  double overall_best_us = 0;
  std::vector<RunConvergence> runs;
  // With two or more uniform runs, their points as one sample. One run's hit rate at a
  // level near the best rests on a handful of hits (1 to 5 in 1000 on the 1024-cubed
  // MatMul in session 12), so a pooled sample of the same space is steadier.
  std::optional<UniformDraws> pooled;
};

// Compares runs of the same workload (or model) by the trials each needed to come within
// `fraction` of a level. The runs named in `uniform` are also read as samples of uniform
// draws, each alone and, when there are two or more, pooled; their steps must carry
// trial_us. Throws nee::Error when a name in `uniform` is not a run or is named twice
// (it would count twice in the pool), or its steps lack trial_us (CSVs written before
// NEE recorded them).
ConvergenceComparison compare_convergence(const std::vector<NamedRun>& runs, double fraction,
                                          const std::vector<std::string>& uniform = {});
// The median of a geometric variable with success probability hits / draws: the fewest
// draws that reach a hit with probability at least one half. None when hits is 0.
std::optional<int> median_draws_to_hit(int hits, int draws);
// The comparison as a terminal table.
std::string comparison_table(const ConvergenceComparison& comparison);

}  // namespace nee
