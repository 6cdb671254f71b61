#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <thread>

#include <gtest/gtest.h>

#include "core/matmul_workload.h"
#include "tests/tuning-db/test_support.h"
#include "tuning-db/sqlite.h"
#include "tuning-db/tuning_database.h"

namespace nee {
namespace {

using testing_support::make_record;
using testing_support::make_target;
using testing_support::TempDir;

// The child: adds records with knob nr = 0, 1, 2, ... until it is killed.
[[noreturn]] void write_forever(const std::string& path, const Workload& w, const Target& t) {
  try {
    TuningDatabase db(path);
    for (int64_t i = 0;; ++i) db.add_record(make_record(w, t, i, 100.0 + static_cast<double>(i)));
  } catch (...) {
    _exit(1);
  }
}

TEST(TuningDatabaseDurability, KilledWriterLosesNothingCommitted) {
  TempDir dir;
  const std::string path = dir.file("tuning.db");
  const Workload w = matmul_workload_from_shape("32x32x32");
  const Target t = make_target();
  // Created before the fork, so the child and this process never race to initialize it.
  { TuningDatabase init(path); }

  const pid_t child = fork();
  ASSERT_NE(child, -1);
  if (child == 0) write_forever(path, w, t);

  // Every record seen committed before the kill: id -> knob nr.
  std::map<int64_t, int64_t> seen;
  {
    TuningDatabase reader(path);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (seen.size() < 50) {
      int status = 0;
      if (waitpid(child, &status, WNOHANG) == child) FAIL() << "the writer exited early, status " << status;
      if (std::chrono::steady_clock::now() > deadline) {
        kill(child, SIGKILL);
        waitpid(child, nullptr, 0);
        FAIL() << "the writer stored only " << seen.size() << " records in 60 s";
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      seen.clear();
      for (const TuningRecord& r : reader.history(w, t)) seen[r.id] = r.config.at("nr");
    }
    ASSERT_EQ(kill(child, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status));
    ASSERT_EQ(WTERMSIG(status), SIGKILL);
  }

  {
    db::Connection raw(path);
    db::Statement check(raw, "PRAGMA integrity_check");
    ASSERT_TRUE(check.step());
    EXPECT_EQ(check.column_text(0), "ok");
  }

  TuningDatabase db(path);
  std::map<int64_t, TuningRecord> after;
  for (TuningRecord& r : db.history(w, t)) after.emplace(r.id, std::move(r));
  EXPECT_GE(after.size(), seen.size());
  for (const auto& [id, nr] : seen) {
    auto it = after.find(id);
    ASSERT_NE(it, after.end()) << "record " << id << " was lost";
    EXPECT_EQ(it->second.config.at("nr"), nr);
    EXPECT_EQ(it->second.result.median_us, 100.0 + static_cast<double>(nr));
    EXPECT_EQ(it->second.result.status, MeasureStatus::ok);
  }
  // The child wrote nr = 0, 1, 2, ... in id order with no gaps.
  int64_t expected_nr = 0;
  for (const auto& [id, r] : after) EXPECT_EQ(r.config.at("nr"), expected_nr++);

  const int64_t id = db.add_record(make_record(w, t, -1, 1.0));
  EXPECT_GT(id, after.rbegin()->first);
  EXPECT_TRUE(db.contains(w, t, make_record(w, t, -1, 1.0).config));
  EXPECT_EQ(db.best(w, t)->id, id);
}

}  // namespace
}  // namespace nee
