#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nee {

// Numbers of JSON that came from outside (records, manifests, batch folders, deploy
// graphs) read strictly: nlohmann-json converts a float to an integer (and a double to a
// float) with a plain cast, which is undefined for a value out of range. Fuzzing found
// 1.9e36 as a deploy graph's dim and 2.3e97 as a manifest's core count. Each throws
// nee::Error naming `what`.

// A JSON integer within int64_t.
int64_t json_int(const nlohmann::json& j, const std::string& what);
// A non-negative JSON integer within uint64_t.
uint64_t json_uint(const nlohmann::json& j, const std::string& what);
// A JSON integer within int.
int json_int32(const nlohmann::json& j, const std::string& what);
// Any JSON number, as a double.
double json_double(const nlohmann::json& j, const std::string& what);
// Any JSON number within a float's range (or not finite), as a float.
float json_float(const nlohmann::json& j, const std::string& what);
std::vector<int64_t> json_ints(const nlohmann::json& j, const std::string& what);
std::vector<float> json_floats(const nlohmann::json& j, const std::string& what);

// The member `key` of object `j` read as above, or `fallback` where it is absent.
int64_t json_int_or(const nlohmann::json& j, const char* key, int64_t fallback);
int json_int32_or(const nlohmann::json& j, const char* key, int fallback);
double json_double_or(const nlohmann::json& j, const char* key, double fallback);

}  // namespace nee
