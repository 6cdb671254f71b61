#pragma once
#include "tuner/search/search_strategy.h"

namespace nee {

// Uniform sampling of valid points: the baseline every guided strategy must beat.
class RandomSearch : public SearchStrategy {
 public:
  using SearchStrategy::SearchStrategy;
  std::string name() const override { return "random"; }

 protected:
  ScheduleConfig next() override { return space_.random_config(rng_); }
};

}  // namespace nee
