#include "tuner/measure/batch_manifest.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"

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
  t.seed = j.at("seed").get<uint64_t>();
  t.best_us = j.at("best_us").get<double>();
  t.strategy = j.at("strategy").get<std::string>();
  t.trial = j.at("trial").get<int>();
  if (!j.at("parent_record").is_null()) t.parent_record = j["parent_record"].get<int64_t>();
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
    if (j.at("format_version").get<int>() != kFormatVersion) {
      throw Error(fmt::format("format version {}, this build reads {}", j["format_version"].dump(), kFormatVersion));
    }
    BatchManifest m;
    m.nee_version = j.at("nee_version").get<std::string>();
    m.halide_version = j.at("halide_version").get<std::string>();
    m.halide_target = j.at("halide_target").get<std::string>();
    m.settings = RunnerOptions::from_json(j.at("settings"));
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

std::vector<BatchResult> read_batch_results(const std::string& folder, bool tolerate_cut_tail) {
  const std::string path = batch_results_path(folder);
  std::vector<BatchResult> results;
  std::ifstream in(path, std::ios::binary);
  if (!in) return results;
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
      results.push_back(BatchResult::from_json(nlohmann::json::parse(line)));
    } catch (const std::exception& e) {
      if (tolerate_cut_tail && end == std::string::npos) break;
      throw Error(fmt::format("{}:{}: not a measurement result: {}", path, number, e.what()));
    }
  }
  return results;
}

}  // namespace nee
