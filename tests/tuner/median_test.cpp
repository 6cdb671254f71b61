// core/median: the figure nee-measure stores per candidate and confirm() per re-measured point.
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/median.h"

namespace nee {
namespace {

TEST(Median, OddCountTakesTheMiddleSample) { EXPECT_EQ(median({9.0, 1.0, 5.0, 7.0, 3.0}), 5.0); }

TEST(Median, EvenCountAveragesTheMiddleTwo) { EXPECT_EQ(median({4.0, 1.0, 10.0, 2.0}), 3.0); }

TEST(Median, OneSampleIsItsOwnMedian) { EXPECT_EQ(median({2.5}), 2.5); }

TEST(Median, NoSamplesIsAnError) { EXPECT_THROW(median({}), Error); }

}  // namespace
}  // namespace nee
