#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/records.h"
#include "tuner/measure/runner_options.h"

namespace nee {

// A batch folder: candidates built ahead of time, to be measured where the tuner cannot
// run (no Halide, no LLVM, no way back to the build host). It is self-contained:
//
//   manifest.json         this record
//   bin/nee-measure       the measuring program, needing only the C library
//   candidates/<id>/      kernel.so and workload.json of each task
//   results.jsonl         written by `nee-measure --batch DIR`, one BatchResult a line
//   references/           the expected output per workload and seed, computed once
//   confirmations.jsonl   then the chosen tasks' re-measured times, one ConfirmedTime a
//                         line (BatchConfirmation)
struct BatchTask {
  std::string id;  // unique in the folder; names the candidate's subfolder
  Workload workload;
  ScheduleConfig config;
  std::string symbol;
  std::string library;        // relative to the folder
  std::string workload_file;  // relative to the folder
  uint64_t seed = 1;
  double best_us = 0;  // the workload's best median when packed: far slower candidates get fewer samples
  // Provenance for the tuning record the result becomes.
  std::string strategy;
  int trial = 0;
  std::optional<int64_t> parent_record;

  nlohmann::json to_json() const;
  static BatchTask from_json(const nlohmann::json& j);
};

// What nee-measure --batch re-measures once every task is measured, as the tuner's
// --confirm does (WorkloadTuner::confirm): per workload, the default point and the `top`
// fastest other tasks, each measured once a round for `rounds` rounds in a rotated
// order; each one's median of its rounds' medians becomes its confirmed time, which
// ranks it in the database. Imported without it, a search's pick ranks below the
// default point, and no bundle takes it. top 0: none.
struct BatchConfirmation {
  int top = 0;
  int rounds = 3;

  nlohmann::json to_json() const;
  static BatchConfirmation from_json(const nlohmann::json& j);
};

struct BatchManifest {
  static constexpr int kFormatVersion = 1;
  std::string nee_version;
  std::string halide_version;
  std::string halide_target;  // what the candidates were compiled for
  RunnerOptions settings;
  BatchConfirmation confirmation;
  std::vector<BatchTask> tasks;

  // Writes manifest.json into `folder`; read() throws nee::Error naming the file and the
  // problem when it is missing, not JSON, of another format version or incomplete.
  void write(const std::string& folder) const;
  static BatchManifest read(const std::string& folder);
  const BatchTask& task(const std::string& id) const;  // throws nee::Error when absent
};

// One line of results.jsonl: what a task measured, on which device, when.
struct BatchResult {
  std::string task;
  DeviceFingerprint device;
  std::string measured_at;  // ISO-8601 UTC, as the database stores created_at
  MeasureResult result;

  nlohmann::json to_json() const;
  static BatchResult from_json(const nlohmann::json& j);
};

// One line of confirmations.jsonl: a chosen task's re-measurement. result is ok with
// median_us the median of round_medians_us, or the first failed round's result.
struct ConfirmedTime {
  std::string task;
  MeasureResult result;
  std::vector<double> round_medians_us;

  nlohmann::json to_json() const;
  static ConfirmedTime from_json(const nlohmann::json& j);
};

std::string batch_results_path(const std::string& folder);
std::string batch_confirmations_path(const std::string& folder);
// Every line of the folder's results.jsonl (none when the file is absent). Throws
// nee::Error naming the file and line of the first one that is not a result. A last
// line without its newline was cut by a kill and is ignored when `tolerate_cut_tail`.
std::vector<BatchResult> read_batch_results(const std::string& folder, bool tolerate_cut_tail = false);
// The same for confirmations.jsonl.
std::vector<ConfirmedTime> read_batch_confirmations(const std::string& folder, bool tolerate_cut_tail = false);

}  // namespace nee
