#pragma once
#include <memory>
#include <string>
#include <vector>

#include "bench/engines/engine.h"
#include "tuning-db/tuning_database.h"

namespace nee::bench {

// Engine names the bench knows.
std::vector<std::string> engine_names();
// The engines a run compares on an operator family by default: those that cover it
// (Halide's autoschedulers are wired up for matmul only, OpenBLAS has no convolution).
std::vector<std::string> default_engine_names(const std::string& op);

// Creates the named engines, sharing one kernel workspace; every engine runs with
// `threads` threads. `db` must outlive the engines. Throws nee::Error on an unknown name.
std::vector<std::unique_ptr<Engine>> make_engines(const std::vector<std::string>& names, int threads,
                                                  const TuningDatabase* db);

}  // namespace nee::bench
