#pragma once
#include <map>
#include <set>
#include <string>

namespace nee {

// Which of Halide's autoscheduler baselines a model's run stops building. A baseline is
// built per workload (Adams2019 took up to 75 s for one of ResNeXt-50's convs) and in
// that run's 9 measured convs was 3x to 17x slower than the search's best: one that has
// lost by more than kLosingFactor on each of the first kWorkloads workloads it was
// measured on cannot be expected to win the others, and is skipped for them.
class BaselineVerdicts {
 public:
  static constexpr int kWorkloads = 3;
  static constexpr double kLosingFactor = 1.5;

  // A baseline's median on a workload whose search found search_best_us. Each workload
  // is to be recorded once per baseline.
  void record(const std::string& name, double baseline_us, double search_best_us);
  const std::set<std::string>& skipped() const { return skipped_; }

 private:
  struct Tally {
    int losses = 0;
    int others = 0;
  };
  std::map<std::string, Tally> tallies_;
  std::set<std::string> skipped_;
};

}  // namespace nee
