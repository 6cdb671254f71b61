#pragma once
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/records.h"
#include "schedules/schedule_space.h"

namespace nee {

// Proposes schedule points to measure and learns from their results. A strategy never
// proposes a point it has seen (measured here, or known from the database).
class SearchStrategy {
 public:
  SearchStrategy(const ScheduleSpace& space, uint64_t seed) : space_(space), rng_(seed) {}
  virtual ~SearchStrategy() = default;
  virtual std::string name() const = 0;

  // Up to `count` new valid points; fewer when the space is exhausted.
  std::vector<ScheduleConfig> propose(int count);
  // Tells the strategy a point's result (also for points seeded from the database).
  virtual void observe(const ScheduleConfig& config, const MeasureResult& result);
  bool seen(const ScheduleConfig& config) const { return seen_.count(config) != 0; }
  // Whether the strategy learns from records of similar workloads (a cost model does),
  // so the tuner reads them from the database only for such a strategy.
  virtual bool learns_from_similar() const { return false; }
  // An ok record of a similar workload measured on this very target
  // (similar_records_here()); a strategy with a cost model learns from it, so that it
  // ranks its first proposals too.
  virtual void learn_from_similar(const TuningRecord&) {}
  // The strategy's predicted median time of a point it proposed, when it has a model.
  virtual std::optional<double> predicted_us(const ScheduleConfig&) const { return std::nullopt; }
  // A point expected to be good that is measured in the same batch as the next
  // proposals (the space's default point, a point transferred from a similar workload):
  // a strategy with no result yet may start from it rather than from nothing. The point
  // counts as seen, since it is being measured.
  virtual void start_from(const ScheduleConfig& config) { seen_.insert(config); }
  // A point that another tuner on the same database measures: counts as seen, so it is
  // never proposed here again.
  void pass_over(const ScheduleConfig& config) { seen_.insert(config); }

 protected:
  // One proposal; may return a seen or invalid point, which propose() filters out.
  virtual ScheduleConfig next() = 0;

  const ScheduleSpace& space_;
  std::mt19937_64 rng_;
  std::set<ScheduleConfig> seen_;
};

// "random", "evolutionary" or "model" (the cost model's features need the workload and
// the target's device).
std::unique_ptr<SearchStrategy> make_search_strategy(const std::string& name, const ScheduleSpace& space,
                                                     uint64_t seed, const Workload& workload, const Target& target);
// "random" or "evolutionary".
std::unique_ptr<SearchStrategy> make_search_strategy(const std::string& name, const ScheduleSpace& space,
                                                     uint64_t seed);

}  // namespace nee
