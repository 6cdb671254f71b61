#pragma once
#include <string>
#include <vector>

namespace nee {

struct BatchRunCounts {
  int measured = 0;          // this run
  int already_measured = 0;  // found in results.jsonl from an earlier run
  int confirmed = 0;         // tasks re-measured to confirm their times, this run
};

// Measures every task of a batch folder that results.jsonl does not hold yet, each in a
// child `command` (nee-measure itself, after a launcher's words where it has one) under the manifest's time limit, and appends each
// result as one line, synced to disk before the next task starts: a kill loses only the
// task in flight, and a rerun measures only what is missing. Every line carries this
// machine's fingerprint for the target kind. The tasks of one workload and seed share
// one reference output, computed here before the first of them and kept in the
// folder's references/. Then, as the manifest's BatchConfirmation asks, the chosen tasks
// of each workload are re-measured and their confirmed times appended to
// confirmations.jsonl, a workload's lines together; a rerun confirms only workloads
// with a chosen task not confirmed yet.
BatchRunCounts run_batch(const std::string& folder, const std::vector<std::string>& command);

}  // namespace nee
