#include "tuning-db/tuning_database.h"

#include <stdlib.h>

#include <filesystem>
#include <limits>
#include <optional>

#include <gtest/gtest.h>

#include "core/error.h"
#include "core/matmul_workload.h"
#include "core/version.h"
#include "tests/tuning-db/test_support.h"

namespace nee {
namespace {

using testing_support::make_record;
using testing_support::make_target;
using testing_support::ScopedEnv;
using testing_support::TempDir;

Workload small_matmul() { return matmul_workload_from_shape("16x32x8"); }

TEST(TuningDatabase, RoundTripsEveryField) {
  TempDir dir;
  TuningDatabase db(dir.file("tuning.db"));
  TuningRecord r;
  r.workload = make_matmul_workload({DType::f32, {4, 8}}, {DType::f32, {8, 2}}, nullptr,
                                    MatmulAttrs{false, false, 0.5, 1.0, true});
  r.target = make_target();
  r.target.device.device = "Some GPU";
  r.target.halide = "x86-64-linux-cuda";
  r.config.knobs = {{"kc", 256}, {"mr", 6}, {"nr", 16}, {"vectorize", -1}};
  r.result.status = MeasureStatus::ok;
  r.result.median_us = 12.5;
  r.result.min_us = 11.25;
  r.result.stddev_us = 0.75;
  r.result.repeats = 31;
  r.result.max_abs_error = 1.5e-6;
  r.result.error = "a note with 'quotes' and \"double quotes\"";
  r.strategy = "evolutionary";
  r.trial = 17;
  r.parent_record = 1234;
  r.created_at = "2024-05-06T07:08:09Z";
  r.nee_version = "9.9.9";
  r.halide_version = "14.0.0";
  r.id = 999;  // ignored: the database assigns ids

  const int64_t id = db.add_record(r);
  EXPECT_GT(id, 0);
  const std::vector<TuningRecord> all = db.history(r.workload, r.target);
  ASSERT_EQ(all.size(), 1u);
  const TuningRecord& got = all[0];
  EXPECT_EQ(got.id, id);
  EXPECT_EQ(got.workload.to_json(), r.workload.to_json());
  EXPECT_EQ(got.workload.key(), r.workload.key());
  EXPECT_EQ(got.target.to_json(), r.target.to_json());
  EXPECT_EQ(got.target.key(), r.target.key());
  EXPECT_EQ(got.config, r.config);
  EXPECT_EQ(got.result.status, r.result.status);
  EXPECT_EQ(got.result.median_us, r.result.median_us);
  EXPECT_EQ(got.result.min_us, r.result.min_us);
  EXPECT_EQ(got.result.stddev_us, r.result.stddev_us);
  EXPECT_EQ(got.result.repeats, r.result.repeats);
  EXPECT_EQ(got.result.max_abs_error, r.result.max_abs_error);
  EXPECT_EQ(got.result.error, r.result.error);
  EXPECT_EQ(got.strategy, r.strategy);
  EXPECT_EQ(got.trial, r.trial);
  EXPECT_EQ(got.parent_record, r.parent_record);
  EXPECT_EQ(got.created_at, r.created_at);
  EXPECT_EQ(got.nee_version, r.nee_version);
  EXPECT_EQ(got.halide_version, r.halide_version);
}

TEST(TuningDatabase, FillsCreatedAtAndVersionAndKeepsNoParent) {
  TempDir dir;
  TuningDatabase db(dir.file("tuning.db"));
  const Workload w = small_matmul();
  const Target t = make_target();
  db.add_record(make_record(w, t, 1, 10.0));
  const TuningRecord got = db.history(w, t).at(0);
  EXPECT_EQ(got.nee_version, kVersion);
  // UTC ISO-8601 to the second: YYYY-MM-DDTHH:MM:SSZ.
  ASSERT_EQ(got.created_at.size(), 20u) << got.created_at;
  EXPECT_EQ(got.created_at[4], '-');
  EXPECT_EQ(got.created_at[10], 'T');
  EXPECT_EQ(got.created_at.back(), 'Z');
  EXPECT_FALSE(got.parent_record.has_value());
}

TEST(TuningDatabase, BestIgnoresFailedRecordsEvenIfFaster) {
  TempDir dir;
  TuningDatabase db(dir.file("tuning.db"));
  const Workload w = small_matmul();
  const Target t = make_target();
  EXPECT_FALSE(db.best(w, t).has_value());
  db.add_record(make_record(w, t, 1, 1.0, MeasureStatus::wrong_result));
  db.add_record(make_record(w, t, 2, 2.0, MeasureStatus::crash));
  db.add_record(make_record(w, t, 3, 3.0, MeasureStatus::timeout));
  db.add_record(make_record(w, t, 4, 4.0, MeasureStatus::build_error));
  db.add_record(make_record(w, t, 5, 5.0, MeasureStatus::runtime_error));
  EXPECT_FALSE(db.best(w, t).has_value());
  db.add_record(make_record(w, t, 6, 50.0));
  db.add_record(make_record(w, t, 7, 40.0));
  const std::optional<TuningRecord> best = db.best(w, t);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->config.at("nr"), 7);
  EXPECT_EQ(best->result.median_us, 40.0);
  EXPECT_EQ(best->result.status, MeasureStatus::ok);
}

TEST(TuningDatabase, BestIsPerTargetAndPerWorkload) {
  TempDir dir;
  TuningDatabase db(dir.file("tuning.db"));
  const Workload w = small_matmul();
  const Workload other_w = matmul_workload_from_shape("16x32x9");
  const Target t = make_target("CPU A");
  const Target other_fingerprint = make_target("CPU B");
  Target other_halide = make_target("CPU A");
  other_halide.halide = "x86-64-linux-sse41";
  ASSERT_EQ(t.halide, other_fingerprint.halide);
  ASSERT_NE(t.key(), other_fingerprint.key());

  db.add_record(make_record(w, other_fingerprint, 1, 1.0));
  db.add_record(make_record(w, other_halide, 2, 2.0));
  db.add_record(make_record(other_w, t, 3, 3.0));
  EXPECT_FALSE(db.best(w, t).has_value());
  db.add_record(make_record(w, t, 4, 100.0));
  ASSERT_TRUE(db.best(w, t).has_value());
  EXPECT_EQ(db.best(w, t)->config.at("nr"), 4);
  EXPECT_EQ(db.best(w, other_fingerprint)->config.at("nr"), 1);
  EXPECT_EQ(db.best(w, other_halide)->config.at("nr"), 2);
  EXPECT_EQ(db.best(other_w, t)->config.at("nr"), 3);
}

TEST(TuningDatabase, TopKIsAscendingByMedianAndOnlyOk) {
  TempDir dir;
  TuningDatabase db(dir.file("tuning.db"));
  const Workload w = small_matmul();
  const Target t = make_target();
  const double medians[] = {30.0, 10.0, 50.0, 20.0, 40.0};
  for (int i = 0; i < 5; ++i) db.add_record(make_record(w, t, i, medians[i]));
  db.add_record(make_record(w, t, 99, 0.5, MeasureStatus::wrong_result));

  const std::vector<TuningRecord> top3 = db.top_k(w, t, 3);
  ASSERT_EQ(top3.size(), 3u);
  EXPECT_EQ(top3[0].result.median_us, 10.0);
  EXPECT_EQ(top3[1].result.median_us, 20.0);
  EXPECT_EQ(top3[2].result.median_us, 30.0);
  EXPECT_EQ(db.top_k(w, t, 100).size(), 5u);
  EXPECT_TRUE(db.top_k(w, t, 0).empty());
  EXPECT_TRUE(db.top_k(w, t, -1).empty());
}

TEST(TuningDatabase, HistoryIncludesFailuresInIdOrder) {
  TempDir dir;
  TuningDatabase db(dir.file("tuning.db"));
  const Workload w = small_matmul();
  const Target t = make_target();
  const int64_t a = db.add_record(make_record(w, t, 1, 5.0));
  TuningRecord crashed = make_record(w, t, 2, 0.0, MeasureStatus::crash);
  crashed.result.error = "signal 11";
  const int64_t b = db.add_record(crashed);
  const int64_t c = db.add_record(make_record(w, t, 3, 1.0, MeasureStatus::timeout));
  db.add_record(make_record(w, make_target("elsewhere"), 4, 1.0));

  const std::vector<TuningRecord> h = db.history(w, t);
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h[0].id, a);
  EXPECT_EQ(h[1].id, b);
  EXPECT_EQ(h[2].id, c);
  EXPECT_EQ(h[1].result.status, MeasureStatus::crash);
  EXPECT_EQ(h[1].result.error, "signal 11");
  EXPECT_EQ(h[2].result.status, MeasureStatus::timeout);
}

