#include "tuner/search/model_guided_search.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace nee {

namespace {

std::vector<std::string> knob_names(const ScheduleSpace& space) {
  std::vector<std::string> names;
  for (const Knob& k : space.knobs()) names.push_back(k.name);
  return names;
}

}  // namespace

ModelGuidedSearch::ModelGuidedSearch(const ScheduleSpace& space, uint64_t seed, const Workload& workload,
                                     const Target& target, double epsilon, int pool, size_t min_samples)
    : EvolutionarySearch(space, seed),
      workload_(workload),
      epsilon_(epsilon),
      pool_(pool),
      min_samples_(min_samples),
      model_(CostFeatures(knob_names(space), target.device)) {}

void ModelGuidedSearch::observe(const ScheduleConfig& config, const MeasureResult& result) {
  EvolutionarySearch::observe(config, result);
  if (result.status == MeasureStatus::ok) samples_.push_back({workload_, config, result.median_us});
  queue_.clear();
}

void ModelGuidedSearch::learn_from_similar(const TuningRecord& record) {
  if (record.result.status != MeasureStatus::ok) return;
  // Another space of the family (conv2d's direct, blocked and Winograd spaces) has other
  // knobs, which the feature layout cannot hold.
  if (record.config.knobs.size() != space_.knobs().size()) return;
  for (const Knob& k : space_.knobs()) {
    if (!record.config.knobs.count(k.name)) return;
  }
  samples_.push_back({record.workload, record.config, record.result.median_us});
  queue_.clear();
}

std::optional<double> ModelGuidedSearch::predicted_us(const ScheduleConfig& config) const {
  const auto it = predictions_.find(config);
  if (it == predictions_.end()) return std::nullopt;
  return it->second;
}

ScheduleConfig ModelGuidedSearch::next() {
  if (samples_.size() < min_samples_) return EvolutionarySearch::next();
  if (queue_.empty()) refill();
  // refill() finds nothing new only when the draws keep hitting seen points; propose()
  // then filters this one out too.
  if (queue_.empty()) return EvolutionarySearch::next();
  ScheduleConfig c = std::move(queue_.front());
  queue_.pop_front();
  return c;
}

void ModelGuidedSearch::refill() {
  if (samples_.size() != trained_on_) {
    model_.train(samples_);
    trained_on_ = samples_.size();
  }
  std::set<ScheduleConfig> drawn;
  std::vector<ScheduleConfig> pool;
  for (int draw = 0; draw < pool_ * 4 && static_cast<int>(pool.size()) < pool_; ++draw) {
    ScheduleConfig c = EvolutionarySearch::next();
    if (seen(c) || drawn.count(c) || !space_.check(c).empty()) continue;
    drawn.insert(c);
    pool.push_back(std::move(c));
  }
  if (pool.empty()) return;
  const std::vector<double> us = model_.predict_us(workload_, pool);
  std::vector<size_t> order(pool.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return us[a] < us[b]; });

  // Random points for the epsilon share: unseen, and not in the pool's ranked head.
  std::vector<ScheduleConfig> random;
  const int random_wanted = static_cast<int>(std::ceil(epsilon_ * static_cast<double>(pool.size())));
  for (int draw = 0; draw < random_wanted * 50 && static_cast<int>(random.size()) < random_wanted; ++draw) {
    ScheduleConfig c = space_.random_config(rng_);
    if (seen(c) || drawn.count(c)) continue;
    drawn.insert(c);
    random.push_back(std::move(c));
  }
  const std::vector<double> random_us = model_.predict_us(workload_, random);

  predictions_.clear();
  exploratory_.clear();
  size_t ranked = 0, explored = 0;
  for (size_t i = 0; ranked < order.size() || explored < random.size(); ++i) {
    // Position i is random when floor((i + 1) * epsilon) > floor(i * epsilon).
    const bool explore = std::floor((i + 1) * epsilon_) > std::floor(i * epsilon_);
    if ((explore && explored < random.size()) || ranked == order.size()) {
      predictions_[random[explored]] = random_us[explored];
      exploratory_.insert(random[explored]);
      queue_.push_back(random[explored++]);
    } else {
      const size_t k = order[ranked++];
      predictions_[pool[k]] = us[k];
      queue_.push_back(pool[k]);
    }
  }
}

}  // namespace nee
