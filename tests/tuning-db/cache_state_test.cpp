// Schema v4 (targets.cache): times taken with a kernel's buffers cached (warm) and evicted
// (cold) are kept under separate targets, so one is never ranked against the other;
// files and JSON from before cache states read as warm.
#include <string>

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/matmul_workload.h"
#include "tests/tuning-db/test_support.h"
#include "tuning-db/schema.h"
#include "tuning-db/sqlite.h"
#include "tuning-db/tuning_database.h"

namespace nee {
namespace {

using testing_support::make_record;
using testing_support::make_target;
using testing_support::TempDir;

Target cold_target() {
  Target t = make_target();
  t.cache = CacheState::cold;
  return t;
}

TEST(TargetCacheState, ColdTargetsHaveTheirOwnKeyAndWarmKeysAreUnchanged) {
  const Target warm = make_target(), cold = cold_target();
  EXPECT_EQ(warm.key(), warm.halide + "@" + warm.device.hash() + "/h" + std::to_string(kHalideMajor));
  EXPECT_EQ(cold.key(), warm.key() + "/cold");
  EXPECT_EQ(Target::from_json(cold.to_json()).cache, CacheState::cold);
  nlohmann::json before_cache_states = warm.to_json();
  before_cache_states.erase("cache");
  EXPECT_EQ(Target::from_json(before_cache_states).key(), warm.key());
  // Exports from before Halide versions were recorded came from Halide 14: their keys
  // are as they were, and never those of today's Halide.
  nlohmann::json before_halide_majors = warm.to_json();
  before_halide_majors.erase("halide_major");
  EXPECT_EQ(Target::from_json(before_halide_majors).halide_major, kLegacyHalideMajor);
  EXPECT_EQ(Target::from_json(before_halide_majors).key(), warm.halide + "@" + warm.device.hash());
  EXPECT_EQ(halide_major_of("21.0.0"), 21);
  EXPECT_EQ(halide_major_of(""), kLegacyHalideMajor);
  before_cache_states["cache"] = "lukewarm";
  EXPECT_THROW(Target::from_json(before_cache_states), Error);
}

TEST(TargetCacheState, WarmAndColdRecordsAreRankedApart) {
  TempDir dir;
  TuningDatabase db(dir.file("t.db"));
  const Workload w = matmul_workload_from_shape("8x8x8");
  db.add_record(make_record(w, make_target(), 1, 10.0));
  db.add_record(make_record(w, cold_target(), 2, 25.0));
  db.add_record(make_record(w, cold_target(), 3, 20.0));
  ASSERT_TRUE(db.best(w, make_target()));
  EXPECT_EQ(db.best(w, make_target())->config.at("nr"), 1);
  const std::optional<TuningRecord> cold_best = db.best(w, cold_target());
  ASSERT_TRUE(cold_best);
  EXPECT_EQ(cold_best->config.at("nr"), 3);
  EXPECT_EQ(cold_best->target.cache, CacheState::cold);
  EXPECT_EQ(db.history(w, cold_target()).size(), 2u);
  const std::vector<Target> targets = db.targets();
  ASSERT_EQ(targets.size(), 2u);
  EXPECT_EQ(targets[0].cache, CacheState::warm);
  EXPECT_EQ(targets[1].cache, CacheState::cold);
}

TEST(TargetCacheState, V3FileMigratesWithItsTargetsWarm) {
  TempDir dir;
  const std::string path = dir.file("v3.db");
  const Workload w = matmul_workload_from_shape("8x8x8");
  Target t = make_target();
  t.halide_major = kLegacyHalideMajor;  // what a v3 file's kernels were compiled by
  {
    db::Connection c(path);
    ASSERT_EQ(db::migrate(c, {db::migrations()[0], db::migrations()[1], db::migrations()[2]}), 3);
    testing_support::insert_target_and_workload(c, t, w);
    c.exec(R"sql(INSERT INTO records (workload_id, target_id, schedule_json, status, median_us, min_us, stddev_us,
                   repeats, max_abs_error, error, strategy, trial, parent_record, created_at, nee_version,
                   halide_version, predicted_us, confirmed_us)
                 VALUES (1, 1, '{"mr":4,"nr":1}', 'ok', 12.5, 12.0, 0.1, 5, 0, '', 'random', 3, NULL,
                         '2026-01-01T00:00:00Z', '0.1.0', '14.0.0', NULL, 11.0))sql");
  }
  TuningDatabase db(path);
  EXPECT_EQ(db.schema_version(), TuningDatabase::latest_schema_version());
  const std::optional<TuningRecord> best = db.best(w, t);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->target.cache, CacheState::warm);
  EXPECT_EQ(best->target.halide_major, kLegacyHalideMajor);
  // Halide 14's times are never ranked for today's Halide: its kernels need measuring anew.
  EXPECT_FALSE(db.best(w, make_target()));
  EXPECT_EQ(best->ranked_us(), 11.0);
  EXPECT_FALSE(db.best(w, cold_target()));
  db.add_record(make_record(w, cold_target(), 2, 30.0));
  EXPECT_EQ(db.targets().size(), 2u);
  EXPECT_EQ(db.best(w, t)->ranked_us(), 11.0);
}

}  // namespace
}  // namespace nee
