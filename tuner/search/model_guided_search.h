#pragma once
#include <deque>
#include <map>
#include <set>
#include <vector>

#include "tuner/cost_model/cost_model.h"
#include "tuner/search/evolutionary_search.h"

namespace nee {

// Evolution filtered by a learned cost model. For each batch the evolutionary proposer
// draws a pool of candidates (mutations and crossovers of the elite, and random points);
// the cost model, retrained on every ok result seen so far, ranks them, and the batch
// takes the best-ranked ones except for an epsilon share of uniformly random points, so
// the model keeps seeing regions it would rank low. With fewer than `min_samples` ok
// results there is nothing to learn from yet, and it proposes as evolutionary search.
// Records of similar workloads measured on this machine count as results to learn from
// (the features hold the workload's dims and the label is log GFLOP/s), so a workload
// whose neighbours were tuned first is ranked from its first batch.
class ModelGuidedSearch : public EvolutionarySearch {
 public:
  ModelGuidedSearch(const ScheduleSpace& space, uint64_t seed, const Workload& workload, const Target& target,
                    double epsilon = 0.25, int pool = 512, size_t min_samples = 8);
  std::string name() const override { return "model"; }
  void observe(const ScheduleConfig& config, const MeasureResult& result) override;
  bool learns_from_similar() const override { return true; }
  void learn_from_similar(const TuningRecord& record) override;
  std::optional<double> predicted_us(const ScheduleConfig& config) const override;
  // Whether `config` was proposed as an epsilon-greedy random point rather than by rank.
  bool exploratory(const ScheduleConfig& config) const { return exploratory_.count(config) != 0; }

 protected:
  ScheduleConfig next() override;

 private:
  void refill();

  Workload workload_;
  double epsilon_;
  int pool_;
  size_t min_samples_;
  CostModel model_;
  std::vector<CostSample> samples_;
  size_t trained_on_ = 0;  // samples_.size() when the model was last trained
  // The ranked proposals of the current batch, with random points interleaved so that
  // any prefix of n holds floor(n * epsilon) of them. Stale once a result arrives.
  std::deque<ScheduleConfig> queue_;
  std::map<ScheduleConfig, double> predictions_;
  std::set<ScheduleConfig> exploratory_;
};

}  // namespace nee
