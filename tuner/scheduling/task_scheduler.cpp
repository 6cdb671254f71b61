#include "tuner/scheduling/task_scheduler.h"

#include <algorithm>
#include <utility>

#include "core/error.h"

namespace nee {

TaskScheduler::TaskScheduler(std::vector<int> counts, SchedulerOptions options, std::vector<double> first_round_weights)
    : first_round_weights_(std::move(first_round_weights)), options_(options), rng_(options.seed) {
  if (counts.empty()) throw Error("the task scheduler needs at least one workload");
  if (!first_round_weights_.empty() && first_round_weights_.size() != counts.size()) {
    throw Error("the task scheduler needs one first-round weight per workload");
  }
  for (int c : counts) {
    if (c < 1) throw Error("a workload's count must be at least 1");
    tasks_.push_back({c, {}, false});
  }
  if (options_.window < 1) throw Error("the scheduler's window must be at least one round");
  if (options_.early_stop_rounds < 1) throw Error("the early stop looks back over one round or more");
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
  // Every task first gets one round, the heaviest first.
  std::optional<size_t> unmeasured;
  for (size_t i : open) {
    if (!tasks_[i].rounds.empty()) continue;
    if (first_round_weights_.empty()) return i;
    if (!unmeasured || first_round_weights_[i] > first_round_weights_[*unmeasured]) unmeasured = i;
  }
  if (unmeasured) return unmeasured;
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
}

bool TaskScheduler::improving(size_t task) const {
  const Task& t = tasks_[task];
  if (t.done) return false;
  if (t.rounds.empty()) return true;  // not yet measured
  const std::optional<double> best = best_us(task);
  const double estimate = estimate_us();
  // A workload too small to matter needs its first round only. One with nothing correct
  // yet has no share to judge: it stays open until its rounds are spent.
  if (best && estimate > 0 && t.count * *best < options_.measurable_share * estimate) return false;
  const size_t k = static_cast<size_t>(options_.early_stop_rounds);
  if (t.rounds.size() < k || !best) return true;
  // The best before the last k rounds: the start of the first of them, or its end where
  // it started with nothing correct.
  const Round& first = t.rounds[t.rounds.size() - k];
  const std::optional<double> before = first.start_us ? first.start_us : first.best_us;
  return before && *before > 0 && (*before - *best) / *before >= options_.early_stop_threshold;
}

bool TaskScheduler::converged() const {
  if (options_.early_stop_threshold <= 0) return false;
  for (size_t i = 0; i < tasks_.size(); ++i) {
    if (improving(i)) return false;
  }
  return true;
}

}  // namespace nee
