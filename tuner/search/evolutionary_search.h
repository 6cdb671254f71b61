#pragma once
#include <utility>
#include <vector>

#include "tuner/search/search_strategy.h"

namespace nee {

// Evolution of the best points measured so far: a parent drawn by tournament from the
// fastest correct points is mutated in one or two knobs (to a neighbouring value most of
// the time, so tile sizes walk rather than jump), or crossed with a second parent; with
// probability epsilon a uniformly random point is proposed instead, so the search keeps
// exploring.
class EvolutionarySearch : public SearchStrategy {
 public:
  EvolutionarySearch(const ScheduleSpace& space, uint64_t seed, double epsilon = 0.2, size_t population = 16)
      : SearchStrategy(space, seed), epsilon_(epsilon), population_(population) {}
  std::string name() const override { return "evolutionary"; }
  void observe(const ScheduleConfig& config, const MeasureResult& result) override;

 protected:
  ScheduleConfig next() override;

 private:
  const ScheduleConfig& tournament();
  ScheduleConfig mutate(const ScheduleConfig& parent);
  ScheduleConfig crossover(const ScheduleConfig& a, const ScheduleConfig& b);

  double epsilon_;
  size_t population_;
  std::vector<std::pair<double, ScheduleConfig>> elite_;  // (median us, point), fastest first
};

}  // namespace nee
