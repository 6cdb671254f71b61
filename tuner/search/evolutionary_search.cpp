#include "tuner/search/evolutionary_search.h"

#include <algorithm>

namespace nee {

void EvolutionarySearch::observe(const ScheduleConfig& config, const MeasureResult& result) {
  SearchStrategy::observe(config, result);
  if (result.status != MeasureStatus::ok) return;
  elite_.emplace_back(result.median_us, config);
  std::sort(elite_.begin(), elite_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  if (elite_.size() > population_) elite_.resize(population_);
}

const ScheduleConfig& EvolutionarySearch::tournament() {
  std::uniform_int_distribution<size_t> pick(0, elite_.size() - 1);
  const size_t a = pick(rng_), b = pick(rng_);
  return elite_[std::min(a, b)].second;  // elite_ is sorted: the smaller index is faster
}

ScheduleConfig EvolutionarySearch::mutate(const ScheduleConfig& parent) {
  ScheduleConfig child = parent;
  const auto& knobs = space_.knobs();
  std::uniform_int_distribution<size_t> which(0, knobs.size() - 1);
  std::uniform_real_distribution<double> coin(0, 1);
  const int changes = coin(rng_) < 0.7 ? 1 : 2;
  for (int i = 0; i < changes; ++i) {
    const Knob& knob = knobs[which(rng_)];
    if (knob.values.size() < 2) continue;
    const auto at = std::find(knob.values.begin(), knob.values.end(), child.knobs[knob.name]);
    const long pos = at - knob.values.begin();
    long next_pos;
    if (coin(rng_) < 0.7) {
      next_pos = pos + (coin(rng_) < 0.5 ? -1 : 1);
      next_pos = std::clamp<long>(next_pos, 0, static_cast<long>(knob.values.size()) - 1);
    } else {
      next_pos = std::uniform_int_distribution<long>(0, static_cast<long>(knob.values.size()) - 1)(rng_);
    }
    child.knobs[knob.name] = knob.values[static_cast<size_t>(next_pos)];
  }
  return child;
}

ScheduleConfig EvolutionarySearch::crossover(const ScheduleConfig& a, const ScheduleConfig& b) {
  ScheduleConfig child = a;
  std::bernoulli_distribution from_b(0.5);
  for (auto& [name, value] : child.knobs) {
    if (from_b(rng_)) value = b.knobs.at(name);
  }
  return child;
}

ScheduleConfig EvolutionarySearch::next() {
  std::uniform_real_distribution<double> coin(0, 1);
  if (elite_.empty() || coin(rng_) < epsilon_) return space_.random_config(rng_);
  if (elite_.size() >= 2 && coin(rng_) < 0.2) return mutate(crossover(tournament(), tournament()));
  return mutate(tournament());
}

}  // namespace nee
