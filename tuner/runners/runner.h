#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/records.h"
#include "tuner/measure/runner_options.h"

namespace nee {

// One built candidate to measure, with the seed of its fresh random inputs.
struct MeasureTask {
  BuildResult build;
  Candidate candidate;
  uint64_t seed = 1;
};

// Measures built candidates somewhere: on this machine (LocalRunner) or on another one
// (SshRunner). The tuning loop stores what it is handed under the target whose device is
// device(), so records always carry the fingerprint of the machine that measured them.
class Runner {
 public:
  // Called with each task's result as soon as it is known. Returning false asks the
  // runner to measure no further task of the batch (the budget is spent); results
  // already measured are still handed over.
  using ResultSink = std::function<bool(size_t task_index, const MeasureResult& result)>;

  virtual ~Runner() = default;
  // "local" or the remote's URL, for messages.
  virtual std::string name() const = 0;
  // The fingerprint of the machine that measures, for a kind of target.
  virtual DeviceFingerprint device(TargetKind kind) = 0;
  // A task whose build failed is not run: its result is build_error. best_us is the best
  // median so far (0: none): far slower candidates get fewer samples.
  virtual void measure(const std::vector<MeasureTask>& tasks, double best_us, const ResultSink& sink) = 0;
};

// How the ssh runner reaches the other machine, beyond its URL.
struct SshSettings {
  std::string identity;              // private key file (-i); empty: ssh's default keys
  std::vector<std::string> options;  // extra `-o NAME=VALUE` options for ssh and scp
};

// "" or "local": a LocalRunner; "ssh://[user@]host[:port]": an SshRunner measuring on that
// host through a temporary folder there. Throws nee::Error naming the URL otherwise.
// work_dir holds the batch folders packed for a remote runner.
std::unique_ptr<Runner> make_runner(const std::string& url, const RunnerOptions& options, const SshSettings& ssh,
                                    const std::string& work_dir);

}  // namespace nee
