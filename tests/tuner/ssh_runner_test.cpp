// The ssh runner against a real sshd on loopback: a tiny tuning run measured "remotely"
// stores ok records under the fingerprint the remote reported, and a second run measures
// no schedule twice. Bad runner URLs are refused by name.
#include <gtest/gtest.h>

#include <set>

#include "core/error.h"
#include "core/matmul_workload.h"
#include "loopback_sshd.h"
#include "temp_dir.h"
#include "tuner/compile/kernel_compiler.h"
#include "tuner/runners/ssh_runner.h"
#include "tuner/scheduling/tuning_loop.h"

namespace nee {
namespace {

using tuner_test::LoopbackSshd;
using tuner_test::TempDir;

TEST(SshRunner, TunesThroughLoopbackSshd) {
  LoopbackSshd sshd;
  try {
    sshd.start();
  } catch (const std::exception& e) {
    FAIL() << "cannot test the ssh runner: " << e.what();
  }
  TempDir dir("ssh-tune");
  TuneOptions options;
  options.trials = 3;
  options.batch = 3;
  options.strategy = "random";
  options.baselines = false;  // the search's own candidates are what crosses ssh here
  options.seed = 5;
  options.work_dir = dir.file("work");
  options.runner.repeats = 3;
  options.runner.min_sample_ms = 1;
  options.runner.timeout_seconds = 60;
  options.measurer = make_runner(sshd.url(), options.runner, {sshd.identity(), sshd.options()}, dir.file("batches"));
  ASSERT_NE(options.measurer->name().find("127.0.0.1"), std::string::npos);

  Target target = host_target(TargetKind::cpu);
  DeviceFingerprint remote_device;
  try {
    remote_device = options.measurer->device(TargetKind::cpu);
  } catch (const std::exception& e) {
    FAIL() << e.what() << "\nsshd log:\n" << sshd.log();
  }
  // Loopback is this machine, so the remote's nee-measure must report this fingerprint.
  EXPECT_EQ(remote_device.hash(), measuring_device(TargetKind::cpu).hash());
  EXPECT_FALSE(remote_device.cpu_model.empty());
  target.device = remote_device;

  const Workload w = matmul_workload_from_shape("16x24x32");
  TuningDatabase db(dir.file("tuning.db"));
  const TuneReport first = tune_workload(db, w, target, options);
  EXPECT_EQ(first.measured, 3);
  const std::vector<TuningRecord> records = db.history(w, target);
  ASSERT_EQ(records.size(), 3u);
  for (const TuningRecord& r : records) {
    EXPECT_EQ(r.result.status, MeasureStatus::ok) << r.result.error;
    EXPECT_GT(r.result.median_us, 0);
    // The default's 3 samples; a later point's timing may stop at 2 when it cannot win.
    EXPECT_GE(r.result.repeats, r.strategy == "default" ? 3 : 2);
    EXPECT_LE(r.result.repeats, 3);
    EXPECT_EQ(r.target.device.hash(), remote_device.hash());
  }
  EXPECT_EQ(records.front().strategy, "default");

  const TuneReport second = tune_workload(db, w, target, options);
  EXPECT_EQ(second.measured, 3);
  std::set<ScheduleConfig> distinct;
  for (const TuningRecord& r : db.history(w, target)) {
    EXPECT_TRUE(distinct.insert(r.config).second) << "measured twice: " << r.config.to_string();
  }
  EXPECT_EQ(distinct.size(), 6u);
}

TEST(SshRunner, UnreachableHostIsAClearError) {
  TempDir dir("ssh-down");
  // Port 1 on loopback: nothing listens there.
  auto runner = make_runner("ssh://127.0.0.1:1", RunnerOptions{}, {"", {"ConnectTimeout=5"}}, dir.path());
  try {
    runner->device(TargetKind::cpu);
    FAIL() << "no error from a host nobody listens on";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ssh://127.0.0.1:1"), std::string::npos) << e.what();
  }
}

TEST(RunnerFactory, RefusesBadUrls) {
  const auto message = [](const std::string& url) {
    try {
      make_runner(url, RunnerOptions{}, {}, "/tmp");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("ftp://host").find("unknown runner 'ftp://host'"), std::string::npos);
  EXPECT_NE(message("ssh://").find("bad runner URL 'ssh://'"), std::string::npos);
  EXPECT_NE(message("ssh://host:99999").find("port"), std::string::npos);
  EXPECT_NE(message("ssh://host:22/some/path").find("bad runner URL"), std::string::npos);
  EXPECT_NE(message("ssh://a b").find("bad runner URL"), std::string::npos);

  const SshUrl u = SshUrl::parse("ssh://tuner@gpu-box.lan:2222");
  EXPECT_EQ(u.destination, "tuner@gpu-box.lan");
  EXPECT_EQ(u.port, 2222);
  EXPECT_EQ(u.to_string(), "ssh://tuner@gpu-box.lan:2222");
  EXPECT_EQ(SshUrl::parse("ssh://host").port, 0);
}

}  // namespace
}  // namespace nee
