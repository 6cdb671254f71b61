#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/profiling/run_profile.h"

namespace nee {

// The profile in Chrome's trace event format (chrome://tracing, ui.perfetto.dev): one
// complete ("X") event per run and per node execution, times in µs. All events are on one
// thread, so each node's span nests inside its run's span. A node event is named after
// the node, its category is the op, and its args hold op, provider, kernel, input and
// output types, FLOPs and the run's index.
nlohmann::json chrome_trace(const RunProfile& profile);

// Throws nee::Error naming `path` when a file cannot be written there (no such folder, or
// the path is a folder), so a bad path is refused before a long run rather than after.
void check_trace_path(const std::string& path);

// Writes chrome_trace(profile) to `path`; throws nee::Error naming the path on failure.
void write_chrome_trace(const RunProfile& profile, const std::string& path);

}  // namespace nee
