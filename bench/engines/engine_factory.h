#pragma once
#include <memory>
#include <string>
#include <vector>

#include "bench/engines/engine.h"
#include "tuning-db/tuning_database.h"

namespace nee::bench {

// Engine names the bench knows, in the default order.
std::vector<std::string> engine_names();

// Creates the named engines, sharing one kernel workspace; every engine runs with
// `threads` threads. `db` must outlive the engines. Throws nee::Error on an unknown name.
std::vector<std::unique_ptr<Engine>> make_engines(const std::vector<std::string>& names, int threads,
                                                  const TuningDatabase* db);

}  // namespace nee::bench
