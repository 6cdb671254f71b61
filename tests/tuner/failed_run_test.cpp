// nee-tune fails loudly where it used to succeed in silence: a run whose every trial
// failed, and a --db in a folder that does not exist (which it no longer creates).
#include <gtest/gtest.h>

#include <filesystem>

#include "core/subprocess.h"
#include "temp_dir.h"

namespace nee {
namespace {

using tuner_test::TempDir;

TEST(FailedRun, ARunWhoseEveryTrialFailedExitsNonZero) {
  TempDir dir("failed-run");
  // Each buffer of 10^16 floats is over Halide's 2^31 extent limit: the one trial fails.
  const ProcessResult r =
      run_process({NEE_TUNE_PATH, "--op", "matmul", "--shape", "99999999x99999999x99999999", "--trials", "1",
                   "--no-baselines", "--db", dir.file("tuning.db"), "--work-dir", dir.file("work")},
                  120, true);
  EXPECT_TRUE(r.exited && r.exit_code == 1) << r.output;
  EXPECT_NE(r.output.find("nee-tune: error: no candidate ran: all 1 measured candidate(s) failed; the last: "),
            std::string::npos)
      << r.output;
}

TEST(FailedRun, ADatabaseInAMissingFolderIsRefusedAndNoFolderMade) {
  TempDir dir("failed-run");
  const std::string folder = dir.file("no/such");
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{NEE_TUNE_PATH, "--op", "matmul", "--shape", "8x8x8", "--trials", "1", "--db",
                                 folder + "/tuning.db"},
        std::vector<std::string>{NEE_TUNE_PATH, "db", "--db", folder + "/tuning.db", "list"}}) {
    const ProcessResult r = run_process(command, 60, true);
    EXPECT_TRUE(r.exited && r.exit_code == 1) << r.output;
    EXPECT_NE(r.output.find(folder + " is a folder that does not exist"), std::string::npos) << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("no")));
}

}  // namespace
}  // namespace nee
