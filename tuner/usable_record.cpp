#include "tuner/usable_record.h"

#include "tuner/autoscheduler_config.h"

namespace nee {

std::optional<TuningRecord> best_usable_record(const TuningDatabase& db, const Workload& workload, const Target& target) {
  return best_usable_record(db, workload, target, *make_schedule_space(workload, target));
}

std::optional<TuningRecord> best_usable_record(const TuningDatabase& db, const Workload& workload, const Target& target,
                                               const ScheduleSpace& space) {
  for (const TuningRecord& r : db.top_k(workload, target, kUsableRecordWindow)) {
    if (autoscheduler_of(r.config) || space.check(r.config).empty()) return r;
  }
  return std::nullopt;
}

}  // namespace nee
