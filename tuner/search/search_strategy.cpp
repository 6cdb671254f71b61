#include "tuner/search/search_strategy.h"

#include "core/error.h"
#include "tuner/search/evolutionary_search.h"
#include "tuner/search/model_guided_search.h"
#include "tuner/search/random_search.h"

namespace nee {

std::vector<ScheduleConfig> SearchStrategy::propose(int count) {
  std::vector<ScheduleConfig> out;
  std::set<ScheduleConfig> proposed;
  // A bounded number of draws: small spaces run out of unseen points.
  for (int draw = 0; draw < count * 200 && static_cast<int>(out.size()) < count; ++draw) {
    ScheduleConfig c = next();
    if (seen_.count(c) || proposed.count(c) || !space_.check(c).empty()) continue;
    proposed.insert(c);
    out.push_back(std::move(c));
  }
  return out;
}

void SearchStrategy::observe(const ScheduleConfig& config, const MeasureResult&) { seen_.insert(config); }

std::unique_ptr<SearchStrategy> make_search_strategy(const std::string& name, const ScheduleSpace& space,
                                                     uint64_t seed) {
  if (name == "random") return std::make_unique<RandomSearch>(space, seed);
  if (name == "evolutionary") return std::make_unique<EvolutionarySearch>(space, seed);
  throw Error("unknown search strategy '" + name + "' (expected random or evolutionary)");
}

std::unique_ptr<SearchStrategy> make_search_strategy(const std::string& name, const ScheduleSpace& space,
                                                     uint64_t seed, const Workload& workload, const Target& target) {
  if (name == "model") return std::make_unique<ModelGuidedSearch>(space, seed, workload, target);
  if (name == "random" || name == "evolutionary") return make_search_strategy(name, space, seed);
  throw Error("unknown search strategy '" + name + "' (expected random, evolutionary or model)");
}

}  // namespace nee
