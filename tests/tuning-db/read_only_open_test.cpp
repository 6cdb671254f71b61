// Reading commands open a tuning database read-only: a file they may not write is
// listed, an older schema is read without being migrated, and nothing is ever written,
// created or locked for writing.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
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
using testing_support::read_bytes;
using testing_support::TempDir;

namespace fs = std::filesystem;

// The error of `write`, which must throw nee::Error.
template <typename Write>
std::string error_of(Write write) {
  try {
    write();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ReadOnlyOpen, ReadsEverythingAndWritesNothing) {
  TempDir dir;
  const std::string path = dir.file("tuning.db");
  const Workload w = matmul_workload_from_shape("8x8x8");
  const Target t = make_target();
  { TuningDatabase(path).add_record(make_record(w, t, 1, 10.0)); }
  const std::string before = read_bytes(path);
  TuningDatabase db(path, DbAccess::read_only);
  EXPECT_TRUE(db.read_only());
  EXPECT_EQ(db.schema_version(), TuningDatabase::latest_schema_version());
  ASSERT_EQ(db.workloads(t).size(), 1u);
  EXPECT_EQ(db.best(w, t)->result.median_us, 10.0);
  const std::string add = error_of([&] { db.add_record(make_record(w, t, 2, 5.0)); });
  EXPECT_NE(add.find(path + ": opened read-only; cannot add a record"), std::string::npos) << add;
  EXPECT_NE(error_of([&] { db.prune_keep_top_k(1); }).find("opened read-only"), std::string::npos);
  EXPECT_NE(error_of([&] { db.claim(w, t, make_record(w, t, 3, 1.0).config); }).find("opened read-only"),
            std::string::npos);
  EXPECT_EQ(db.all_records().size(), 1u);
  EXPECT_EQ(read_bytes(path), before);
}

TEST(ReadOnlyOpen, AnOlderSchemaIsReadWithoutMigratingTheFile) {
  TempDir dir;
  const std::string path = dir.file("v1.db");
  const Workload w = matmul_workload_from_shape("8x8x8");
  const Target t = make_target();
  ASSERT_NO_FATAL_FAILURE(testing_support::write_v1_file(path, t, w, "default", 0));
  const std::string before = read_bytes(path);
  {
    TuningDatabase db(path, DbAccess::read_only);
    EXPECT_EQ(db.schema_version(), 1);
    const std::optional<TuningRecord> best = db.best(w, t);
    ASSERT_TRUE(best);
    EXPECT_EQ(best->result.median_us, 12.5);
    EXPECT_FALSE(best->confirmed_us);
  }
  EXPECT_EQ(read_bytes(path), before);
  db::Connection c(path);
  EXPECT_EQ(c.query_int("PRAGMA user_version"), 1);
}

TEST(ReadOnlyOpen, AMissingFileIsAnErrorAndIsNotCreated) {
  TempDir dir;
  const std::string path = dir.file("none.db");
  const std::string error = error_of([&] { TuningDatabase db(path, DbAccess::read_only); });
  EXPECT_NE(error.find(path + ": no such file"), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(path));
}

TEST(ReadOnlyOpen, AnotherApplicationsFileIsStillRefused) {
  TempDir dir;
  const std::string path = dir.file("other.db");
  {
    db::Connection c(path);
    c.exec("PRAGMA application_id = 305419896; CREATE TABLE photos (id INTEGER PRIMARY KEY)");
  }
  const std::string error = error_of([&] { TuningDatabase db(path, DbAccess::read_only); });
  EXPECT_NE(error.find("another application"), std::string::npos) << error;
}

// Runs `check` in a child process that cannot write `folder` or the files in it: as
// root (the tests' user, whom permissions do not stop), the child becomes nobody; as
// anyone else, the folder and its files lose their write permission meanwhile. Returns
// the child's exit status.
template <typename Check>
int as_a_reader(const std::string& folder, Check check) {
  const bool root = geteuid() == 0;
  const fs::perms reader = fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                           fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec;
  fs::permissions(folder, reader);
  for (const auto& entry : fs::directory_iterator(folder)) {
    fs::permissions(entry.path(), fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  }
  const pid_t pid = fork();
  if (pid == 0) {
    const uid_t nobody = 65534;
    if (root && (setgid(nobody) != 0 || setuid(nobody) != 0)) _exit(90);
    _exit(check());
  }
  int status = 0;
  waitpid(pid, &status, 0);
  fs::permissions(folder, fs::perms::owner_all);
  for (const auto& entry : fs::directory_iterator(folder)) fs::permissions(entry.path(), fs::perms::owner_all);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(ReadOnlyOpen, AFileAndFolderThisUserCannotWriteAreListed) {
  TempDir dir;
  const std::string folder = dir.file("shared");
  fs::create_directory(folder);
  const std::string path = folder + "/tuning.db";
  const Workload w = matmul_workload_from_shape("8x8x8");
  const Target t = make_target();
  { TuningDatabase(path).add_record(make_record(w, t, 1, 10.0)); }
  // The last connection's close removed the WAL's -wal and -shm files, which a reader
  // of a WAL file then cannot create in this folder.
  ASSERT_FALSE(fs::exists(path + "-shm"));
  const std::string before = read_bytes(path);
  // The TempDir's own folder is private to its owner: let the reader through it.
  fs::permissions(dir.file(""), fs::perms::others_exec | fs::perms::group_exec, fs::perm_options::add);
  const int listed = as_a_reader(folder, [&] {
    try {
      const TuningDatabase db(path, DbAccess::read_only);
      return db.workloads(t).size() == 1 && db.best(w, t)->result.median_us == 10.0 ? 0 : 1;
    } catch (const std::exception& e) {
      fprintf(stderr, "%s\n", e.what());
      return 2;
    }
  });
  EXPECT_EQ(listed, 0);
  const int refused = as_a_reader(folder, [&] {
    try {
      TuningDatabase db(path);
      return 1;
    } catch (const Error& e) {
      const std::string message = e.what();
      fprintf(stderr, "%s\n", e.what());
      return message.find(path + ": the file is read-only for this user") != std::string::npos ? 0 : 2;
    }
  });
  EXPECT_EQ(refused, 0) << "a writing open must say the file is read-only";
  EXPECT_EQ(read_bytes(path), before);
}

}  // namespace
}  // namespace nee
