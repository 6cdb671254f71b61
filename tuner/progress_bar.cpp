#include "tuner/progress_bar.h"

#include <fmt/format.h>
#include <unistd.h>

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

void ProgressBar::update(int done, const std::string& best, double seconds_left) {
  constexpr int width = 24;
  const int filled = total_ > 0 ? std::min(width, done * width / total_) : 0;
  const std::string bar = std::string(filled, '#') + std::string(width - filled, '.');
  const std::string line = fmt::format("[{}] {}/{} trials | best {} | {} left | {}", bar, done, total_, best,
                                       format_duration(seconds_left), label_);
  if (tty_) {
    fmt::print(stderr, "\r\033[K{}", line);
    std::fflush(stderr);
  } else if (done == total_ || last_printed_ < 0 || done - last_printed_ >= std::max(1, total_ / 8)) {
    fmt::print(stderr, "{}\n", line);
    last_printed_ = done;
  }
}

void ProgressBar::finish(const std::string& summary) {
  if (tty_) fmt::print(stderr, "\r\033[K");
  fmt::print(stderr, "{}\n", summary);
}

}  // namespace nee
