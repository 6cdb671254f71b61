#include "tuner/runner.h"

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/subprocess.h"

namespace nee {

LocalRunner::LocalRunner(RunnerOptions options, std::string measure_program)
    : options_(options), program_(std::move(measure_program)) {
  if (program_.empty()) program_ = executable_dir() + "/nee-measure";
  if (!std::filesystem::exists(program_)) throw Error("measuring program '" + program_ + "' not found");
}

MeasureResult LocalRunner::measure(const BuildResult& build, const Candidate& candidate, uint64_t seed,
                                   double best_us) {
  MeasureResult result;
  if (!build.ok()) {
    result.status = MeasureStatus::build_error;
    result.error = build.error;
    return result;
  }
  const std::string workload_file = std::filesystem::path(build.artifact).parent_path() / "workload.json";
  {
    std::ofstream out(workload_file);
    out << candidate.workload.to_json().dump();
  }
  const ProcessResult p = run_process(
      {program_, "--library", build.artifact, "--symbol", build.symbol, "--workload", workload_file, "--seed",
       std::to_string(seed), "--repeats", std::to_string(options_.repeats), "--min-sample-ms",
       std::to_string(options_.min_sample_ms), "--threads", std::to_string(options_.threads), "--slow-cutoff-us",
       std::to_string(3 * best_us)},
      options_.timeout_seconds);
  if (p.timed_out) {
    result.status = MeasureStatus::timeout;
    result.error = "measurement exceeded " + std::to_string(static_cast<int>(options_.timeout_seconds)) + " s";
    return result;
  }
  if (!p.exited) {
    result.status = MeasureStatus::crash;
    result.error = std::string("kernel crashed: ") + strsignal(p.signal);
    return result;
  }
  const size_t line = p.output.rfind('{');
  try {
    if (line == std::string::npos) throw Error("no result");
    return MeasureResult::from_json(nlohmann::json::parse(p.output.substr(line)));
  } catch (const std::exception& e) {
    result.status = MeasureStatus::runtime_error;
    result.error = "nee-measure exited " + std::to_string(p.exit_code) + " without a result: " + p.output;
    return result;
  }
}

}  // namespace nee
