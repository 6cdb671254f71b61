// One `nee-measure --serve` process for many candidates, against fake programs that
// speak its protocol: candidates share the process until one fails it, and whatever
// happens to it (a crash, a hang, an exit, an unreadable answer) becomes that
// candidate's result while the next candidate gets a fresh process.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "temp_dir.h"
#include "tuner/measure/measuring_child.h"

namespace nee {
namespace {

using tuner_test::TempDir;

// A fake's answer: ok, with the median it is given (a shell expression).
std::string ok_answer(const std::string& median) {
  return "echo \"nee-measure result: {\\\"status\\\":\\\"ok\\\",\\\"median_us\\\":" + median +
         ",\\\"min_us\\\":1,\\\"stddev_us\\\":0,\\\"repeats\\\":3,\\\"max_abs_error\\\":0,\\\"error\\\":\\\"\\\"}\"";
}

class FakeServer : public ::testing::Test {
 protected:
  FakeServer() : dir_("measuring-child") {}
  MeasuringChild child(const std::string& body, double timeout_s = 10) {
    RunnerOptions options;
    options.timeout_seconds = timeout_s;
    return MeasuringChild({dir_.script("fake-serve", body)}, options);
  }
  static ChildMeasurement candidate(const std::string& library) {
    return {library, "nee_fake", "/nonexistent/workload.json", 5, 0, ""};
  }
  TempDir dir_;
};

TEST_F(FakeServer, CandidatesShareOneProcessAndTheirLinesReachIt) {
  // The median answered is the candidate's number in this process; a line that names
  // another library than the one sent is refused.
  MeasuringChild c = child(
      "case \"$*\" in *--serve*) ;; *) exit 9;; esac\n"
      "n=0\nwhile read -r line; do n=$((n+1))\n"
      "  case \"$line\" in *\\\"library\\\":\\\"/lib/k$n.so\\\"*\\\"seed\\\":5*) ;;\n"
      "  *) echo \"bad: $line\"; exit 1;; esac\n"
      "  echo 'a kernel printed this'\n  " +
      ok_answer("$n") + "\ndone");
  for (int i = 1; i <= 3; ++i) {
    const MeasureResult r = c.measure(candidate("/lib/k" + std::to_string(i) + ".so"));
    ASSERT_EQ(r.status, MeasureStatus::ok) << r.error;
    EXPECT_DOUBLE_EQ(r.median_us, i);
  }
  EXPECT_EQ(c.started(), 1);
}

TEST_F(FakeServer, TheProcessIsInAGroupOfItsOwnSoCtrlCReachesOnlyTheTuner) {
  // The fake answers its process group as the median.
  MeasuringChild c = child("read -r line\npg=$(cut -d' ' -f5 /proc/$$/stat)\n" + ok_answer("$pg"));
  const MeasureResult r = c.measure(candidate("/lib/a.so"));
  ASSERT_EQ(r.status, MeasureStatus::ok) << r.error;
  EXPECT_GT(r.median_us, 0);
  EXPECT_NE(static_cast<pid_t>(r.median_us), getpgrp());
}

TEST_F(FakeServer, ACrashIsThatCandidatesAndTheNextGetsAFreshProcess) {
  MeasuringChild c = child("read -r line\n" + ok_answer("7") + "\nread -r line\nkill -SEGV $$");
  EXPECT_EQ(c.measure(candidate("/lib/a.so")).status, MeasureStatus::ok);
  const MeasureResult crashed = c.measure(candidate("/lib/b.so"));
  EXPECT_EQ(crashed.status, MeasureStatus::crash);
  EXPECT_NE(crashed.error.find("Segmentation"), std::string::npos) << crashed.error;
  const MeasureResult next = c.measure(candidate("/lib/c.so"));
  EXPECT_EQ(next.status, MeasureStatus::ok) << next.error;
  EXPECT_DOUBLE_EQ(next.median_us, 7);
  EXPECT_EQ(c.started(), 2);
}

TEST_F(FakeServer, AHangIsATimeout) {
  MeasuringChild c = child("read -r line\nexec sleep 30", 1);
  const MeasureResult r = c.measure(candidate("/lib/a.so"));
  EXPECT_EQ(r.status, MeasureStatus::timeout);
  EXPECT_NE(r.error.find("exceeded 1 s"), std::string::npos) << r.error;
}

TEST_F(FakeServer, AnExitWithoutAnAnswerIsARuntimeErrorWithWhatItPrinted) {
  MeasuringChild c = child("read -r line\necho 'cannot load the kernel'\nexit 3");
  const MeasureResult r = c.measure(candidate("/lib/a.so"));
  EXPECT_EQ(r.status, MeasureStatus::runtime_error);
  EXPECT_NE(r.error.find("exited 3"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("cannot load the kernel"), std::string::npos) << r.error;
  EXPECT_EQ(c.measure(candidate("/lib/b.so")).status, MeasureStatus::runtime_error);
  EXPECT_EQ(c.started(), 2);
}

TEST_F(FakeServer, AnUnreadableAnswerIsARuntimeError) {
  MeasuringChild c = child("while read -r line; do echo 'nee-measure result: {oops'; done");
  const MeasureResult r = c.measure(candidate("/lib/a.so"));
  EXPECT_EQ(r.status, MeasureStatus::runtime_error);
  EXPECT_NE(r.error.find("unreadable"), std::string::npos) << r.error;
}

TEST_F(FakeServer, AFailedCandidateEndsTheProcessAndSoDoesItsSixtyFourth) {
  MeasuringChild c = child(
      "while read -r line; do case \"$line\" in *wrong*) echo 'nee-measure result: "
      "{\"status\":\"wrong_result\",\"median_us\":0,\"min_us\":0,\"stddev_us\":0,\"repeats\":0,"
      "\"max_abs_error\":1,\"error\":\"differs\"}';; *) " +
      ok_answer("1") + ";; esac; done");
  EXPECT_EQ(c.measure(candidate("/lib/wrong.so")).status, MeasureStatus::wrong_result);
  EXPECT_EQ(c.measure(candidate("/lib/a.so")).status, MeasureStatus::ok);
  EXPECT_EQ(c.started(), 2) << "a wrong kernel may have damaged its process";
  for (int i = 1; i < MeasuringChild::kCandidatesPerChild; ++i) c.measure(candidate("/lib/a.so"));
  EXPECT_EQ(c.started(), 2);
  EXPECT_EQ(c.measure(candidate("/lib/a.so")).status, MeasureStatus::ok);
  EXPECT_EQ(c.started(), 3);
}

}  // namespace
}  // namespace nee
