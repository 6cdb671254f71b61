#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nee {

// How every candidate is measured, wherever it runs: the tuner's settings, passed to
// each nee-measure child as arguments and stored in a batch folder's manifest.
struct RunnerOptions {
  double timeout_seconds = 60;  // per candidate: check plus timing
  int repeats = 7;              // timed samples; the median is stored
  int number = 1;               // calls per sample, at least (more when min_sample_ms asks)
  double min_sample_ms = 20;    // calls per sample grow until a sample lasts this long
  // Write a buffer larger than the last-level cache before each sample. Off by default:
  // only the first call of a sample starts cold, so it changes little unless number is
  // 1 and min_sample_ms is 0, and in a model a layer's input was usually just written
  // by the layer before it, so warm-cache times are the ones a model run sees.
  bool flush_cache = false;
  int threads = 0;  // 0: the Halide runtime's default (all cores)

  // The nee-measure arguments for these settings (all but the timeout, which the
  // parent enforces).
  std::vector<std::string> measure_args() const;
  nlohmann::json to_json() const;
  static RunnerOptions from_json(const nlohmann::json& j);
};

}  // namespace nee
