#pragma once
#include <map>
#include <string>

#include "tuner/runners/runner.h"

namespace nee {

// Where `ssh://[user@]host[:port]` points.
struct SshUrl {
  std::string destination;  // [user@]host, as ssh takes it
  int port = 0;             // 0: ssh's default
  static SshUrl parse(const std::string& url);  // throws nee::Error naming the URL
  std::string to_string() const;
};

// Measures on another machine over ssh. Each batch is packed into a self-contained batch
// folder, copied over with scp, measured there by the folder's own nee-measure --batch,
// and its results.jsonl copied back. ssh runs with BatchMode=yes: authentication is
// key-based and never waits for a password. The remote side needs only sshd, a shell,
// mktemp and the C library; it works in a temporary folder removed when the runner goes.
class SshRunner : public Runner {
 public:
  SshRunner(SshUrl url, SshSettings ssh, RunnerOptions options, std::string work_dir);
  ~SshRunner() override;
  SshRunner(const SshRunner&) = delete;
  SshRunner& operator=(const SshRunner&) = delete;

  std::string name() const override { return url_.to_string(); }
  DeviceFingerprint device(TargetKind kind) override;
  void measure(const std::vector<MeasureTask>& tasks, double best_us, const ResultSink& sink) override;

 private:
  // Runs a shell command on the remote; throws nee::Error with ssh's output on failure.
  std::string remote(const std::string& command, double timeout_seconds);
  void copy(const std::vector<std::string>& sources, const std::string& destination);
  const std::string& remote_dir();  // created on first use

  SshUrl url_;
  SshSettings ssh_;
  RunnerOptions options_;
  std::string work_dir_;
  std::string remote_dir_;
  std::map<TargetKind, DeviceFingerprint> devices_;
  int batches_ = 0;
};

}  // namespace nee
