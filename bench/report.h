#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/comparison.h"
#include "bench/probes/machine_peaks.h"

namespace nee::bench {

// A performance goal the bench reports on (never asserts): the speed ratio of NEE's
// tuned kernel over a peer at one shape, against a threshold.
struct TargetCheck {
  std::string description;     // e.g. "nee-tuned vs openblas at 1024x1024x1024 >= 1.0"
  std::optional<double> ratio;  // empty when the run did not measure both engines there
  double threshold = 0;
  std::string note;  // why there is no ratio, or that nee-tuned ran a default schedule
  bool met() const { return ratio && *ratio >= threshold; }
};

// Speed ratio of engine `a` over engine `b` (b's median time / a's): > 1 means a is
// faster. Empty when either was not timed.
std::optional<double> speed_ratio(const WorkloadComparison& c, const std::string& a, const std::string& b);

// NEE's tuned engine: "nee-tuned" on the CPU, "nee-tuned-<target>" in nee-bench --gpu.
bool is_nee_tuned(const std::string& engine);
// Speed ratio of the comparison's NEE-tuned engine over `engine`, the ratio every table,
// report and chart shows; empty when either was not timed.
std::optional<double> nee_speed_ratio(const WorkloadComparison& c, const std::string& engine);

// Tuned vs OpenBLAS at 1024 cubed >= 1.0, at each BERT shape >= 0.9, tuned vs Adams2019
// at 1024 cubed >= 3.
std::vector<TargetCheck> target_checks(const std::vector<WorkloadComparison>& comparisons);

// The per-workload table: engine, median GFLOP/s, p10..p90 GFLOP/s, the fraction of the
// machine's measured FMA peak (when `peaks` is given), median ms, the speed ratio
// NEE-tuned / engine, and where each engine's code came from.
std::string format_table(const WorkloadComparison& c, const std::optional<MachinePeaks>& peaks);
std::string format_checks(const std::vector<TargetCheck>& checks);

struct RunInfo {
  nlohmann::json machine;  // DeviceFingerprint of the host
  std::string halide_target;
  int threads = 0;
  std::string openblas_config;
  std::string onednn_version;
  std::string halide_version;
  std::optional<MachinePeaks> peaks;  // empty when the probes were not run
  std::string database;
  CompareOptions options;
  // nee-bench --gpu: the CUDA device (name, compute capability) and the versions of its
  // driver, runtime, cuBLAS and cuDNN; null on the CPU.
  nlohmann::json gpu;
};

nlohmann::json to_json(const RunInfo& info, const std::vector<WorkloadComparison>& comparisons,
                       const std::vector<std::string>& errors, const std::vector<TargetCheck>& checks);

}  // namespace nee::bench
