#include "tuner/compile/autoscheduler_config.h"

#include <algorithm>
#include <cctype>

#include "core/error.h"

namespace nee {

namespace {

constexpr const char* kKnob = "autoscheduler";

struct Autoscheduler {
  const char* name;
  int64_t year;
};
constexpr Autoscheduler kAutoschedulers[] = {{"Adams2019", 2019}, {"Mullapudi2016", 2016}};

}  // namespace

const std::vector<std::string>& autoscheduler_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const Autoscheduler& a : kAutoschedulers) n.emplace_back(a.name);
    return n;
  }();
  return names;
}

ScheduleConfig autoscheduler_config(const std::string& name) {
  for (const Autoscheduler& a : kAutoschedulers) {
    if (name == a.name) return ScheduleConfig{{{kKnob, a.year}}};
  }
  throw Error("unknown autoscheduler '" + name + "' (known: Adams2019, Mullapudi2016)");
}

std::optional<std::string> autoscheduler_of(const ScheduleConfig& config) {
  if (config.knobs.size() != 1 || config.knobs.begin()->first != kKnob) return std::nullopt;
  for (const Autoscheduler& a : kAutoschedulers) {
    if (config.knobs.begin()->second == a.year) return std::string(a.name);
  }
  return std::nullopt;
}

std::string autoscheduler_strategy(const std::string& name) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower;
}

}  // namespace nee
