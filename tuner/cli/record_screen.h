#pragma once
#include <map>
#include <memory>
#include <string>

#include "core/records.h"
#include "schedules/schedule_space.h"

namespace nee {

// Screens tuning records that come from elsewhere (an export, another database, a batch
// folder measured on another machine) before they are stored, keeping one schedule
// space per workload and target. Records travel between machines, so one poisoned
// record must not win every ranking.
class RecordScreen {
 public:
  // Why the record must not be stored, or empty. A time that would rank it (an ok
  // record's median, a confirmed time) must be a positive number below the target's
  // physical ceiling (speed_ceiling); the schedule must be one the bundle builder can
  // compile and the tuner could propose (a point of its space, or an autoscheduler
  // baseline).
  std::string problem(const TuningRecord& r);

 private:
  std::string check_schedule(const TuningRecord& r);

  struct Space {
    std::unique_ptr<ScheduleSpace> space;
    std::string error;  // why there is none
  };
  std::map<std::string, Space> spaces_;
};

}  // namespace nee
