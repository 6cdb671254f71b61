// `nee-tune db` export -> import reproduces records with their targets; merge and a
// second import add nothing twice.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/matmul_workload.h"
#include "temp_dir.h"
#include "tests/tuner/synthetic_timing.h"
#include "tuner/cli/db_command.h"

namespace nee {
namespace {

using tuner_test::TempDir;

TuningRecord record(const Workload& w, const Target& t, int64_t knob, double us, MeasureStatus status) {
  TuningRecord r;
  r.workload = w;
  r.target = t;
  r.config.knobs = {{"mr", 4}, {"vec", knob}};
  r.result.status = status;
  r.result.median_us = us;
  r.result.min_us = us * 0.9;
  r.result.stddev_us = 0.5;
  r.result.repeats = 5;
  r.result.error = status == MeasureStatus::ok ? "" : "it broke";
  r.strategy = "model";
  r.trial = static_cast<int>(knob);
  r.halide_version = "14.0.0";
  return r;
}

void expect_same(const TuningRecord& a, const TuningRecord& b) {
  EXPECT_EQ(a.workload.key(), b.workload.key());
  EXPECT_EQ(a.target.key(), b.target.key());
  EXPECT_EQ(a.target.device.cpu_model, b.target.device.cpu_model);
  EXPECT_EQ(a.config, b.config);
  EXPECT_EQ(a.result.status, b.result.status);
  EXPECT_EQ(a.result.median_us, b.result.median_us);
  EXPECT_EQ(a.result.min_us, b.result.min_us);
  EXPECT_EQ(a.result.stddev_us, b.result.stddev_us);
  EXPECT_EQ(a.result.repeats, b.result.repeats);
  EXPECT_EQ(a.result.error, b.result.error);
  EXPECT_EQ(a.strategy, b.strategy);
  EXPECT_EQ(a.trial, b.trial);
  EXPECT_EQ(a.predicted_us, b.predicted_us);
  EXPECT_EQ(a.created_at, b.created_at);
  EXPECT_EQ(a.nee_version, b.nee_version);
  EXPECT_EQ(a.halide_version, b.halide_version);
}

TEST(DbCommand, ExportImportRoundTripKeepsRecordsAndTargets) {
  TempDir dir("db-command");
  const Workload a = matmul_workload_from_shape("8x8x8"), b = matmul_workload_from_shape("16x16x32");
  const Target here = tuner_test::synthetic_target();
  Target there = here;
  there.device.cpu_model = "Another CPU";
  TuningDatabase source(dir.file("source.db"));
  const int64_t first = source.add_record(record(a, here, 1, 10.0, MeasureStatus::ok));
  TuningRecord child = record(a, here, 2, 8.0, MeasureStatus::ok);
  child.parent_record = first;
  child.predicted_us = 7.5;
  source.add_record(child);
  source.add_record(record(a, there, 3, 0.0, MeasureStatus::crash));
  source.add_record(record(b, there, 4, 30.0, MeasureStatus::ok));

  const std::string file = dir.file("records.jsonl");
  EXPECT_EQ(export_records(source, file), 4);
  TuningDatabase copy(dir.file("copy.db"));
  const ImportCounts counts = import_records(copy, file);
  EXPECT_EQ(counts.added, 4);
  EXPECT_EQ(counts.already_present, 0);

  const std::vector<TuningRecord> before = source.all_records(), after = copy.all_records();
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) expect_same(before[i], after[i]);
  EXPECT_FALSE(after[1].parent_record) << "ids of another file are not kept";
  EXPECT_EQ(copy.targets().size(), 2u);
  // The crashed point on `there` does not make `there`'s best, nor does `there` count here.
  EXPECT_EQ(copy.best(a, here)->result.median_us, 8.0);
  EXPECT_FALSE(copy.best(a, there));

  const ImportCounts again = import_records(copy, file);
  EXPECT_EQ(again.added, 0);
  EXPECT_EQ(again.already_present, 4);
  const ImportCounts merged = merge_database(copy, dir.file("source.db"));
  EXPECT_EQ(merged.added, 0);
  EXPECT_EQ(copy.all_records().size(), 4u);

  TuningDatabase fresh(dir.file("fresh.db"));
  EXPECT_EQ(merge_database(fresh, dir.file("source.db")).added, 4);
}

TEST(DbCommand, MalformedImportAddsNothing) {
  TempDir dir("db-command");
  const std::string file = dir.file("bad.jsonl");
  TuningDatabase source(dir.file("source.db"));
  source.add_record(record(matmul_workload_from_shape("8x8x8"), tuner_test::synthetic_target(), 1, 10.0,
                           MeasureStatus::ok));
  export_records(source, file);
  std::ofstream(file, std::ios::app) << "{\"workload\": 1}\n";
  TuningDatabase copy(dir.file("copy.db"));
  EXPECT_ANY_THROW(import_records(copy, file));
  EXPECT_TRUE(copy.all_records().empty());
}

TEST(DbCommand, PoisonedTimesAndEndlessFilesAreRefusedAndAddNothing) {
  TempDir dir("db-command");
  const Workload w = matmul_workload_from_shape("8x8x8");
  const Target t = tuner_test::synthetic_target();
  for (const double us : {-5.0, 0.0}) {  // JSON has no NaN or infinity, and the database refuses them
    TuningDatabase source(dir.file("poisoned.db"));
    source.add_record(record(w, t, 1, 10.0, MeasureStatus::ok));
    source.add_record(record(w, t, 2, us, MeasureStatus::ok));
    const std::string file = dir.file("poisoned.jsonl");
    export_records(source, file);
    TuningDatabase copy(dir.file("copy.db"));
    try {
      import_records(copy, file);
      ADD_FAILURE() << "a record of " << us << " us was imported";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("refused: an ok record with median time"), std::string::npos) << e.what();
    }
    EXPECT_ANY_THROW(merge_database(copy, dir.file("poisoned.db")));
    EXPECT_TRUE(copy.all_records().empty());
    std::filesystem::remove(dir.file("poisoned.db"));
  }
  // A failed measurement carries no time to rank, so its median may be anything.
  TuningDatabase source(dir.file("failed.db"));
  source.add_record(record(w, t, 3, 0.0, MeasureStatus::build_error));
  export_records(source, dir.file("failed.jsonl"));
  TuningDatabase copy(dir.file("copy2.db"));
  EXPECT_EQ(import_records(copy, dir.file("failed.jsonl")).added, 1);
  try {
    import_records(copy, "/dev/zero");
    ADD_FAILURE() << "/dev/zero was imported";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("is not a regular file"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace nee
