#pragma once
#include <chrono>
#include <string>

namespace nee {

// One status line on stderr: trials done, best so far, time left. Redrawn in place on a
// terminal, printed every few trials otherwise (logs, CI). Debian 12 packages no C++
// progress-bar library (indicators is not packaged), so this is the project's own.
class ProgressBar {
 public:
  // total: the trial budget, or 0 when only a time budget bounds the run.
  ProgressBar(std::string label, int total);
  // fraction: how much of the budget (trials or time, whichever binds) is spent.
  void update(int done, double fraction, const std::string& best, double seconds_left);
  void finish(const std::string& summary);

 private:
  std::string label_;
  int total_;
  bool tty_;
  int last_printed_tenth_ = -1;
};

std::string format_duration(double seconds);

}  // namespace nee
