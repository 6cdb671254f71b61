#include "tuner/measure/child_measurement.h"

#include <cstring>

#include "core/error.h"
#include "core/subprocess.h"

namespace nee {

nlohmann::json ChildMeasurement::to_json() const {
  return {{"library", library}, {"symbol", symbol},   {"workload_file", workload_file},
          {"seed", seed},       {"best_us", best_us}, {"reference_file", reference_file}};
}

ChildMeasurement ChildMeasurement::from_json(const nlohmann::json& j) {
  return {j.at("library").get<std::string>(), j.at("symbol").get<std::string>(),
          j.at("workload_file").get<std::string>(), j.at("seed").get<uint64_t>(),
          j.at("best_us").get<double>(), j.at("reference_file").get<std::string>()};
}

MeasureResult measure_in_child(const std::vector<std::string>& command, const ChildMeasurement& m,
                               const RunnerOptions& options) {
  std::vector<std::string> argv = command;
  argv.insert(argv.end(), {"--library", m.library, "--symbol", m.symbol, "--workload", m.workload_file, "--seed",
                           std::to_string(m.seed), "--best-us", std::to_string(m.best_us)});
  if (!m.reference_file.empty()) {
    argv.push_back("--reference");
    argv.push_back(m.reference_file);
  }
  const std::vector<std::string> settings = options.measure_args();
  argv.insert(argv.end(), settings.begin(), settings.end());
  const ProcessResult p = run_process(argv, options.timeout_seconds);
  MeasureResult result;
  if (p.timed_out) {
    result.status = MeasureStatus::timeout;
    result.error = "measurement exceeded " + std::to_string(static_cast<int>(options.timeout_seconds)) + " s";
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
