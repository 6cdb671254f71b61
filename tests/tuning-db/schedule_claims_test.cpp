// Claims let tuners that share a database measure each schedule once: a claim stands
// while its owner runs, a killed owner's claim is taken over at once, another host's
// claim expires after its lease, and storing the record ends the claim.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include <gtest/gtest.h>

#include "core/matmul_workload.h"
#include "tests/tuning-db/test_support.h"
#include "tuning-db/process_identity.h"
#include "tuning-db/sqlite.h"
#include "tuning-db/tuning_database.h"

namespace nee {
namespace {

using testing_support::make_record;
using testing_support::make_target;
using testing_support::TempDir;

int64_t claims(const std::string& path) {
  db::Connection c(path, db::OpenMode::read_only);
  return c.query_int("SELECT count(*) FROM claims");
}

TEST(ScheduleClaims, AClaimIsExclusiveUntilItsRecordIsStored) {
  TempDir dir;
  const std::string path = dir.file("tuning.db");
  const Workload w = matmul_workload_from_shape("8x8x8");
  const Target t = make_target();
  const TuningRecord point = make_record(w, t, 1, 10.0);
  TuningDatabase first(path), second(path);
  EXPECT_EQ(first.claim(w, t, point.config), ScheduleClaim::claimed);
  EXPECT_EQ(first.claim(w, t, point.config), ScheduleClaim::claimed) << "a claim held is held again";
  EXPECT_EQ(second.claim(w, t, point.config), ScheduleClaim::taken);
  EXPECT_EQ(second.claim(w, make_target("Other CPU"), point.config), ScheduleClaim::claimed)
      << "claims are per target";
  first.add_record(point);
  EXPECT_EQ(second.claim(w, t, point.config), ScheduleClaim::measured);
  EXPECT_EQ(claims(path), 1) << "the stored record ended its claim; the other target's stands";
}

TEST(ScheduleClaims, ReleasedClaimsAreFreeForOthers) {
  TempDir dir;
  const std::string path = dir.file("tuning.db");
  const Workload w = matmul_workload_from_shape("8x8x8");
  const Target t = make_target();
  const ScheduleConfig a = make_record(w, t, 1, 1.0).config, b = make_record(w, t, 2, 1.0).config;
  TuningDatabase other(path);
  {
    TuningDatabase first(path);
    EXPECT_EQ(first.claim(w, t, a), ScheduleClaim::claimed);
    EXPECT_EQ(first.claim(w, t, b), ScheduleClaim::claimed);
    first.release_claims();
    EXPECT_EQ(other.claim(w, t, a), ScheduleClaim::claimed);
    EXPECT_EQ(first.claim(w, t, b), ScheduleClaim::claimed);
  }  // closing releases b
  EXPECT_EQ(other.claim(w, t, b), ScheduleClaim::claimed);
}

TEST(ScheduleClaims, AKilledTunersClaimsAreTakenOver) {
  TempDir dir;
  const std::string path = dir.file("tuning.db");
  const Workload w = matmul_workload_from_shape("8x8x8");
  const Target t = make_target();
  const ScheduleConfig point = make_record(w, t, 1, 1.0).config;
  { TuningDatabase create(path); }
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  if (child == 0) {
    TuningDatabase db(path);
    const char claimed = db.claim(w, t, point) == ScheduleClaim::claimed ? 'y' : 'n';
    if (write(ready[1], &claimed, 1) != 1) _exit(1);
    pause();  // killed here, holding the claim
    _exit(0);
  }
  char claimed = 0;
  ASSERT_EQ(read(ready[0], &claimed, 1), 1);
  EXPECT_EQ(claimed, 'y');
  TuningDatabase db(path);
  EXPECT_EQ(db.claim(w, t, point), ScheduleClaim::taken) << "its owner still runs";
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(claims(path), 1) << "a killed process releases nothing";
  EXPECT_EQ(db.claim(w, t, point), ScheduleClaim::claimed);
  close(ready[0]);
  close(ready[1]);
}

TEST(ScheduleClaims, AnotherHostsClaimLastsItsLeaseAndAnEarlierBootsNone) {
  TempDir dir;
  const std::string path = dir.file("tuning.db");
  const Workload w = matmul_workload_from_shape("8x8x8");
  const Target t = make_target();
  const ScheduleConfig point = make_record(w, t, 1, 1.0).config;
  TuningDatabase db(path);
  const db::ProcessIdentity me = db::ProcessIdentity::of_this_process();
  const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  // A claim row as another tuner would store it, `age` seconds old.
  const auto plant = [&](const std::string& host, const std::string& boot_id, double age) {
    db::Connection c(path);
    db::Statement s(c, R"sql(INSERT OR REPLACE INTO claims VALUES (?1, ?2, ?3, ?4, ?5, 1, 1, 7, ?6))sql");
    s.bind_text(1, w.key()).bind_text(2, t.key()).bind_text(3, point.to_json().dump());
    s.bind_text(4, host).bind_text(5, boot_id).bind_double(6, now - age);
    s.step();
  };
  plant("another-host", "another-boot", 60);
  EXPECT_EQ(db.claim(w, t, point), ScheduleClaim::taken);
  plant("another-host", "another-boot", TuningDatabase::kClaimLeaseSeconds + 60);
  EXPECT_EQ(db.claim(w, t, point), ScheduleClaim::claimed) << "the lease ran out";
  if (!me.boot_id.empty()) {
    plant(me.host, "an-earlier-boot", 60);
    EXPECT_EQ(db.claim(w, t, point), ScheduleClaim::claimed) << "this host booted again since";
  }
}

TEST(ProcessIdentity, TellsThisProcessFromAnEndedOne) {
  const db::ProcessIdentity me = db::ProcessIdentity::of_this_process();
  EXPECT_EQ(me.pid, getpid());
  EXPECT_TRUE(db::ProcessIdentity::running_here(me.pid, me.start_ticks));
  EXPECT_FALSE(db::ProcessIdentity::running_here(me.pid, me.start_ticks + 1)) << "a reused pid is another process";
  const pid_t child = fork();
  if (child == 0) _exit(0);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_FALSE(db::ProcessIdentity::running_here(child, 0));
}

}  // namespace
}  // namespace nee