TEST(TuningDatabase, ContainsAnyStatusForThisWorkloadAndTargetOnly) {
  TempDir dir;
  TuningDatabase db(dir.file("tuning.db"));
  const Workload w = small_matmul();
  const Target t = make_target();
  const TuningRecord failed = make_record(w, t, 7, 0.0, MeasureStatus::build_error);
  EXPECT_FALSE(db.contains(w, t, failed.config));
  db.add_record(failed);
  EXPECT_TRUE(db.contains(w, t, failed.config));

  // The same knobs inserted in another order are the same config.
  ScheduleConfig reordered;
  reordered.knobs.emplace("nr", 7);
  reordered.knobs.emplace("mr", 4);
  EXPECT_TRUE(db.contains(w, t, reordered));

  ScheduleConfig different = failed.config;
  different.knobs["nr"] = 8;
  EXPECT_FALSE(db.contains(w, t, different));
  EXPECT_FALSE(db.contains(w, make_target("elsewhere"), failed.config));
  EXPECT_FALSE(db.contains(matmul_workload_from_shape("16x32x9"), t, failed.config));
}

TEST(TuningDatabase, WorkloadsSummarizesPerTarget) {
  TempDir dir;
  TuningDatabase db(dir.file("tuning.db"));
  const Workload w1 = matmul_workload_from_shape("16x32x8");
  const Workload w2 = matmul_workload_from_shape("64x64x64");
  const Target t = make_target();
  db.add_record(make_record(w1, t, 1, 9.0));
  db.add_record(make_record(w1, t, 2, 7.0));
  db.add_record(make_record(w1, t, 3, 1.0, MeasureStatus::wrong_result));
  db.add_record(make_record(w2, t, 1, 0.0, MeasureStatus::crash));
  db.add_record(make_record(w2, make_target("elsewhere"), 1, 3.0));

  // Ordered by workload key.
  ASSERT_LT(w1.key(), w2.key());
  const std::vector<TuningDatabase::WorkloadSummary> s = db.workloads(t);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].workload.key(), w1.key());
  EXPECT_EQ(s[0].records, 3);
  EXPECT_EQ(s[0].ok_records, 2);
  ASSERT_TRUE(s[0].best_us.has_value());
  EXPECT_EQ(*s[0].best_us, 7.0);
  EXPECT_EQ(s[1].workload.key(), w2.key());
  EXPECT_EQ(s[1].records, 1);
  EXPECT_EQ(s[1].ok_records, 0);
  EXPECT_FALSE(s[1].best_us.has_value());
  EXPECT_TRUE(db.workloads(make_target("never used")).empty());
}

