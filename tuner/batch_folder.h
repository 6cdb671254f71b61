#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/records.h"
#include "tuner/measure/batch_manifest.h"
#include "tuner/runner.h"

namespace nee {

// Writes a self-contained batch folder (tuner/measure/batch_manifest.h) for built
// tasks: their libraries, workloads, the manifest and a copy of `measure_program`
// (empty: the nee-measure beside the running executable). Tasks whose build failed are
// left out. The folder must not exist yet or be empty. best_us: the best median known
// per workload key (absent: none), for nee-measure's cut of far slower candidates.
BatchManifest pack_batch_folder(const std::string& folder, const std::vector<MeasureTask>& tasks,
                                const std::string& halide_target, const RunnerOptions& options,
                                const std::map<std::string, double>& best_us, const std::string& measure_program = "");

// The folder's results as tuning records, each under the manifest's Halide target and
// the fingerprint of the machine that measured it, dated when it was measured (so
// importing twice adds nothing twice), with the confirmed times of confirmations.jsonl. Everything is read and checked before anything is
// returned; throws nee::Error naming the file (and line) of a missing or corrupt part.
std::vector<TuningRecord> batch_records(const std::string& folder);

}  // namespace nee
