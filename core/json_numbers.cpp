#include "core/json_numbers.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "core/error.h"

namespace nee {

int64_t json_int(const nlohmann::json& j, const std::string& what) {
  if (!j.is_number_integer() || (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t{INT64_MAX})) {
    throw Error(fmt::format("{} is not a 64-bit integer: {}", what, j.dump().substr(0, 100)));
  }
  return j.get<int64_t>();
}

uint64_t json_uint(const nlohmann::json& j, const std::string& what) {
  if (!j.is_number_unsigned() && !(j.is_number_integer() && j.get<int64_t>() >= 0)) {
    throw Error(fmt::format("{} is not a non-negative 64-bit integer: {}", what, j.dump().substr(0, 100)));
  }
  return j.get<uint64_t>();
}

int json_int32(const nlohmann::json& j, const std::string& what) {
  const int64_t v = json_int(j, what);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
    throw Error(fmt::format("{} ({}) is beyond a 32-bit integer's range", what, v));
  }
  return static_cast<int>(v);
}

double json_double(const nlohmann::json& j, const std::string& what) {
  if (!j.is_number()) throw Error(fmt::format("{} is not a number: {}", what, j.dump().substr(0, 100)));
  return j.get<double>();
}

float json_float(const nlohmann::json& j, const std::string& what) {
  const double d = json_double(j, what);
  if (std::isfinite(d) && std::fabs(d) > std::numeric_limits<float>::max()) {
    throw Error(fmt::format("{} ({}) is beyond a float's range", what, d));
  }
  return static_cast<float>(d);
}

std::vector<int64_t> json_ints(const nlohmann::json& j, const std::string& what) {
  if (!j.is_array()) throw Error(fmt::format("{} is not a list of integers", what));
  std::vector<int64_t> values;
  for (const nlohmann::json& v : j) values.push_back(json_int(v, what));
  return values;
}

std::vector<float> json_floats(const nlohmann::json& j, const std::string& what) {
  if (!j.is_array()) throw Error(fmt::format("{} is not a list of numbers", what));
  std::vector<float> values;
  for (const nlohmann::json& v : j) values.push_back(json_float(v, what));
  return values;
}

int64_t json_int_or(const nlohmann::json& j, const char* key, int64_t fallback) {
  return j.contains(key) ? json_int(j[key], fmt::format("'{}'", key)) : fallback;
}

int json_int32_or(const nlohmann::json& j, const char* key, int fallback) {
  return j.contains(key) ? json_int32(j[key], fmt::format("'{}'", key)) : fallback;
}

double json_double_or(const nlohmann::json& j, const char* key, double fallback) {
  return j.contains(key) ? json_double(j[key], fmt::format("'{}'", key)) : fallback;
}

}  // namespace nee
