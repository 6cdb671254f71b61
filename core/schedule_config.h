#pragma once
#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace nee {

// One point of a schedule space: knob name -> value. Knob meanings belong to the space
// (schedules/); this record only carries them between the tuner, database and builder.
struct ScheduleConfig {
  std::map<std::string, int64_t> knobs;

  int64_t at(const std::string& knob) const;
  std::string to_string() const;  // compact, stable: "kc=0 mr=4 ..."
  nlohmann::json to_json() const;
  static ScheduleConfig from_json(const nlohmann::json& j);
  bool operator==(const ScheduleConfig& other) const { return knobs == other.knobs; }
  bool operator<(const ScheduleConfig& other) const { return knobs < other.knobs; }
};

}  // namespace nee
