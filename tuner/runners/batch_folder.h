#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/records.h"
#include "tuner/measure/batch_manifest.h"
#include "tuner/runners/runner.h"
#include "tuning-db/tuning_database.h"

namespace nee {

// Writes a self-contained batch folder (tuner/measure/batch_manifest.h) for built
// tasks: their libraries, workloads, the manifest and a copy of `measure_program`
// (empty: the nee-measure beside the running executable). Tasks whose build failed are
// left out. The folder must not exist yet or be empty. best_us: the best median known
// per workload key (absent: none), for nee-measure's cut of far slower candidates.
BatchManifest pack_batch_folder(const std::string& folder, const std::vector<MeasureTask>& tasks,
                                const std::string& halide_target, const RunnerOptions& options,
                                const std::map<std::string, double>& best_us, const std::string& measure_program = "");

// A batch task's result as a tuning record, and what its re-measurement at the end of
// the batch gave (confirmations.jsonl), where it was re-measured.
struct BatchRecord {
  TuningRecord record;
  std::optional<MeasureResult> confirmation;
};

// The folder's results as tuning records, each under the manifest's Halide target and
// the fingerprint of the machine that measured it, dated when it was measured (so
// importing twice adds nothing twice). Everything is read and checked before anything is
// returned; throws nee::Error naming the file (and line) of a missing or corrupt part.
std::vector<BatchRecord> batch_records(const std::string& folder);

struct BatchImportCounts {
  int added = 0;
  int already_present = 0;
  int confirmed = 0;  // confirmed times stored, or failed re-measurements marked
};

// Adds the records the database lacks, then applies each confirmation as the tuner's
// does (TuningDatabase::set_confirmed_us, or set_failed_on_recheck) to the stored
// record, whether this import or an earlier one stored it: a folder imported before its
// confirmation rounds ran gets them on the next import.
BatchImportCounts import_batch_records(TuningDatabase& db, const std::vector<BatchRecord>& records);

}  // namespace nee
