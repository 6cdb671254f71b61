#include "tuner/compile/usable_record.h"

#include "tuner/compile/autoscheduler_config.h"

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

std::optional<TuningRecord> record_to_build(const TuningDatabase& db, const Workload& workload, const Target& target) {
  const auto space = make_schedule_space(workload, target);
  if (std::optional<TuningRecord> r = best_usable_record(db, workload, target, *space)) return r;
  Target other_cache = target;
  other_cache.cache = target.cache == CacheState::cold ? CacheState::warm : CacheState::cold;
  return best_usable_record(db, workload, other_cache, *space);
}

}  // namespace nee
