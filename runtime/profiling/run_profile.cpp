#include "runtime/profiling/run_profile.h"

#include <fmt/format.h>

#include "core/error.h"
#include "runtime/node_flops.h"

namespace nee {

namespace {

std::vector<TensorType> types_of(const Graph& graph, const std::vector<std::string>& names) {
  std::vector<TensorType> types;
  for (const std::string& name : names) {
    if (!name.empty()) types.push_back(graph.type_of(name));
  }
  return types;
}

double microseconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::micro>(d).count();
}

}  // namespace

RunProfile start_profile(const Session& session) {
  const Graph& graph = session.graph();
  const std::vector<Placement> placements = session.placements();
  if (placements.size() != graph.nodes().size()) {
    throw Error(fmt::format("cannot profile a session that is not prepared ({} of {} nodes bound)",
                            placements.size(), graph.nodes().size()));
  }
  RunProfile profile;
  for (size_t i = 0; i < placements.size(); ++i) {
    const Node& node = graph.nodes()[i];
    const Placement& p = placements[i];
    profile.nodes.push_back(NodeProfile{p.node, p.op, p.provider, p.kernel, types_of(graph, node.inputs),
                                        types_of(graph, node.outputs), node_flops(graph, node)});
  }
  return profile;
}

void record_run(RunProfile& profile, const Session& session, std::chrono::steady_clock::time_point start,
                std::chrono::steady_clock::time_point stop) {
  const std::vector<double> durations = session.node_times_us();
  const auto& starts = session.node_starts();
  if (durations.size() != profile.nodes.size() || starts.size() != profile.nodes.size()) {
    throw Error(fmt::format("the session ran {} nodes, the profile describes {}", durations.size(),
                            profile.nodes.size()));
  }
  if (profile.runs.empty()) profile.origin = start;
  RunTimes run;
  run.start_us = microseconds(start - profile.origin);
  run.duration_us = microseconds(stop - start);
  run.node_duration_us = durations;
  for (const auto& s : starts) run.node_start_us.push_back(microseconds(s - profile.origin));
  profile.runs.push_back(std::move(run));
}

}  // namespace nee
