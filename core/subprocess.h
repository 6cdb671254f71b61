#pragma once
#include <string>
#include <vector>

namespace nee {

struct ProcessResult {
  int exit_code = -1;      // valid when exited
  bool exited = false;     // ended by exit()
  int signal = 0;          // set when killed by a signal
  bool timed_out = false;  // killed by us at the deadline
  std::string output;      // stdout (and stderr when merged)
};

// Runs a program with a wall-clock limit; on expiry the process group gets SIGKILL.
// stdout is captured; stderr is captured too when merge_stderr, else inherited.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout_seconds,
                          bool merge_stderr = false);

// In a forked child: becomes argv's program (looked up in PATH), or exits 127.
[[noreturn]] void exec_or_exit(const std::vector<std::string>& argv);

// Folder of the running executable (where nee-measure sits beside nee-tune).
std::string executable_dir();

}  // namespace nee
