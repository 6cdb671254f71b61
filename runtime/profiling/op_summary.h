#pragma once
#include <string>
#include <vector>

#include "runtime/profiling/run_profile.h"

namespace nee {

// Time per operator over a profile's runs. Each op's time is the median over runs of the
// summed time of its nodes in that run (robust to one noisy run); shares are of the sum of
// those medians, so the rows add up to the table's total.
struct OpTime {
  std::string op;
  int count = 0;     // nodes of this op in one run
  double ms = 0;     // median over runs of the op's time per run
  double share = 0;  // ms / OpSummary::node_ms
  double flops = 0;  // per run
};

struct OpSummary {
  std::vector<OpTime> ops;  // most time first
  double node_ms = 0;       // sum of the ops' ms
  double run_ms = 0;        // median wall time of a whole run, which also holds the runtime's own work
  int runs = 0;
};

OpSummary summarize_ops(const RunProfile& profile);

// The table: op, count, ms, share, GFLOP/s, then a total row and the run's median.
std::string format_op_summary(const OpSummary& summary);

}  // namespace nee
