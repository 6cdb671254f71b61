#pragma once
#include <string>
#include <vector>

#include "tuner/scheduling/tuning_loop.h"

namespace nee {

// The model's estimated kernel time, sum(count x median), with the default schedules
// and with the best records. Both sums run over the workloads that have both records,
// so the two figures compare the same kernels; `covered` says how many that is.
struct ModelEstimate {
  double default_us = 0;
  double tuned_us = 0;
  int covered = 0;
  int workloads = 0;
};
ModelEstimate model_estimate(const std::vector<TuneReport>& reports);
// The same while a run searches. A search's picks rank below the default until they are
// re-measured at the end, so model_estimate stays at the default's sum all through the
// search (ResNet-50's 18-minute curve was flat); here each workload counts at the faster
// of its best record and its search's best first median so far.
ModelEstimate running_model_estimate(const std::vector<TuneReport>& reports);

// "850 us", "12.3 ms", "1.25 s"; "-" for 0.
std::string format_us(double us);

// The table printed at the end of a run: per workload its count, trials, best (and
// which strategy found it), default, Adams2019 and Mullapudi2016 medians, the best's
// speed-up over the default and over Adams2019, and the trials until within 10% of the
// best; for a model, the estimated model time default -> tuned below it.
std::string tuning_summary(const std::vector<TuneReport>& reports, bool model);

}  // namespace nee
