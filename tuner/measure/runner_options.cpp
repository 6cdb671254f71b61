#include "tuner/measure/runner_options.h"

#include "core/json_numbers.h"

namespace nee {

std::vector<std::string> RunnerOptions::measure_args() const {
  std::vector<std::string> args = {"--repeats",       std::to_string(repeats),       "--number",
                                   std::to_string(number), "--min-sample-ms", std::to_string(min_sample_ms),
                                   "--threads",       std::to_string(threads),       "--cache",
                                   to_string(cache)};
  return args;
}

nlohmann::json RunnerOptions::to_json() const {
  return {{"timeout_seconds", timeout_seconds}, {"repeats", repeats},         {"number", number},
          {"min_sample_ms", min_sample_ms},     {"cache", to_string(cache)}, {"threads", threads}};
}

RunnerOptions RunnerOptions::from_json(const nlohmann::json& j) {
  RunnerOptions o;
  o.timeout_seconds = j.at("timeout_seconds").get<double>();
  o.repeats = json_int32(j.at("repeats"), "repeats");
  o.number = json_int32(j.at("number"), "number");
  o.min_sample_ms = j.at("min_sample_ms").get<double>();
  // Batch folders packed before cache states held a flush_cache flag instead; its flush
  // (of the whole last-level cache before each sample) came nearest to cold.
  o.cache = j.contains("cache") ? cache_state_from_string(j.at("cache").get<std::string>())
                                : (j.at("flush_cache").get<bool>() ? CacheState::cold : CacheState::warm);
  o.threads = json_int32(j.at("threads"), "threads");
  return o;
}

}  // namespace nee
