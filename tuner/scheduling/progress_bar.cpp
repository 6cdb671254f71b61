#include "tuner/scheduling/progress_bar.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace nee {

ProgressBar::ProgressBar(std::string label, int total)
    : label_(std::move(label)), total_(total), tty_(isatty(STDERR_FILENO) != 0) {}

std::string format_duration(double seconds) {
  if (seconds < 0) seconds = 0;
  const int s = static_cast<int>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, (s / 60) % 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

void ProgressBar::update(int done, double fraction, const std::string& best, double seconds_left) {
  constexpr int width = 24;
  fraction = std::clamp(fraction, 0.0, 1.0);
  const int filled = static_cast<int>(fraction * width);
  const std::string bar = std::string(filled, '#') + std::string(width - filled, '.');
  const std::string trials = total_ > 0 ? fmt::format("{}/{}", done, total_) : std::to_string(done);
  const std::string line = fmt::format("[{}] {} trials | best {} | {} left | {}", bar, trials, best,
                                       format_duration(seconds_left), label_);
  const int tenth = static_cast<int>(fraction * 10);
  if (tty_) {
    fmt::print(stderr, "\r\033[K{}", line);
    std::fflush(stderr);
  } else if (tenth != last_printed_tenth_) {
    fmt::print(stderr, "{}\n", line);
    last_printed_tenth_ = tenth;
  }
}

void ProgressBar::finish(const std::string& summary) {
  if (tty_) fmt::print(stderr, "\r\033[K");
  fmt::print(stderr, "{}\n", summary);
}

}  // namespace nee
