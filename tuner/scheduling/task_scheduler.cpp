#include "tuner/scheduling/task_scheduler.h"

#include <algorithm>

#include "core/error.h"

namespace nee {

TaskScheduler::TaskScheduler(std::vector<int> counts, SchedulerOptions options)
    : options_(options), rng_(options.seed) {
  if (counts.empty()) throw Error("the task scheduler needs at least one workload");
  for (int c : counts) {
    if (c < 1) throw Error("a workload's count must be at least 1");
    tasks_.push_back({c, {}, false});
  }
  if (options_.window < 1) throw Error("the scheduler's window must be at least one round");
  if (options_.early_stop_rounds <= 0) options_.early_stop_rounds = std::max<int>(4, static_cast<int>(tasks_.size()));
}

std::optional<double> TaskScheduler::best_us(size_t task) const {
  const std::vector<Round>& rounds = tasks_[task].rounds;
  if (rounds.empty()) return std::nullopt;
  return rounds.back().best_us;
}

double TaskScheduler::estimate_us() const {
  double total = 0;
  for (size_t i = 0; i < tasks_.size(); ++i) {
    if (const std::optional<double> best = best_us(i)) total += tasks_[i].count * *best;
  }
  return total;
}

double TaskScheduler::expected_gain(size_t task) const {
  const std::vector<Round>& rounds = tasks_[task].rounds;
  const std::optional<double> best = best_us(task);
  if (!best) return 0;  // nothing correct yet: no time to gain on; exploration retries it
  const size_t first = rounds.size() > static_cast<size_t>(options_.window) ? rounds.size() - options_.window : 0;
  std::optional<double> from = rounds[first].start_us;
  // A round that started with nothing correct improved on nothing known: count it from its end.
  if (!from) from = rounds[first].best_us;
  const double recent = from && *from > 0 ? std::max(0.0, (*from - *best) / *from) /
                                                static_cast<double>(rounds.size() - first)
                                          : 0.0;
  // Ansor's optimistic forward term: the task could keep shrinking at its average pace,
  // the whole of its time over the rounds spent so far. A task whose curve is flat for a
  // few rounds (a search plateau before a jump) is then not dropped for good.
  const double optimistic = 1.0 / static_cast<double>(rounds.size());
  return tasks_[task].count * *best * (options_.alpha * recent + (1 - options_.alpha) * optimistic);
}

std::optional<size_t> TaskScheduler::next() {
  std::vector<size_t> open;
  for (size_t i = 0; i < tasks_.size(); ++i) {
    if (!tasks_[i].done) open.push_back(i);
  }
  if (open.empty()) return std::nullopt;
  for (size_t i : open) {
    if (tasks_[i].rounds.empty()) return i;  // every task first gets one round, in order
  }
  if (std::uniform_real_distribution<double>(0, 1)(rng_) < options_.epsilon) {
    return open[std::uniform_int_distribution<size_t>(0, open.size() - 1)(rng_)];
  }
  // Largest expected gain; among equal gains (all stalled), the largest share of the
  // model's time, as the place where improvement would matter most.
  return *std::max_element(open.begin(), open.end(), [&](size_t a, size_t b) {
    const double ga = expected_gain(a), gb = expected_gain(b);
    if (ga != gb) return ga < gb;
    return tasks_[a].count * best_us(a).value_or(0) < tasks_[b].count * best_us(b).value_or(0);
  });
}

void TaskScheduler::record(size_t task, std::optional<double> start_us, std::optional<double> best_us, bool done) {
  if (task >= tasks_.size()) throw Error("the task scheduler has no task " + std::to_string(task));
  tasks_[task].rounds.push_back({start_us, best_us});
  tasks_[task].done = tasks_[task].done || done;
  ++total_rounds_;
  const bool warmed_up =
      std::all_of(tasks_.begin(), tasks_.end(), [](const Task& t) { return !t.rounds.empty() || t.done; });
  if (warmed_up) estimates_.push_back(estimate_us());
}

bool TaskScheduler::converged() const {
  if (options_.early_stop_threshold <= 0) return false;
  const size_t k = static_cast<size_t>(options_.early_stop_rounds);
  if (estimates_.size() <= k) return false;
  const double before = estimates_[estimates_.size() - 1 - k], now = estimates_.back();
  return before > 0 && (before - now) / before < options_.early_stop_threshold;
}

}  // namespace nee
