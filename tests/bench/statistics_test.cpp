#include <gtest/gtest.h>

#include "bench/statistics.h"
#include "core/error.h"

namespace nee::bench {
namespace {

TEST(Statistics, OddCountMedianAndPercentilesOfUnsortedSamples) {
  const Summary s = summarize({5, 1, 4, 2, 3});
  EXPECT_EQ(s.count, 5);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  // Position 0.1 * 4 = 0.4 between 1 and 2; 0.9 * 4 = 3.6 between 4 and 5.
  EXPECT_DOUBLE_EQ(s.p10, 1.4);
  EXPECT_DOUBLE_EQ(s.p90, 4.6);
}

TEST(Statistics, EvenCountMedianIsMeanOfMiddlePair) {
  const Summary s = summarize({10, 40, 20, 30});
  EXPECT_DOUBLE_EQ(s.median, 25);
  EXPECT_DOUBLE_EQ(s.p10, 13);  // 0.3 of the way from 10 to 20
  EXPECT_DOUBLE_EQ(s.p90, 37);  // 0.7 of the way from 30 to 40
}

TEST(Statistics, OneSampleIsItsOwnSpread) {
  const Summary s = summarize({2.5});
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.p10, 2.5);
  EXPECT_DOUBLE_EQ(s.p90, 2.5);
}

TEST(Statistics, EmptySamplesAreAnError) { EXPECT_THROW(summarize({}), Error); }

}  // namespace
}  // namespace nee::bench
