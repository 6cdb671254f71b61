#pragma once
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

namespace nee {

struct SchedulerOptions {
  double epsilon = 0.05;  // share of rounds given to a uniformly random task (exploration)
  int window = 3;         // a task's last rounds whose improvement counts as recent
  // Weight of the recent improvement against the optimistic term; Ansor's default 0.2.
  double alpha = 0.2;
  // Stop when no workload is still improving: each whose share of the model's estimated
  // time is `measurable_share` or more has had `early_stop_rounds` rounds and improved
  // its best by less than this fraction over the last of them (and the others their
  // first round); 0 never stops early.
  double early_stop_threshold = 0.01;
  int early_stop_rounds = 3;
  double measurable_share = 0.01;
  uint64_t seed = 1;
};

// Decides which workload of a model the next round of trials goes to, after Ansor's task
// scheduler (Zheng et al., OSDI 2020): the objective is the model's estimated time,
// sum(count x best median), and a round goes to the task with the largest expected gain,
// count x best x expected relative improvement per round. As in Ansor's gradient, that
// improvement blends the backward difference of the task's curve (its relative
// improvement per round over its last `window` rounds) with an optimistic forward term
// (1 / its rounds so far), weighted alpha : 1 - alpha. Every task first gets one round
// (the heaviest by first_round_weights first); an epsilon share of rounds goes to a
// random task.
// Timings come from outside (record()), so the allocation is testable with synthetic
// curves.
class TaskScheduler {
 public:
  // first_round_weights: one per task, the order of the first rounds, heaviest first (a
  // model passes count x FLOPs); empty: task order.
  TaskScheduler(std::vector<int> counts, SchedulerOptions options, std::vector<double> first_round_weights = {});

  // The task the next round goes to; nullopt once every task is done.
  std::optional<size_t> next();
  // A finished round of `task`: its best median before the round's search (nullopt:
  // none correct yet) and after the round. `done`: the task gets no more rounds (its
  // trial budget is spent or its space exhausted).
  void record(size_t task, std::optional<double> start_us, std::optional<double> best_us, bool done);

  // count x best over the tasks with a correct result.
  double estimate_us() const;
  // count x best x (alpha x recent relative improvement per round + (1 - alpha) / rounds).
  double expected_gain(size_t task) const;
  // Every task has had its first round, and every task of a measurable share has had
  // early_stop_rounds rounds and improved less than the threshold over the last of them.
  bool converged() const;
  // Whether `task` still improves by the early stop's measure (see converged()).
  bool improving(size_t task) const;
  int rounds(size_t task) const { return static_cast<int>(tasks_[task].rounds.size()); }
  int total_rounds() const { return total_rounds_; }

 private:
  struct Round {
    std::optional<double> start_us, best_us;
  };
  struct Task {
    int count;
    std::vector<Round> rounds;
    bool done = false;
  };
  std::optional<double> best_us(size_t task) const;

  std::vector<Task> tasks_;
  std::vector<double> first_round_weights_;
  SchedulerOptions options_;
  std::mt19937_64 rng_;
  int total_rounds_ = 0;
};

}  // namespace nee
