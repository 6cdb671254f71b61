#include "runtime/profiling/chrome_trace.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace nee {

namespace {

nlohmann::json type_list(const std::vector<TensorType>& types) {
  nlohmann::json list = nlohmann::json::array();
  for (const TensorType& t : types) list.push_back(t.to_string());
  return list;
}

nlohmann::json complete_event(const std::string& name, const std::string& category, double start_us,
                              double duration_us, nlohmann::json args) {
  return {{"name", name}, {"cat", category}, {"ph", "X"},  {"ts", start_us},
          {"dur", duration_us}, {"pid", 1},   {"tid", 1}, {"args", std::move(args)}};
}

}  // namespace

nlohmann::json chrome_trace(const RunProfile& profile) {
  nlohmann::json events = nlohmann::json::array();
  events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"args", {{"name", "nee-run"}}}});
  for (size_t r = 0; r < profile.runs.size(); ++r) {
    const RunTimes& run = profile.runs[r];
    events.push_back(complete_event(fmt::format("run {}", r), "run", run.start_us, run.duration_us, {{"run", r}}));
    for (size_t i = 0; i < profile.nodes.size(); ++i) {
      const NodeProfile& n = profile.nodes[i];
      nlohmann::json args = {{"op", n.op},
                             {"provider", n.provider},
                             {"kernel", n.kernel},
                             {"inputs", type_list(n.inputs)},
                             {"outputs", type_list(n.outputs)},
                             {"flops", n.flops},
                             {"run", r}};
      events.push_back(complete_event(n.name, n.op, run.node_start_us[i], run.node_duration_us[i], std::move(args)));
    }
  }
  return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}};
}

void check_trace_path(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  const fs::path folder = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (!fs::is_directory(folder)) {
    throw Error(fmt::format("cannot write the profile to '{}': folder '{}' does not exist", path, folder.string()));
  }
  if (fs::is_directory(p)) throw Error(fmt::format("cannot write the profile to '{}': it is a folder", path));
}

void write_chrome_trace(const RunProfile& profile, const std::string& path) {
  check_trace_path(path);
  std::ofstream out(path);
  if (out) out << chrome_trace(profile).dump() << "\n";
  if (!out) throw Error(fmt::format("cannot write the profile to '{}': {}", path, std::strerror(errno)));
}

}  // namespace nee
