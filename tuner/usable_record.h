#pragma once
#include <optional>

#include "core/target.h"
#include "core/workload.h"
#include "schedules/schedule_space.h"
#include "tuning-db/tuning_database.h"

namespace nee {

// The best record of a workload whose schedule today's schedule space still accepts (or
// an autoscheduler baseline): a space that gained a constraint since a record was
// measured must not make a bundle or a bench fail to build it. Looks through the best
// kUsableRecordWindow records in rank order; nullopt when none of them is usable.
constexpr int kUsableRecordWindow = 64;
std::optional<TuningRecord> best_usable_record(const TuningDatabase& db, const Workload& workload, const Target& target);
// The same, checked against a space the caller already holds for this workload.
std::optional<TuningRecord> best_usable_record(const TuningDatabase& db, const Workload& workload, const Target& target,
                                               const ScheduleSpace& space);

}  // namespace nee
