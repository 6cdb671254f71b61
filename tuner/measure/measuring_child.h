#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

#include "core/records.h"
#include "tuner/measure/child_measurement.h"
#include "tuner/measure/runner_options.h"

namespace nee {

// One `nee-measure --serve` process kept for many candidates: the program's start, its
// kernel pool and a round's reference output are paid once, not per candidate. Each
// candidate still runs under options.timeout_seconds, and whatever happens to the
// process becomes that candidate's result, as with measure_in_child(). A hang, a crash or
// any result but ok ends the process (a kernel that went wrong may have damaged it), and
// the next candidate starts a fresh one, as does every kCandidatesPerChild-th.
class MeasuringChild {
 public:
  static constexpr int kCandidatesPerChild = 64;

  // command: nee-measure, after the words of a launcher where there is one.
  MeasuringChild(std::vector<std::string> command, RunnerOptions options);
  ~MeasuringChild();
  MeasuringChild(const MeasuringChild&) = delete;
  MeasuringChild& operator=(const MeasuringChild&) = delete;

  MeasureResult measure(const ChildMeasurement& m);
  // Processes started so far.
  int started() const { return started_; }

 private:
  void start();
  void stop();
  // The result for a process that closed its output before answering.
  MeasureResult ended(const std::string& output);

  std::vector<std::string> command_;
  RunnerOptions options_;
  pid_t pid_ = -1;
  int socket_ = -1;     // the process's standard input and output
  std::string unread_;  // output read past the last complete line
  int served_ = 0;      // candidates answered by the current process
  int started_ = 0;
};

}  // namespace nee
