#pragma once
#include <vector>

#include "tuner/scheduling/task_scheduler.h"
#include "tuner/scheduling/tuning_loop.h"

namespace nee {

struct ModelTuneOptions {
  // Measured candidates over the whole model; 0: TuneOptions::trials per workload times
  // the number of workloads. TuneOptions::trials still caps each workload.
  int64_t total_trials = 0;
  SchedulerOptions scheduler;
};

struct ModelTuneReport {
  std::vector<TuneReport> workloads;  // in the order given, each with its count
  int rounds = 0;
  bool stopped_early = false;  // no workload was still improving (TaskScheduler::converged)
  double seconds = 0;
  // The estimated model time (running_model_estimate) after each measurement, from the
  // first at which every workload has a time; with a report folder it is written to
  // model-<strategy>.svg and .csv there.
  std::vector<ConvergenceStep> convergence;
};

// Tunes a model's workloads (each computed by `counts[i]` nodes) in rounds of
// TuneOptions::batch candidates that a TaskScheduler gives to the workload where they
// pay most. TuneOptions::time_budget_s bounds the whole call, the re-measurement of the
// best points included (the workloads of most time first, none started past the budget's
// end, which ends a started one after its first pass). Each workload keeps its
// tuning state across its rounds, so no schedule is measured twice.
ModelTuneReport tune_model(TuningDatabase& db, const std::vector<Workload>& workloads, const std::vector<int>& counts,
                           const Target& target, const TuneOptions& options, const ModelTuneOptions& model_options);

}  // namespace nee
