#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/records.h"
#include "tuner/report/convergence_svg.h"
#include "tuner/runner.h"
#include "tuning-db/tuning_database.h"

namespace nee {

struct TuneOptions {
  int trials = 64;               // measured candidates per workload (the default point included)
  double time_budget_s = 0;      // per workload; 0: no limit
  std::string strategy = "evolutionary";
  int build_jobs = 2;            // parallel compiles; measurement always runs alone
  int batch = 8;                 // candidates compiled together before they are measured
  double build_timeout_s = 120;
  RunnerOptions runner;
  // Where candidates are measured; null: a LocalRunner with `runner`. Records are stored
  // under the target given to tune_workload, whose device must be the runner's device().
  std::shared_ptr<Runner> measurer;
  uint64_t seed = 0;             // 0: from the clock
  std::string work_dir;          // scratch space for candidate libraries
  std::string report_dir;        // when set, a convergence plot per workload goes here
};

struct TuneReport {
  Workload workload;
  int measured = 0;  // this run
  int failed = 0;    // this run: build errors, crashes, timeouts, wrong results
  std::optional<TuningRecord> default_record;
  std::optional<TuningRecord> best;
  double seconds = 0;
  std::string strategy;
  std::vector<ConvergenceStep> convergence;  // one step per measurement of this run
};

// Tunes one workload: seeds the search with what the database already holds for it,
// measures the default point first if it never was, then proposes, builds (in parallel)
// and measures (alone) batches until the trial or time budget is spent or Ctrl-C.
// Every result is committed to the database as it arrives.
TuneReport tune_workload(TuningDatabase& db, const Workload& workload, const Target& target,
                         const TuneOptions& options);

}  // namespace nee
