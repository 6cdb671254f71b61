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
// The record a bundle or a benchmark builds: the target's best usable record or, where
// its cache state has none, the best of the same device's other cache state (a point
// tuned warm is a better start for a model bundle than the default). The tuner itself
// never mixes the two: its best stays within its target.
std::optional<TuningRecord> record_to_build(const TuningDatabase& db, const Workload& workload, const Target& target);

}  // namespace nee
