#include "tuner/scheduling/baseline_verdicts.h"

namespace nee {

void BaselineVerdicts::record(const std::string& name, double baseline_us, double search_best_us) {
  Tally& t = tallies_[name];
  if (baseline_us > kLosingFactor * search_best_us) {
    ++t.losses;
  } else {
    ++t.others;
  }
  if (t.others == 0 && t.losses >= kWorkloads) skipped_.insert(name);
}

}  // namespace nee
