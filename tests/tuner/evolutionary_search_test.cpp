// Evolutionary search's first batch starts from the points it is given (the default
// point, transferred points) instead of from nothing, gives way to measured results, and
// draws parents by speed.
#include <gtest/gtest.h>

#include <random>

#include "schedules/schedule_space.h"
#include "tests/tuner/synthetic_timing.h"
#include "tuner/search/evolutionary_search.h"

namespace nee {
namespace {

int knobs_apart(const ScheduleConfig& a, const ScheduleConfig& b) {
  int apart = 0;
  for (const auto& [name, value] : a.knobs) apart += b.knobs.at(name) != value;
  return apart;
}

int farthest_from(const ScheduleConfig& origin, const std::vector<ScheduleConfig>& points) {
  int farthest = 0;
  for (const ScheduleConfig& c : points) farthest = std::max(farthest, knobs_apart(origin, c));
  return farthest;
}

class EvolutionarySearchStart : public ::testing::Test {
 protected:
  const Workload workload_ = matmul_workload_from_shape("256x256x256");
  const std::unique_ptr<ScheduleSpace> space_ = make_schedule_space(workload_, TargetKind::cpu);
};

TEST_F(EvolutionarySearchStart, FirstBatchMutatesTheGivenPoint) {
  EvolutionarySearch search(*space_, 7, /*epsilon=*/0);
  const ScheduleConfig start = space_->default_config();
  search.start_from(start);
  const std::vector<ScheduleConfig> batch = search.propose(12);
  ASSERT_EQ(batch.size(), 12u);
  // A mutation changes one or two knobs.
  EXPECT_LE(farthest_from(start, batch), 2);
  for (const ScheduleConfig& c : batch) EXPECT_FALSE(c == start);
}

TEST_F(EvolutionarySearchStart, WithoutAStartTheFirstBatchIsUniform) {
  EvolutionarySearch search(*space_, 7, /*epsilon=*/0);
  EXPECT_GT(farthest_from(space_->default_config(), search.propose(12)), 2);
}

TEST_F(EvolutionarySearchStart, MeasuredResultsReplaceTheStart) {
  EvolutionarySearch search(*space_, 9, /*epsilon=*/0);
  search.start_from(space_->default_config());
  std::mt19937_64 rng(1);
  ScheduleConfig measured = space_->random_config(rng);
  while (knobs_apart(measured, space_->default_config()) < 5) measured = space_->random_config(rng);
  search.observe(measured, tuner_test::ok_result(tuner_test::synthetic_us(measured)));
  EXPECT_LE(farthest_from(measured, search.propose(12)), 2);
}

TEST_F(EvolutionarySearchStart, FasterPointsAreParentsMoreOften) {
  EvolutionarySearch search(*space_, 11, /*epsilon=*/0);
  std::mt19937_64 rng(2);
  const ScheduleConfig fast = space_->default_config();
  ScheduleConfig slow = space_->random_config(rng);
  while (knobs_apart(slow, fast) < 6) slow = space_->random_config(rng);
  search.observe(fast, tuner_test::ok_result(100));
  search.observe(slow, tuner_test::ok_result(10000));
  int near_fast = 0;
  const std::vector<ScheduleConfig> children = search.propose(40);
  for (const ScheduleConfig& c : children) near_fast += knobs_apart(c, fast) <= 2;
  // By speed, 99% of parents are the fast point; a tournament of two would pick it 75%
  // of the time.
  EXPECT_GE(near_fast, 36) << "of " << children.size();
}

}  // namespace
}  // namespace nee
