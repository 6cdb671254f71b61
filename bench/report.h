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

// The rate of the FLOPs the engine's kernel executes (EngineTiming::executed_flops) at
// its median time; the tables' GFLOP/s column is the workload's own (direct) count, the
// same for every engine.
double executed_gflops(const EngineTiming& t);
// executed_gflops over the FMA peak. Empty above 1, which no kernel reaches: the probe
// then measured the peak on a loaded machine, or the count is wrong; no report prints
// a share above 100%.
std::optional<double> share_of_peak(const EngineTiming& t, const MachinePeaks& peaks);
// The "% peak" cell: "74.7", "above" past the peak, "-" without peaks.
std::string share_of_peak_text(const EngineTiming& t, const std::optional<MachinePeaks>& peaks);

// The lines every report prints under a workload's figures: one per engine whose
// kernel executes another count than the direct one (Winograd), per engine whose
// executed rate is above the peak, per vendor library far below its usual share of
// peak (slow_peer_warning), and one when the machine was loaded while it measured.
struct TableNote {
  bool warning = false;  // the figures it concerns may mislead
  std::string text;
};
std::vector<TableNote> table_notes(const WorkloadComparison& c, const std::optional<MachinePeaks>& peaks);

// The per-workload table: engine, median GFLOP/s (direct count), p10..p90 GFLOP/s, the
// executed GFLOP/s and their share of the machine's measured FMA peak (when `peaks` is
// given), median ms, the speed ratio NEE-tuned / engine, and where each engine's code
// came from; then table_notes.
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
  LoadReading peaks_load;             // the machine's load while the probes ran
  std::string database;
  CompareOptions options;
  // nee-bench --gpu: the CUDA device (name, compute capability) and the versions of its
  // driver, runtime, cuBLAS and cuDNN; null on the CPU.
  nlohmann::json gpu;
};

nlohmann::json to_json(const RunInfo& info, const std::vector<WorkloadComparison>& comparisons,
                       const std::vector<std::string>& errors, const std::vector<TargetCheck>& checks);

}  // namespace nee::bench
