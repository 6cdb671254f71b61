#include "tuner/measure/runner_options.h"

namespace nee {

std::vector<std::string> RunnerOptions::measure_args() const {
  std::vector<std::string> args = {"--repeats",       std::to_string(repeats),       "--number",
                                   std::to_string(number), "--min-sample-ms", std::to_string(min_sample_ms),
                                   "--threads",       std::to_string(threads)};
  if (flush_cache) args.push_back("--flush-cache");
  return args;
}

nlohmann::json RunnerOptions::to_json() const {
  return {{"timeout_seconds", timeout_seconds}, {"repeats", repeats},         {"number", number},
          {"min_sample_ms", min_sample_ms},     {"flush_cache", flush_cache}, {"threads", threads}};
}

RunnerOptions RunnerOptions::from_json(const nlohmann::json& j) {
  RunnerOptions o;
  o.timeout_seconds = j.at("timeout_seconds").get<double>();
  o.repeats = j.at("repeats").get<int>();
  o.number = j.at("number").get<int>();
  o.min_sample_ms = j.at("min_sample_ms").get<double>();
  o.flush_cache = j.at("flush_cache").get<bool>();
  o.threads = j.at("threads").get<int>();
  return o;
}

}  // namespace nee
