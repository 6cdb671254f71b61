#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/models/model_bench.h"

namespace nee::bench {

// The engines' runs of one model at a batch above 1, for throughput.
struct ThroughputResult {
  int batch = 8;
  std::vector<EngineRun> engines;  // NEE first, then the peers
  double max_pairwise_error = 0;   // among the engines that ran
  std::string not_measured;        // why there are no runs (--no-batch8, a bundle that failed to build)
};

struct ModelResult {
  std::string model;
  std::vector<EngineRun> engines;  // at batch 1: NEE first, then the peers
  double max_pairwise_error = 0;   // among the engines that ran
  ThroughputResult throughput;
  std::string error;               // the model could not be benchmarked at all
};

// NEE's p50 latency over `peer`'s at batch 1 (> 1: NEE is slower); 0 when either was not timed.
double latency_ratio(const ModelResult& m, const std::string& peer);
// NEE's throughput over `peer`'s at the throughput batch (> 1: NEE is faster); 0 when
// either was not timed.
double throughput_ratio(const ModelResult& m, const std::string& peer);

// The terminal table of one model: at batch 1, p50/p90/p99 ms, start-up from process
// start and from session creation, peak RSS and the NEE/peer latency ratio; at the
// throughput batch, samples/s, p50/p90 ms and the NEE/peer throughput ratio; for an
// engine without times, "skipped: <reason>" or "DISAGREES: <reason>"; under an engine
// measured on a loaded machine, a warning (the Markdown puts it in the status cell).
std::string format_model_table(const ModelResult& m);
std::string format_markdown(const std::vector<ModelResult>& results, const nlohmann::json& info);
nlohmann::json models_to_json(const std::vector<ModelResult>& results, const nlohmann::json& info);
// A bar chart of the NEE/peer latency ratios, one group of bars per model.
std::string ratio_chart_svg(const std::vector<ModelResult>& results);

}  // namespace nee::bench
