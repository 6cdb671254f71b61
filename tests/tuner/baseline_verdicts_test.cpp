// A baseline that lost by over 1.5x on each of its first three workloads is skipped; one
// that came near on any is kept.
#include <gtest/gtest.h>

#include "tuner/scheduling/baseline_verdicts.h"

namespace nee {
namespace {

TEST(BaselineVerdicts, SkipsABaselineThatLostOnItsFirstThreeWorkloads) {
  BaselineVerdicts v;
  v.record("Adams2019", 300, 100);
  v.record("Mullapudi2016", 400, 100);
  v.record("Adams2019", 170, 100);
  v.record("Mullapudi2016", 140, 100);  // within 1.5x: it may win elsewhere
  EXPECT_TRUE(v.skipped().empty());
  v.record("Adams2019", 1700, 100);
  v.record("Mullapudi2016", 900, 100);
  EXPECT_EQ(v.skipped(), std::set<std::string>{"Adams2019"});
  v.record("Mullapudi2016", 900, 100);
  v.record("Mullapudi2016", 900, 100);
  EXPECT_EQ(v.skipped(), std::set<std::string>{"Adams2019"});
}

TEST(BaselineVerdicts, ABaselineThatWonIsNeverSkipped) {
  BaselineVerdicts v;
  v.record("Adams2019", 90, 100);
  for (int i = 0; i < 5; ++i) v.record("Adams2019", 500, 100);
  EXPECT_TRUE(v.skipped().empty());
}

}  // namespace
}  // namespace nee
