#include "tuner/runners/local_runner.h"

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/subprocess.h"
#include "tuner/measure/child_measurement.h"

namespace nee {

LocalRunner::LocalRunner(RunnerOptions options, std::string measure_program, bool shared_child)
    : options_(options), program_(std::move(measure_program)) {
  if (program_.empty()) program_ = executable_dir() + "/nee-measure";
  if (!std::filesystem::exists(program_)) throw Error("measuring program '" + program_ + "' not found");
  if (shared_child) shared_ = std::make_unique<MeasuringChild>(std::vector<std::string>{program_}, options_);
}

MeasureResult LocalRunner::measure(const BuildResult& build, const Candidate& candidate, uint64_t seed,
                                   double best_us) {
  if (!build.ok()) {
    MeasureResult result;
    result.status = MeasureStatus::build_error;
    result.error = build.error;
    return result;
  }
  const std::string workload_file = std::filesystem::path(build.artifact).parent_path() / "workload.json";
  {
    std::ofstream out(workload_file);
    out << candidate.workload.to_json().dump();
  }
  const ChildMeasurement m{build.artifact, build.symbol, workload_file, seed, best_us, ""};
  if (shared_ && candidate.target.kind() == TargetKind::cpu) return shared_->measure(m);
  return measure_in_child({program_}, m, options_);
}

void LocalRunner::measure(const std::vector<MeasureTask>& tasks, double best_us, const ResultSink& sink) {
  for (size_t i = 0; i < tasks.size(); ++i) {
    const MeasureResult r = measure(tasks[i].build, tasks[i].candidate, tasks[i].seed, best_us);
    if (r.status == MeasureStatus::ok && (best_us == 0 || r.median_us < best_us)) best_us = r.median_us;
    if (!sink(i, r)) return;
  }
}

}  // namespace nee
