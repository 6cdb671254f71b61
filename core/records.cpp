#include "core/records.h"

#include "core/error.h"
#include "core/json_numbers.h"

namespace nee {

std::string to_string(MeasureStatus s) {
  switch (s) {
    case MeasureStatus::ok: return "ok";
    case MeasureStatus::build_error: return "build_error";
    case MeasureStatus::runtime_error: return "runtime_error";
    case MeasureStatus::wrong_result: return "wrong_result";
    case MeasureStatus::timeout: return "timeout";
    case MeasureStatus::crash: return "crash";
  }
  return "?";
}

MeasureStatus measure_status_from_string(const std::string& s) {
  for (MeasureStatus m : {MeasureStatus::ok, MeasureStatus::build_error, MeasureStatus::runtime_error,
                          MeasureStatus::wrong_result, MeasureStatus::timeout, MeasureStatus::crash}) {
    if (to_string(m) == s) return m;
  }
  throw Error("unknown measurement status '" + s + "'");
}

nlohmann::json MeasureResult::to_json() const {
  return {{"status", to_string(status)}, {"median_us", median_us}, {"min_us", min_us},
          {"stddev_us", stddev_us},      {"repeats", repeats},     {"max_abs_error", max_abs_error},
          {"error", error}};
}

MeasureResult MeasureResult::from_json(const nlohmann::json& j) {
  MeasureResult r;
  r.status = measure_status_from_string(j.at("status").get<std::string>());
  r.median_us = json_double_or(j, "median_us", 0.0);
  r.min_us = json_double_or(j, "min_us", 0.0);
  r.stddev_us = json_double_or(j, "stddev_us", 0.0);
  r.repeats = json_int32_or(j, "repeats", 0);
  r.max_abs_error = json_double_or(j, "max_abs_error", 0.0);
  r.error = j.value("error", "");
  return r;
}

}  // namespace nee
