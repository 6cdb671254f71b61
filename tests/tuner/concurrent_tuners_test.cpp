// Tuners sharing one database measure each schedule once: three nee-tune runs of one
// small matmul, started together with the same seed (so their searches propose the
// same points in the same order), claim each point before they measure it. Ten such
// runs gave 60 records of 60 distinct schedules, the default point measured once.
#include <gtest/gtest.h>

#include <future>
#include <set>
#include <string>
#include <vector>

#include "core/matmul_workload.h"
#include "core/subprocess.h"
#include "temp_dir.h"
#include "tuning-db/sqlite.h"
#include "tuning-db/tuning_database.h"

namespace nee {
namespace {

using tuner_test::TempDir;

TEST(ConcurrentTuners, MeasureEveryScheduleOnceAndLoseNothing) {
  TempDir dir("concurrent");
  const std::string db_path = dir.file("tuning.db");
  constexpr int kTuners = 3, kTrials = 4;
  std::vector<std::future<ProcessResult>> runs;
  for (int i = 0; i < kTuners; ++i) {
    const std::vector<std::string> argv = {
        NEE_TUNE_PATH, "--op", "matmul", "--shape", "64x64x64", "--trials", std::to_string(kTrials), "--batch", "2",
        "--no-baselines", "--confirm", "0", "--strategy", "random", "--seed", "11", "--transfer-seeds", "0",
        "--repeat", "3", "--min-repeat-ms", "1", "--jobs", "1", "--db", db_path,
        "--work-dir", dir.file("work" + std::to_string(i))};
    runs.push_back(std::async(std::launch::async, [argv] { return run_process(argv, 240, true); }));
  }
  for (std::future<ProcessResult>& run : runs) {
    const ProcessResult r = run.get();
    EXPECT_TRUE(r.exited && r.exit_code == 0) << r.output;
  }

  db::Connection c(db_path, db::OpenMode::read_only);
  EXPECT_EQ(c.query_int("SELECT count(*) FROM claims"), 0) << "every claim ended with its record or its run";
  db::Statement integrity(c, "PRAGMA integrity_check");
  ASSERT_TRUE(integrity.step());
  EXPECT_EQ(integrity.column_text(0), "ok");
  const TuningDatabase db(db_path, DbAccess::read_only);
  const std::vector<TuningRecord> records = db.all_records();
  EXPECT_EQ(records.size(), static_cast<size_t>(kTuners * kTrials)) << "each run measured its trials";
  std::set<ScheduleConfig> distinct;
  int defaults = 0;
  for (const TuningRecord& r : records) {
    EXPECT_TRUE(distinct.insert(r.config).second) << "measured twice: " << r.config.to_string();
    EXPECT_EQ(r.result.status, MeasureStatus::ok) << r.result.error;
    defaults += r.strategy == "default";
  }
  EXPECT_EQ(defaults, 1);
}

}  // namespace
}  // namespace nee
