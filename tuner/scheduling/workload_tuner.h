#pragma once
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <set>

#include "schedules/schedule_space.h"
#include "tuner/compile/builder.h"
#include "tuner/runners/runner.h"
#include "tuner/scheduling/tuning_loop.h"
#include "tuner/search/search_strategy.h"
#include "tuner/search/transfer_seeds.h"

namespace nee {

// What one round of a workload changed: the best median before the round's search
// proposals (the default point's and baselines' results count as the start when this
// round measured them) and after the round.
struct RoundResult {
  int measured = 0;
  std::optional<double> start_us;
  std::optional<double> best_us;
};

// The tuning state of one workload, kept across rounds so that a task scheduler can
// come back to it: the search strategy (with every point it has seen), the queue of
// transferred points, the report so far. Nothing is measured twice: the strategy
// observes the database's history at construction and every result after it.
class WorkloadTuner {
 public:
  WorkloadTuner(TuningDatabase& db, const Workload& workload, const Target& target, const TuneOptions& options,
                uint64_t seed);

  // One round of up to `count` search candidates (the first round also measures the
  // default point and the baselines when they never were); count 0 measures the default
  // point alone, if it never was (a model's first round of the workload). `stop` is
  // asked before each measurement but the round's first; `after_each` is called after
  // each.
  RoundResult run_round(int count, const std::function<bool()>& stop, const std::function<void()>& after_each);
  // Re-measures the `count` fastest search picks never re-measured, the best record and
  // the default point in `rounds` rounds that each measure every one of them once (in a
  // rotated order, fresh inputs each time), and stores each one's median of its rounds'
  // medians as its confirmed time (see TuningDatabase::best for the ranking); a point
  // that fails a round gets that status. A search keeps its luckiest samples, so on a
  // noisy machine the figure that made a point best is the one least likely to hold: a
  // 128x768x768 matmul record measured 691 us while tuning and 0.9-1.3 ms in the bench,
  // no faster than the default. Where a record timed at another time (an earlier run's
  // confirmation) still ranks first, up to kConfirmPasses passes measure it against this
  // call's best. Baselines are not re-measured (an Adams2019 build takes minutes). A
  // pass with fewer than two points does nothing, and one that `stop` interrupts before
  // its last round ends changes no record. Once `out_of_time` is true no pass after the
  // first starts or goes on: a time budget ends the extra passes, never the first, which
  // alone lets the search's picks rank above the default.
  void confirm(int count, int rounds, const std::function<bool()>& stop,
               const std::function<bool()>& out_of_time = [] { return false; });
  static constexpr int kConfirmPasses = 4;
  // No unseen point of the space is left to propose.
  bool exhausted() const { return exhausted_; }
  int measured() const { return report_.measured; }
  std::optional<double> best_us() const;
  // The fastest first median of a point of the space, baselines left out (unconfirmed
  // picks included, which best_us ranks below the default until they are re-measured).
  std::optional<double> search_best_us() const { return search_best_us_; }
  // Seconds spent in this tuner's rounds.
  double seconds() const { return report_.seconds; }
  // Seconds confirm(count, rounds) is expected to take: one search trial's seconds (the
  // baselines' time left out), at this tuner's pace so far, for each of the count + 1
  // points in each round (a trial builds and measures, so this errs long); fewer points
  // where fewer were measured. 0 before the first search round (the default alone has
  // nothing to be ranked against).
  double confirm_seconds_estimate(int count, int rounds) const;
  const TuneReport& report() const { return report_; }
  // Autoscheduler baselines (by name) later rounds do not build (BaselineVerdicts).
  void skip_baselines(const std::set<std::string>& names) { skipped_baselines_ = names; }
  // Writes the convergence plot when the options ask for one.
  void write_report() const;

 private:
  // One pass of confirm(): false when interrupted.
  bool confirm_pass(const std::vector<TuningRecord>& chosen, int rounds, const std::function<bool()>& stop);
  void measure(std::vector<Candidate>& batch, Builder& builder, const std::function<bool()>& stop,
               const std::function<void()>& after_each, bool baseline);
  // Keeps the candidates this tuner claims in the database (TuningDatabase::claim); the
  // others are measured, or being measured, by another tuner on the same file, and the
  // search learns what of them is stored.
  void keep_claimed(std::vector<Candidate>& batch, bool baseline);

  TuningDatabase& db_;
  Workload workload_;
  Target target_;
  TuneOptions options_;
  std::unique_ptr<ScheduleSpace> space_;
  std::mt19937_64 rng_;
  std::unique_ptr<SearchStrategy> strategy_;
  ScheduleConfig default_config_;
  std::deque<TransferSeed> seeds_;
  bool seeded_ = false;
  std::set<ScheduleConfig> stored_;  // every schedule the database holds for this workload and target
  Builder builder_;
  std::unique_ptr<Builder> baseline_builder_;  // made when a baseline is to be built
  std::shared_ptr<Runner> runner_;
  int trial_ = 0;
  bool exhausted_ = false;
  std::optional<double> search_best_us_;  // fastest point of the space, baselines left out
  std::optional<double> round_start_us_;
  std::chrono::steady_clock::time_point round_started_;
  double baseline_seconds_ = 0;  // of report_.seconds, spent measuring the baselines
  std::set<std::string> skipped_baselines_;
  int measured_in_round_ = 0;             // baselines included
  TuneReport report_;
};

}  // namespace nee
