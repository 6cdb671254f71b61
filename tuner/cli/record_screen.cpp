#include "tuner/cli/record_screen.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "core/error.h"
#include "core/family.h"
#include "tuner/compile/autoscheduler_config.h"
#include "tuning-db/speed_ceiling.h"

namespace nee {

std::string RecordScreen::problem(const TuningRecord& r) {
  const auto bad = [](double us) { return !std::isfinite(us) || us <= 0; };
  try {
    require_family_made(r.workload);
  } catch (const Error& e) {
    return e.what();
  }
  const bool ok = r.result.status == MeasureStatus::ok;
  if (ok && bad(r.result.median_us)) return fmt::format("an ok record with median time {} us", r.result.median_us);
  if (r.confirmed_us && bad(*r.confirmed_us)) return fmt::format("a confirmed time of {} us", *r.confirmed_us);
  if (r.in_model && (bad(r.in_model->tuned_us) || bad(r.in_model->default_us))) {
    return fmt::format("in-model times of {} and {} us", r.in_model->tuned_us, r.in_model->default_us);
  }
  if (!autoscheduler_of(r.config)) {
    const std::string space_problem = check_schedule(r);
    if (!space_problem.empty()) return space_problem;
  }
  const std::optional<double> median = ok ? std::optional<double>(r.result.median_us) : std::nullopt;
  for (const std::optional<double>& us : {median, r.confirmed_us}) {
    if (!us) continue;
    const std::string speed_problem = impossible_speed(r.workload, r.target, *us);
    if (!speed_problem.empty()) return "an impossible speed: " + speed_problem;
  }
  return "";
}

std::string RecordScreen::check_schedule(const TuningRecord& r) {
  const std::string key = r.workload.key() + "@" + r.target.key();
  auto found = spaces_.find(key);
  if (found == spaces_.end()) {
    Space space;
    try {
      space.space = make_schedule_space(r.workload, r.target);
    } catch (const std::exception& e) {
      space.error = fmt::format("no schedule space for it on target {}: {}", r.target.halide, e.what());
    }
    found = spaces_.emplace(key, std::move(space)).first;
  }
  if (!found->second.error.empty()) return found->second.error;
  const std::string why = found->second.space->check(r.config);
  if (why.empty()) return "";
  return fmt::format("schedule {} is not a point of the {} space: {}", r.config.to_string(),
                     found->second.space->name(), why);
}

}  // namespace nee
