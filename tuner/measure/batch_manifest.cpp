#include "tuner/measure/batch_manifest.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/json_numbers.h"

namespace nee {

nlohmann::json BatchTask::to_json() const {
  return {{"id", id},
          {"workload", workload.to_json()},
          {"schedule", config.to_json()},
          {"symbol", symbol},
          {"library", library},
          {"workload_file", workload_file},
          {"seed", seed},
          {"best_us", best_us},
          {"strategy", strategy},
          {"trial", trial},
          {"parent_record", parent_record ? nlohmann::json(*parent_record) : nlohmann::json()}};
}

BatchTask BatchTask::from_json(const nlohmann::json& j) {
  BatchTask t;
  t.id = j.at("id").get<std::string>();
  t.workload = Workload::from_json(j.at("workload"));
  t.config = ScheduleConfig::from_json(j.at("schedule"));
  t.symbol = j.at("symbol").get<std::string>();
  t.library = j.at("library").get<std::string>();
  t.workload_file = j.at("workload_file").get<std::string>();
  t.seed = json_uint(j.at("seed"), "seed");
  t.best_us = j.at("best_us").get<double>();
  t.strategy = j.at("strategy").get<std::string>();
  t.trial = json_int32(j.at("trial"), "trial");
  if (!j.at("parent_record").is_null()) t.parent_record = json_int(j["parent_record"], "parent_record");
  return t;
}

void BatchManifest::write(const std::string& folder) const {
  nlohmann::json tasks_json = nlohmann::json::array();
  for (const BatchTask& t : tasks) tasks_json.push_back(t.to_json());
  const nlohmann::json j = {{"format", "nee-measure-batch"},
                            {"format_version", kFormatVersion},
                            {"nee_version", nee_version},
                            {"halide_version", halide_version},
                            {"halide_target", halide_target},
                            {"settings", settings.to_json()},
                            {"confirmation", confirmation.to_json()},
                            {"tasks", tasks_json}};
  const std::string path = folder + "/manifest.json";
  std::ofstream out(path);
  out << j.dump(2) << '\n';
  out.close();
  if (!out) throw Error("writing " + path + " failed");
}

BatchManifest BatchManifest::read(const std::string& folder) {
  const std::string path = folder + "/manifest.json";
  if (!std::filesystem::is_directory(folder)) throw Error("batch folder '" + folder + "' does not exist");
  std::ifstream in(path);
  if (!in) throw Error("'" + folder + "' is not a batch folder: it has no manifest.json");
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    if (j.value("format", "") != "nee-measure-batch") throw Error("not a nee-measure batch manifest");
    if (json_int(j.at("format_version"), "format_version") != kFormatVersion) {
      throw Error(fmt::format("format version {}, this build reads {}", j["format_version"].dump(), kFormatVersion));
    }
    BatchManifest m;
    m.nee_version = j.at("nee_version").get<std::string>();
    m.halide_version = j.at("halide_version").get<std::string>();
    m.halide_target = j.at("halide_target").get<std::string>();
    m.settings = RunnerOptions::from_json(j.at("settings"));
    // Folders packed before confirmation existed ask for none.
    if (j.contains("confirmation")) m.confirmation = BatchConfirmation::from_json(j.at("confirmation"));
    for (const nlohmann::json& t : j.at("tasks")) m.tasks.push_back(BatchTask::from_json(t));
    return m;
  } catch (const std::exception& e) {
    throw Error(path + ": " + e.what());
  }
}

const BatchTask& BatchManifest::task(const std::string& id) const {
  for (const BatchTask& t : tasks) {
    if (t.id == id) return t;
  }
  throw Error("the batch manifest has no task '" + id + "'");
}

nlohmann::json BatchResult::to_json() const {
  return {{"task", task}, {"device", device.to_json()}, {"measured_at", measured_at}, {"result", result.to_json()}};
}

BatchResult BatchResult::from_json(const nlohmann::json& j) {
  BatchResult r;
  r.task = j.at("task").get<std::string>();
  r.device = DeviceFingerprint::from_json(j.at("device"));
  r.measured_at = j.at("measured_at").get<std::string>();
  r.result = MeasureResult::from_json(j.at("result"));
  return r;
}

std::string batch_results_path(const std::string& folder) { return folder + "/results.jsonl"; }

namespace {

// Every line of a JSON-lines file, through `parse` (none when the file is absent).
// Throws nee::Error naming the file and line of the first one `parse` refuses, saying it
// is not `what`; a last line without its newline was cut by a kill and is ignored when
// `tolerate_cut_tail`.
template <typename T>
std::vector<T> read_json_lines(const std::string& path, bool tolerate_cut_tail, const char* what,
                               T (*parse)(const nlohmann::json&)) {
  std::vector<T> lines;
  std::ifstream in(path, std::ios::binary);
  if (!in) return lines;
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  size_t start = 0;
  for (int number = 1; start < all.size(); ++number) {
    const size_t end = all.find('\n', start);
    const std::string line = all.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? all.size() : end + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      lines.push_back(parse(nlohmann::json::parse(line)));
    } catch (const std::exception& e) {
      if (tolerate_cut_tail && end == std::string::npos) break;
      throw Error(fmt::format("{}:{}: not {}: {}", path, number, what, e.what()));
    }
  }
  return lines;
}

}  // namespace

std::vector<BatchResult> read_batch_results(const std::string& folder, bool tolerate_cut_tail) {
  return read_json_lines(batch_results_path(folder), tolerate_cut_tail, "a measurement result",
                         &BatchResult::from_json);
}

nlohmann::json BatchConfirmation::to_json() const { return {{"top", top}, {"rounds", rounds}}; }

BatchConfirmation BatchConfirmation::from_json(const nlohmann::json& j) {
  BatchConfirmation c;
  c.top = json_int32(j.at("top"), "top");
  c.rounds = json_int32(j.at("rounds"), "rounds");
  if (c.top < 0 || c.rounds < 1) throw Error("confirmation needs top >= 0 and rounds >= 1");
  return c;
}

nlohmann::json ConfirmedTime::to_json() const {
  return {{"task", task}, {"result", result.to_json()}, {"round_medians_us", round_medians_us}};
}

ConfirmedTime ConfirmedTime::from_json(const nlohmann::json& j) {
  ConfirmedTime c;
  c.task = j.at("task").get<std::string>();
  c.result = MeasureResult::from_json(j.at("result"));
  c.round_medians_us = j.at("round_medians_us").get<std::vector<double>>();
  return c;
}

std::string batch_confirmations_path(const std::string& folder) { return folder + "/confirmations.jsonl"; }

std::vector<ConfirmedTime> read_batch_confirmations(const std::string& folder, bool tolerate_cut_tail) {
  return read_json_lines(batch_confirmations_path(folder), tolerate_cut_tail, "a confirmed time",
                         &ConfirmedTime::from_json);
}

}  // namespace nee
