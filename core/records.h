#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/schedule_config.h"
#include "core/target.h"
#include "core/workload.h"

namespace nee {

// The typed records that flow between the tuner's stages (DESIGN.md, "Data flow").

struct Candidate {
  Workload workload;
  Target target;
  ScheduleConfig config;
  std::string strategy;  // "default", "random", "evolutionary", ...
  int trial = 0;
  std::optional<int64_t> parent_record;
};

struct BuildResult {
  std::string artifact;  // path of the shared library holding the kernel
  std::string symbol;    // the kernel's entry point (Halide _argv function prefix)
  std::string error;     // empty when the build succeeded
  double seconds = 0;
  bool ok() const { return error.empty(); }
};

enum class MeasureStatus { ok, build_error, runtime_error, wrong_result, timeout, crash };
std::string to_string(MeasureStatus s);
MeasureStatus measure_status_from_string(const std::string& s);

struct MeasureResult {
  MeasureStatus status = MeasureStatus::runtime_error;
  double median_us = 0, min_us = 0, stddev_us = 0;
  int repeats = 0;
  double max_abs_error = 0;  // largest difference from the reference on the check
  std::string error;

  nlohmann::json to_json() const;
  static MeasureResult from_json(const nlohmann::json& j);
};

// The strategies whose records are a search's picks: each the fastest of many noisy
// samples, so its first median reads low until re-measured (WorkloadTuner::confirm).
inline const std::vector<std::string>& search_pick_strategies() {
  static const std::vector<std::string> strategies = {"evolutionary", "random", "model"};
  return strategies;
}
inline bool is_search_pick(const std::string& strategy) {
  const std::vector<std::string>& s = search_pick_strategies();
  return std::find(s.begin(), s.end(), strategy) != s.end();
}

// Kernels are tuned alone and cold; in a model their neighbours leave the caches otherwise.
// One that ran slower there than its default schedule by more than this factor is not
// built (ResNeXt-50 tuned for 20 minutes ran 0.95x its default bundle; with 8 of its 28
// tuned kernels back to their defaults, 1.05x).
constexpr double kInModelMargin = 1.03;

// A kernel's time in a model run, the median over the runs of the summed times of the
// nodes it ran, µs, and the default schedule's kernel's in the same runs.
struct InModelTimes {
  double tuned_us = 0;
  double default_us = 0;
  bool slower() const { return tuned_us > kInModelMargin * default_us; }
};

struct TuningRecord {
  int64_t id = 0;
  Workload workload;
  Target target;
  ScheduleConfig config;
  MeasureResult result;
  std::string strategy;
  int trial = 0;
  std::optional<int64_t> parent_record;
  std::optional<double> predicted_us;  // the cost model's prediction, for model-guided proposals
  // The median of the interleaved re-measurement that confirmed this record (see
  // WorkloadTuner::confirm); when set, it ranks the record instead of result.median_us.
  std::optional<double> confirmed_us;
  // Its kernel timed in a whole-model run of the bundle that built it, against the default
  // schedule's kernel in the same alternating runs (nee-tune's bundle stage); unset where
  // it was never timed in a model.
  std::optional<InModelTimes> in_model;
  std::string created_at;  // ISO-8601, UTC
  std::string nee_version;
  std::string halide_version;

  // The time this record is ranked by among its workload's records.
  double ranked_us() const { return confirmed_us.value_or(result.median_us); }
  // Whether its kernel ran slower in the model than the default schedule's by more than
  // kInModelMargin: a bundle then builds the default schedule in its place.
  bool slower_in_model() const { return in_model && in_model->slower(); }
};

}  // namespace nee
