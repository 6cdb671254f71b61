// best_usable_record: the best record whose schedule today's space still accepts. A
// record stored before a constraint existed (here a parallel loop of too few tasks) is
// passed over for the next one, however fast it was; baselines always count.
// record_to_build: what a bundle builds, across cache states of the same device.
#include <gtest/gtest.h>

#include <map>

#include "core/matmul_workload.h"
#include "core/workload.h"
#include "schedules/schedule_space.h"
#include "temp_dir.h"
#include "tuner/compile/autoscheduler_config.h"
#include "tuner/compile/kernel_compiler.h"
#include "tuner/compile/usable_record.h"

namespace nee {
namespace {

using tuner_test::TempDir;

TuningRecord record_of(const Workload& w, const Target& t, const ScheduleConfig& c, double median_us,
                       const std::string& strategy) {
  TuningRecord r;
  r.workload = w;
  r.target = t;
  r.config = c;
  r.result.status = MeasureStatus::ok;
  r.result.median_us = median_us;
  r.result.min_us = median_us;
  r.result.repeats = 5;
  r.strategy = strategy;
  return r;
}

TEST(UsableRecord, PassesOverPointsTodaysSpaceRejects) {
  TempDir dir("usable");
  TuningDatabase db(dir.file("tuning.db"));
  const Target t = host_target(TargetKind::cpu);
  const Workload w = matmul_workload_from_shape("128x1024x256");
  const auto space = make_schedule_space(w, t);
  // 4x16 register blocks (valid on AVX2 and AVX-512) in one row tile of 128 and two
  // column tiles of 128: a parallel loop of 2 tasks.
  ScheduleConfig two_tasks = space->default_config();
  for (const auto& [knob, value] : std::map<std::string, int64_t>{
           {"vec", 8}, {"nr_vecs", 2}, {"mr", 4}, {"mc_blocks", 32}, {"nc_panels", 8}, {"kc", 0}, {"parallel", 2}}) {
    two_tasks.knobs.at(knob) = value;
  }
  ASSERT_NE(space->check(two_tasks).find("tasks"), std::string::npos) << space->check(two_tasks);
  const int64_t stale = db.add_record(record_of(w, t, two_tasks, 100.0, "default"));
  const int64_t valid = db.add_record(record_of(w, t, space->default_config(), 150.0, "default"));
  ASSERT_EQ(db.best(w, t)->id, stale);
  std::optional<TuningRecord> usable = best_usable_record(db, w, t);
  ASSERT_TRUE(usable);
  EXPECT_EQ(usable->id, valid);
  const int64_t adams = db.add_record(record_of(w, t, autoscheduler_config("Adams2019"), 120.0, "adams2019"));
  usable = best_usable_record(db, w, t);
  ASSERT_TRUE(usable);
  EXPECT_EQ(usable->id, adams);
}

TEST(UsableRecord, NoneWhenNoRecordIsUsable) {
  TempDir dir("usable-none");
  TuningDatabase db(dir.file("tuning.db"));
  const Target t = host_target(TargetKind::cpu);
  const Workload w = matmul_workload_from_shape("64x64x64");
  EXPECT_FALSE(best_usable_record(db, w, t));
  ScheduleConfig foreign;
  foreign.knobs = {{"no_such_knob", 1}};
  db.add_record(record_of(w, t, foreign, 10.0, "random"));
  EXPECT_TRUE(db.best(w, t));
  EXPECT_FALSE(best_usable_record(db, w, t));
}

// A bundle takes the target's own best; where its cache state has no record, the best of
// the other cache state on the same device, never another device's.
TEST(UsableRecord, RecordToBuildFallsBackToTheOtherCacheStateOnly) {
  TempDir dir("usable-cache");
  TuningDatabase db(dir.file("tuning.db"));
  Target cold = host_target(TargetKind::cpu), warm = cold, elsewhere = cold;
  cold.cache = CacheState::cold;
  elsewhere.device.cpu_model = "Another CPU";
  elsewhere.cache = CacheState::cold;
  const Workload w = matmul_workload_from_shape("64x64x64");
  const ScheduleConfig point = make_schedule_space(w, cold)->default_config();
  db.add_record(record_of(w, elsewhere, point, 5.0, "default"));
  EXPECT_FALSE(record_to_build(db, w, cold));
  const int64_t warm_id = db.add_record(record_of(w, warm, point, 20.0, "default"));
  ASSERT_TRUE(record_to_build(db, w, cold));
  EXPECT_EQ(record_to_build(db, w, cold)->id, warm_id);
  EXPECT_FALSE(best_usable_record(db, w, cold));  // the tuner's own best never crosses over
  const int64_t cold_id = db.add_record(record_of(w, cold, point, 30.0, "default"));
  EXPECT_EQ(record_to_build(db, w, cold)->id, cold_id);  // slower, but timed in the target's state
  EXPECT_EQ(record_to_build(db, w, warm)->id, warm_id);
}

}  // namespace
}  // namespace nee
