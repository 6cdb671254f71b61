#pragma once
#include <string>

namespace nee {

struct BatchRunCounts {
  int measured = 0;          // this run
  int already_measured = 0;  // found in results.jsonl from an earlier run
};

// Measures every task of a batch folder that results.jsonl does not hold yet, each in a
// child `program` (nee-measure itself) under the manifest's time limit, and appends each
// result as one line, synced to disk before the next task starts: a kill loses only the
// task in flight, and a rerun measures only what is missing. Every line carries this
// machine's fingerprint for the target kind.
BatchRunCounts run_batch(const std::string& folder, const std::string& program);

}  // namespace nee
