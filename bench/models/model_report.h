#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/models/model_bench.h"

namespace nee::bench {

struct ModelResult {
  std::string model;
  std::vector<EngineRun> engines;  // NEE first, then the peers
  double max_pairwise_error = 0;   // among the engines that ran
  std::string batch8;              // why batch-8 throughput is not measured
  std::string error;               // the model could not be benchmarked at all
};

// NEE's p50 latency over `peer`'s (> 1: NEE is slower); 0 when either was not timed.
double latency_ratio(const ModelResult& m, const std::string& peer);

// The terminal table of one model: p50/p90/p99 ms, start-up, peak RSS, NEE/peer ratio,
// and for an engine without times, "skipped: <reason>" or "DISAGREES: <reason>".
std::string format_model_table(const ModelResult& m);
std::string format_markdown(const std::vector<ModelResult>& results, const nlohmann::json& info);
nlohmann::json models_to_json(const std::vector<ModelResult>& results, const nlohmann::json& info);
// A bar chart of the NEE/peer latency ratios, one group of bars per model.
std::string ratio_chart_svg(const std::vector<ModelResult>& results);

}  // namespace nee::bench
