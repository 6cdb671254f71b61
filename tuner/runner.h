#pragma once
#include <string>

#include "core/records.h"

namespace nee {

struct RunnerOptions {
  double timeout_seconds = 60;  // per candidate: check plus timing
  int repeats = 7;
  double min_sample_ms = 20;
  int threads = 0;  // 0: the Halide runtime's default (all cores)
};

// Measures built candidates one at a time in a separate nee-measure process, so a crash
// or a hang costs only that candidate and is recorded with its status.
class LocalRunner {
 public:
  explicit LocalRunner(RunnerOptions options, std::string measure_program = "");
  // best_us: the best median so far (0: none); candidates far slower get fewer samples.
  MeasureResult measure(const BuildResult& build, const Candidate& candidate, uint64_t seed, double best_us = 0);

 private:
  RunnerOptions options_;
  std::string program_;
};

}  // namespace nee
