#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/records.h"
#include "tuner/measure/runner_options.h"

namespace nee {

// One compiled candidate, as a nee-measure child process reads it.
struct ChildMeasurement {
  std::string library;        // shared library holding the kernel
  std::string symbol;         // kernel symbol (without _argv)
  std::string workload_file;  // the workload as JSON
  uint64_t seed = 1;          // of the fresh random inputs
  double best_us = 0;         // the best median so far: far slower kernels get fewer samples (0: none)
  std::string reference_file;  // the expected output for the seed (empty: the child computes it)

  // One line of `nee-measure --serve`'s input.
  nlohmann::json to_json() const;
  static ChildMeasurement from_json(const nlohmann::json& j);
};

// Runs `command` (nee-measure, after the words of a launcher where there is one: an
// emulator, taskset) on one candidate under options.timeout_seconds. Whatever happens
// to the child becomes the result: a hang is timeout, a signal is crash, output without
// a result line is runtime_error. Used by the tuner's local runner and by nee-measure's
// own batch mode, so a crash costs one candidate in both.
MeasureResult measure_in_child(const std::vector<std::string>& command, const ChildMeasurement& m,
                               const RunnerOptions& options);

}  // namespace nee
