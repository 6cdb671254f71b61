#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/records.h"
#include "tuner/compile/object_cache.h"
#include "tuner/report/convergence_svg.h"
#include "tuner/runners/runner.h"
#include "tuning-db/tuning_database.h"

namespace nee {

struct TuneOptions {
  int trials = 64;               // measured candidates per workload (the default point included)
  double time_budget_s = 0;      // seconds from the call, re-measurement included; 0: no limit
  std::string strategy = "evolutionary";
  int build_jobs = 2;            // parallel compiles; measurement always runs alone
  int batch = 8;                 // candidates compiled together before they are measured
  double build_timeout_s = 120;
  // Halide's Adams2019 and Mullapudi2016 schedules, measured once per workload and target
  // as extra candidates (not counted in `trials`), for families that have an
  // autoscheduler input on the CPU.
  bool baselines = true;
  // The bench measured Adams2019's search over a large matmul taking minutes here.
  double baseline_build_timeout_s = 900;
  int transfer_seeds = 8;        // at most this many points from similar workloads or machines; 0: no transfer
  // false: the space's default point is not measured first, so a search starts from
  // nothing; a convergence study's pure random-search baseline.
  bool measure_default = true;
  int confirm_top = 3;           // at the end, re-measure this many best points and the default (0: none)
  int confirm_rounds = 3;        // interleaved rounds of that re-measurement
  RunnerOptions runner;
  // Where candidates are measured; null: a LocalRunner with `runner`. Records are stored
  // under the target given to tune_workload, whose device must be the runner's device().
  std::shared_ptr<Runner> measurer;
  uint64_t seed = 0;             // 0: from the clock
  std::string work_dir;          // scratch space for candidate libraries
  ObjectCache object_cache;      // compiled objects kept across rounds and runs; off by default
  std::string report_dir;        // when set, convergence plots and CSVs per workload (and model) go here
};

struct TuneReport {
  Workload workload;
  int count = 1;        // nodes of the model computing this workload
  int measured = 0;     // this run, baselines not included
  int failed = 0;       // this run: build errors, crashes, timeouts, wrong results
  int transferred = 0;  // this run: measured points seeded from similar workloads or machines
  int confirmed = 0;    // this run: points re-measured at the end (WorkloadTuner::confirm)
  std::optional<TuningRecord> default_record;
  std::optional<TuningRecord> best;  // baselines included: what a bundle would use
  std::map<std::string, TuningRecord> baselines;  // autoscheduler name -> its ok record
  double seconds = 0;
  std::string strategy;
  std::vector<ConvergenceStep> convergence;  // one step per measurement of this run
};

// Tunes one workload: seeds the search with what the database already holds for it,
// measures the default point and the autoscheduler baselines first if they never were,
// then points transferred from similar workloads, then proposes, builds (in parallel)
// and measures (alone) batches until the trial or time budget is spent or Ctrl-C, and
// then, unless interrupted, re-measures its best points (WorkloadTuner::confirm): the
// search leaves the time budget the time that is expected to take, and past the budget's
// end only its first pass runs. Every result is committed to the database as it arrives.
TuneReport tune_workload(TuningDatabase& db, const Workload& workload, const Target& target,
                         const TuneOptions& options);

}  // namespace nee
