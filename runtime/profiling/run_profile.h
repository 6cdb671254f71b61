#pragma once
#include <chrono>
#include <string>
#include <vector>

#include "core/workload.h"
#include "runtime/session.h"

namespace nee {

// One executed node as a profile describes it.
struct NodeProfile {
  std::string name, op, provider, kernel;
  std::vector<TensorType> inputs, outputs;  // omitted optional inputs and outputs are left out
  double flops = 0;                         // node_flops()
};

// One run's times, in µs from the start of the profile's first run.
struct RunTimes {
  double start_us = 0, duration_us = 0;
  std::vector<double> node_start_us, node_duration_us;  // per node, in execution order
};

// Repeated runs of one prepared session: its nodes in execution order and each run's times.
struct RunProfile {
  std::vector<NodeProfile> nodes;
  std::vector<RunTimes> runs;
  std::chrono::steady_clock::time_point origin;  // start of the first recorded run
};

// The nodes of a prepared session, with their placements and FLOPs; no runs yet.
RunProfile start_profile(const Session& session);

// Appends the session's last run, which the caller timed from `start` to `stop` around
// Session::run(). Throws nee::Error when the session does not match the profile.
void record_run(RunProfile& profile, const Session& session, std::chrono::steady_clock::time_point start,
                std::chrono::steady_clock::time_point stop);

}  // namespace nee
