#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/records.h"
#include "tuner/compile/object_cache.h"
#include "tuner/measure/batch_manifest.h"
#include "tuner/measure/runner_options.h"
#include "tuning-db/tuning_database.h"

namespace nee {

// `nee-tune pack`: candidates built ahead of time into a batch folder, for a machine the
// tuner cannot run on (tuner/measure/batch_manifest.h).
struct PackRequest {
  std::vector<Workload> workloads;
  std::string halide_target;  // what to compile for; the measuring machine is not known yet
  int count = 8;              // candidates per workload, the default point first
  std::string folder;
  std::string strategy = "evolutionary";
  uint64_t seed = 1;
  int build_jobs = 2;
  double build_timeout_s = 120;
  ObjectCache object_cache;  // off by default
  RunnerOptions runner;  // how the folder's nee-measure will measure
  // The nee-measure copied into the folder, built for the kernels' architecture (empty:
  // the one beside the running executable).
  std::string measure_program;
  BatchConfirmation confirmation;  // what it re-measures at the end
};

struct PackReport {
  int packed = 0;
  int build_errors = 0;  // left out of the folder, listed on stderr
};

// Seeds the search with every record of each workload on any device with this Halide
// target (records from other devices steer the search; none counts as measured on the
// measuring machine), proposes `count` points no such record holds, builds them and
// writes the folder.
PackReport pack_candidates(const TuningDatabase& db, const PackRequest& request);

}  // namespace nee