TEST(TuningDatabase, TargetsAreStoredOnceInFirstUseOrder) {
  TempDir dir;
  TuningDatabase db(dir.file("tuning.db"));
  const Workload w = small_matmul();
  const Target a = make_target("CPU A");
  const Target b = make_target("CPU B");
  db.add_record(make_record(w, a, 1, 1.0));
  db.add_record(make_record(w, b, 1, 1.0));
  db.add_record(make_record(w, a, 2, 1.0));
  const std::vector<Target> targets = db.targets();
  ASSERT_EQ(targets.size(), 2u);
  EXPECT_EQ(targets[0].key(), a.key());
  EXPECT_EQ(targets[0].to_json(), a.to_json());
  EXPECT_EQ(targets[1].key(), b.key());
}

TEST(TuningDatabase, RecordsPersistAcrossReopen) {
  TempDir dir;
  const Workload w = small_matmul();
  const Target t = make_target();
  int64_t id = 0;
  {
    TuningDatabase db(dir.file("tuning.db"));
    id = db.add_record(make_record(w, t, 1, 3.0));
  }
  TuningDatabase db(dir.file("tuning.db"));
  ASSERT_TRUE(db.best(w, t).has_value());
  EXPECT_EQ(db.best(w, t)->id, id);
  EXPECT_GT(db.add_record(make_record(w, t, 2, 3.0)), id);
}

