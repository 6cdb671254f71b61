#pragma once
#include <memory>
#include <string>

#include "tuner/measure/measuring_child.h"
#include "tuner/runners/runner.h"

namespace nee {

// Measures built candidates one at a time in a separate nee-measure process on this
// machine, so a crash or a hang costs only that candidate and is recorded with its status.
// CPU candidates share a process (MeasuringChild) unless shared_child is false; GPU and
// OpenCL ones get one each, so no device context outlives its candidate.
class LocalRunner : public Runner {
 public:
  // measure_program: nee-measure; empty: the one beside the running executable.
  explicit LocalRunner(RunnerOptions options, std::string measure_program = "", bool shared_child = true);

  std::string name() const override { return "local"; }
  DeviceFingerprint device(TargetKind kind) override { return measuring_device(kind); }
  void measure(const std::vector<MeasureTask>& tasks, double best_us, const ResultSink& sink) override;

  // One candidate. best_us: the best median so far (0: none).
  MeasureResult measure(const BuildResult& build, const Candidate& candidate, uint64_t seed, double best_us = 0);

 private:
  RunnerOptions options_;
  std::string program_;
  std::unique_ptr<MeasuringChild> shared_;  // null: a process per candidate
};

}  // namespace nee
