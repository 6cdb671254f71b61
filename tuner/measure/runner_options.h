#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/target.h"

namespace nee {

// How every candidate is measured, wherever it runs: the tuner's settings, passed to
// each nee-measure child as arguments and stored in a batch folder's manifest.
struct RunnerOptions {
  double timeout_seconds = 60;  // per candidate: check plus timing
  int repeats = 7;              // timed samples; the median is stored
  int number = 1;               // calls per sample, at least (more when min_sample_ms asks)
  double min_sample_ms = 20;    // calls per sample grow until a sample lasts this long
  CacheState cache = CacheState::warm;  // the target's: cold evicts the kernel's buffers before each call
  int threads = 0;  // 0: the Halide runtime's default (all cores)

  // The nee-measure arguments for these settings (all but the timeout, which the
  // parent enforces).
  std::vector<std::string> measure_args() const;
  nlohmann::json to_json() const;
  static RunnerOptions from_json(const nlohmann::json& j);
};

}  // namespace nee
