#pragma once
#include <functional>
#include <string>
#include <vector>

namespace nee {

// A piece of compiler work run in a forked child. Its stdout and stderr go to log_path.
struct ForkedJob {
  std::function<void()> work;
  std::string log_path;
};

struct ForkedJobResult {
  std::string error;  // empty on success; else the log's tail, a crash or a timeout
  double seconds = 0;
};

// Runs jobs in forked children, up to `parallel` at once, each killed after
// timeout_seconds. Halide's compiler may abort or hang on a schedule; in a child that
// costs only the job.
std::vector<ForkedJobResult> run_forked_jobs(const std::vector<ForkedJob>& jobs, int parallel,
                                             double timeout_seconds);

}  // namespace nee
