#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/schedule_config.h"

namespace nee {

// Halide's autoschedulers as baselines inside the tuning database. A baseline record's
// schedule is the one knob "autoscheduler" whose value is the autoscheduler's year
// (2019: Adams2019, 2016: Mullapudi2016): no schedule space holds that knob, so such a
// point is never proposed by a search, and compile_kernel_object() schedules it with
// that autoscheduler. Its record's strategy names it ("adams2019", "mullapudi2016").

// The autoschedulers the tuner runs as baselines, by their Halide plugin name.
const std::vector<std::string>& autoscheduler_names();
// The schedule of a baseline; throws nee::Error for an unknown autoscheduler.
ScheduleConfig autoscheduler_config(const std::string& name);
// The autoscheduler a schedule stands for, or nullopt for a point of a schedule space.
std::optional<std::string> autoscheduler_of(const ScheduleConfig& config);
// The strategy stored with a baseline's records: the name in lower case.
std::string autoscheduler_strategy(const std::string& name);

}  // namespace nee
