#include "core/schedule_config.h"

#include "core/error.h"
#include "core/json_numbers.h"

namespace nee {

int64_t ScheduleConfig::at(const std::string& knob) const {
  auto it = knobs.find(knob);
  if (it == knobs.end()) throw Error("schedule has no knob '" + knob + "'");
  return it->second;
}

std::string ScheduleConfig::to_string() const {
  std::string s;
  for (const auto& [name, value] : knobs) {
    if (!s.empty()) s += " ";
    s += name + "=" + std::to_string(value);
  }
  return s;
}

nlohmann::json ScheduleConfig::to_json() const { return nlohmann::json(knobs); }

ScheduleConfig ScheduleConfig::from_json(const nlohmann::json& j) {
  ScheduleConfig c;
  if (!j.is_object()) throw Error("a schedule must be a JSON object of knob values");
  for (const auto& [name, value] : j.items()) {
    if (!value.is_number_integer()) throw Error("schedule knob '" + name + "' is not an integer");
    c.knobs[name] = json_int(value, "knob '" + name + "'");
  }
  return c;
}

}  // namespace nee