TEST(TuningDatabase, RefusesNonFiniteMeasurements) {
  TempDir dir;
  TuningDatabase db(dir.file("tuning.db"));
  const Workload w = small_matmul();
  const Target t = make_target();
  TuningRecord r = make_record(w, t, 1, std::numeric_limits<double>::quiet_NaN());
  try {
    db.add_record(r);
    FAIL() << "a NaN median was stored";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("median_us"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(db.history(w, t).empty());
}

TEST(TuningDatabase, RefusesAFolderThatDoesNotExistAndCreatesNone) {
  TempDir dir;
  const std::string path = dir.file("a/b/c/tuning.db");
  for (const DbAccess access : {DbAccess::read_write, DbAccess::read_only}) {
    try {
      TuningDatabase db(path, access);
      ADD_FAILURE() << "opened " << path;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(dir.file("a/b/c") + " is a folder that does not exist"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("a")));
  // NEE_DB names a path as --db does: its folder is not made either.
  ScopedEnv nee_db("NEE_DB", path.c_str());
  EXPECT_THROW(TuningDatabase{TuningDatabase::default_path()}, Error);
  EXPECT_FALSE(std::filesystem::exists(dir.file("a")));
}

TEST(TuningDatabase, CreatesTheFoldersOfTheDefaultLocation) {
  TempDir dir;
  ScopedEnv nee_db("NEE_DB", nullptr);
  ScopedEnv xdg("XDG_DATA_HOME", dir.file("data").c_str());
  const std::string path = TuningDatabase::default_path();
  ASSERT_EQ(path, dir.file("data/nee/tuning.db"));
  TuningDatabase db(path);
  EXPECT_TRUE(std::filesystem::exists(path));
}

TEST(TuningDatabase, DefaultPathFollowsEnvironment) {
  ScopedEnv home("HOME", "/home/someone");
  {
    ScopedEnv db("NEE_DB", nullptr);
    ScopedEnv xdg("XDG_DATA_HOME", nullptr);
    EXPECT_EQ(TuningDatabase::default_path(), "/home/someone/.local/share/nee/tuning.db");
  }
  {
    ScopedEnv db("NEE_DB", nullptr);
    ScopedEnv xdg("XDG_DATA_HOME", "/data");
    EXPECT_EQ(TuningDatabase::default_path(), "/data/nee/tuning.db");
  }
  {
    ScopedEnv db("NEE_DB", "/somewhere/my.db");
    ScopedEnv xdg("XDG_DATA_HOME", "/data");
    EXPECT_EQ(TuningDatabase::default_path(), "/somewhere/my.db");
  }
}

TEST(TuningDatabase, AddNewRecordsStoresAllOrNothing) {
  TempDir dir;
  TuningDatabase db(dir.file("tuning.db"));
  const Workload w = small_matmul();
  const Target t = make_target();
  // As an export carries them: with their creation time, which tells a record again
  // from a new measurement of the same point.
  const auto record = [&](int64_t knob, double us) {
    TuningRecord r = make_record(w, t, knob, us);
    r.created_at = "2026-03-0" + std::to_string(knob) + "T00:00:00Z";
    return r;
  };
  TuningRecord poisoned = record(3, 30.0);
  poisoned.result.min_us = std::numeric_limits<double>::quiet_NaN();
  // The third record fails after two were inserted in the same transaction.
  EXPECT_THROW(db.add_new_records({record(1, 10.0), record(2, 20.0), poisoned}), Error);
  EXPECT_TRUE(db.all_records().empty());

  TuningRecord child = record(2, 20.0);
  child.parent_record = 99;
  const TuningDatabase::AddCounts counts = db.add_new_records({record(1, 10.0), child, record(1, 10.0)});
  EXPECT_EQ(counts.added, 2);
  EXPECT_EQ(counts.already_present, 1) << "a record given twice is stored once";
  const std::vector<TuningRecord> stored = db.all_records();
  ASSERT_EQ(stored.size(), 2u);
  EXPECT_FALSE(stored[1].parent_record) << "another file's ids are not kept";
  EXPECT_EQ(db.add_new_records({record(1, 10.0)}).already_present, 1);
}

// `db import-results` stores a batch folder's records and their re-measurements through
// atomically(): a failure midway leaves what was stored before it, and nothing of the
// batch. Writers inside it nest (their own transactions become savepoints).
TEST(TuningDatabase, AtomicallyStoresAllOrNothingOfNestedWrites) {
  TempDir dir;
  TuningDatabase db(dir.file("tuning.db"));
  const Workload w = small_matmul();
  const Target t = make_target();
  const int64_t kept = db.add_record(make_record(w, t, 1, 10.0));
  TuningRecord poisoned = make_record(w, t, 4, 40.0);
  poisoned.result.median_us = std::numeric_limits<double>::infinity();
  EXPECT_THROW(db.atomically([&] {
    db.add_record(make_record(w, t, 2, 20.0));
    db.set_confirmed_us(kept, 9.0);
    db.add_new_records({make_record(w, t, 3, 30.0)});
    db.add_record(poisoned);
  }),
               Error);
  ASSERT_EQ(db.all_records().size(), 1u);
  EXPECT_FALSE(db.all_records()[0].confirmed_us) << "the confirmation was undone with the rest";

  db.atomically([&] {
    db.add_record(make_record(w, t, 2, 20.0));
    db.set_confirmed_us(kept, 9.0);
  });
  EXPECT_EQ(db.all_records().size(), 2u);
  EXPECT_EQ(db.all_records()[0].confirmed_us, 9.0);
  // Committed for good: another connection sees it.
  EXPECT_EQ(TuningDatabase(dir.file("tuning.db"), DbAccess::read_only).all_records().size(), 2u);
}

// A dry run counts against the database and stores nothing, and the database stays
// usable after it (no transaction left open).
TEST(TuningDatabase, RehearseUndoesWhatItCounted) {
  TempDir dir;
  TuningDatabase db(dir.file("tuning.db"));
  const Workload w = small_matmul();
  const Target t = make_target();
  TuningRecord first = make_record(w, t, 1, 10.0);
  first.created_at = "2026-03-01T00:00:00Z";
  db.add_record(first);
  TuningRecord second = make_record(w, t, 2, 20.0);
  second.created_at = "2026-03-02T00:00:00Z";
  TuningDatabase::AddCounts counts;
  db.rehearse([&] {
    counts = db.add_new_records({first, second});
    EXPECT_EQ(db.all_records().size(), 2u) << "inside the rehearsal the record is there";
  });
  EXPECT_EQ(counts.added, 1);
  EXPECT_EQ(counts.already_present, 1);
  EXPECT_EQ(db.all_records().size(), 1u);
  EXPECT_EQ(db.add_new_records({second}).added, 1);
  EXPECT_EQ(TuningDatabase(dir.file("tuning.db"), DbAccess::read_only).all_records().size(), 2u);
  EXPECT_THROW(TuningDatabase(dir.file("tuning.db"), DbAccess::read_only).rehearse([] {}), Error);
}

}  // namespace
}  // namespace nee
