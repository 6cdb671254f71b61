// Forked compiler jobs and subprocesses: a crash, a hang and an exception cost only
// their own job and are reported as such.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <thread>

#include "core/error.h"
#include "core/subprocess.h"
#include "temp_dir.h"
#include "tuner/compile/forked_jobs.h"

namespace nee {
namespace {

using tuner_test::TempDir;

TEST(ForkedJobs, CrashHangThrowAndSuccessAreEachReported) {
  TempDir dir("forked");
  const std::string done_file = dir.file("done.txt");
  std::vector<ForkedJob> jobs = {
      {[] { std::raise(SIGSEGV); }, dir.file("crash.log")},
      {[] { std::this_thread::sleep_for(std::chrono::seconds(30)); }, dir.file("hang.log")},
      {[] { throw Error("schedule 42 broke the compiler"); }, dir.file("throw.log")},
      {[done_file] { std::ofstream(done_file) << "built"; }, dir.file("ok.log")},
  };
  const auto start = std::chrono::steady_clock::now();
  const std::vector<ForkedJobResult> r = run_forked_jobs(jobs, 4, 1.0);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.size(), 4u);

  EXPECT_NE(r[0].error.find("crashed"), std::string::npos) << r[0].error;
  EXPECT_NE(r[0].error.find(std::to_string(SIGSEGV)), std::string::npos) << r[0].error;
  EXPECT_NE(r[1].error.find("timed out"), std::string::npos) << r[1].error;
  EXPECT_GE(r[1].seconds, 1.0);
  EXPECT_NE(r[2].error.find("schedule 42 broke the compiler"), std::string::npos) << r[2].error;
  EXPECT_EQ(r[3].error, "");
  std::ifstream in(done_file);
  std::string text;
  in >> text;
  EXPECT_EQ(text, "built");
  EXPECT_LT(seconds, 10.0);  // the hung job was killed, not waited for
}

TEST(ForkedJobs, SerialJobsRunInOrderWithinTheLimit) {
  TempDir dir("forked");
  std::vector<ForkedJob> jobs;
  for (int i = 0; i < 3; ++i) {
    const std::string f = dir.file("job" + std::to_string(i));
    jobs.push_back({[f] { std::ofstream(f) << "x"; }, f + ".log"});
  }
  jobs.push_back({[] { std::exit(3); }, dir.file("exit.log")});
  const auto r = run_forked_jobs(jobs, 1, 5.0);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(r[i].error, "");
    EXPECT_TRUE(std::filesystem::exists(dir.file("job" + std::to_string(i))));
  }
  EXPECT_EQ(r[3].error, "failed without a message");
}

TEST(Subprocess, TimeoutKillsTheProcess) {
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult r = run_process({"sleep", "20"}, 0.5);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.exited);
  EXPECT_LT(seconds, 5.0);
}

TEST(Subprocess, TimeoutAlsoKillsGrandchildrenHoldingTheOutput) {
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult r = run_process({"sh", "-c", "echo started; sleep 20 & sleep 20"}, 0.5);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_NE(r.output.find("started"), std::string::npos);
  EXPECT_LT(seconds, 5.0);
}

TEST(Subprocess, OutputExitCodeAndSignal) {
  ProcessResult r = run_process({"sh", "-c", "echo out; echo err >&2; exit 3"}, 10, true);
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.output.find("out"), std::string::npos);
  EXPECT_NE(r.output.find("err"), std::string::npos);

  r = run_process({"sh", "-c", "kill -SEGV $$"}, 10);
  EXPECT_FALSE(r.exited);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.signal, SIGSEGV);

  r = run_process({"/nonexistent/program"}, 10);
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 127);
}

}  // namespace
}  // namespace nee
