// The model strategy proposes only unseen points, keeps its epsilon share of random
// points, records predictions only once it has a model, and learns from similar
// workloads' records before its own results.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "core/matmul_workload.h"
#include "schedules/schedule_space.h"
#include "tests/tuner/synthetic_timing.h"
#include "tuner/search/model_guided_search.h"

namespace nee {
namespace {

TEST(ModelGuidedSearch, NeverProposesAMeasuredPoint) {
  const Workload w = matmul_workload_from_shape("256x256x256");
  const auto space = make_schedule_space(w, TargetKind::cpu);
  ModelGuidedSearch search(*space, 3, w, tuner_test::synthetic_target(), 0.25, 128);
  std::set<ScheduleConfig> measured;
  for (int batch = 0; batch < 12; ++batch) {
    const std::vector<ScheduleConfig> proposed = search.propose(8);
    ASSERT_EQ(proposed.size(), 8u);
    std::set<ScheduleConfig> in_batch;
    for (const ScheduleConfig& c : proposed) {
      EXPECT_EQ(measured.count(c), 0u) << "batch " << batch << " repeats " << c.to_string();
      EXPECT_TRUE(in_batch.insert(c).second);
      EXPECT_TRUE(space->check(c).empty());
    }
    for (const ScheduleConfig& c : proposed) {
      measured.insert(c);
      search.observe(c, tuner_test::ok_result(tuner_test::synthetic_us(c)));
    }
  }
}

TEST(ModelGuidedSearch, BehavesAsEvolutionaryUntilEnoughResults) {
  const Workload w = matmul_workload_from_shape("256x256x256");
  const auto space = make_schedule_space(w, TargetKind::cpu);
  ModelGuidedSearch search(*space, 5, w, tuner_test::synthetic_target(), 0.25, 128, 8);
  std::vector<ScheduleConfig> first = search.propose(7);
  for (const ScheduleConfig& c : first) {
    EXPECT_FALSE(search.predicted_us(c));
    search.observe(c, tuner_test::ok_result(tuner_test::synthetic_us(c)));
  }
  // 7 ok results < 8: still no model.
  for (const ScheduleConfig& c : search.propose(4)) EXPECT_FALSE(search.predicted_us(c));
}

TEST(ModelGuidedSearch, RespectsEpsilon) {
  const Workload w = matmul_workload_from_shape("256x256x256");
  const auto space = make_schedule_space(w, TargetKind::cpu);
  for (const double epsilon : {0.0, 0.25, 0.5}) {
    ModelGuidedSearch search(*space, 11, w, tuner_test::synthetic_target(), epsilon, 128);
    std::mt19937_64 rng(1);
    for (int i = 0; i < 16; ++i) {
      const ScheduleConfig c = space->random_config(rng);
      search.observe(c, tuner_test::ok_result(tuner_test::synthetic_us(c)));
    }
    const std::vector<ScheduleConfig> batch = search.propose(8);
    ASSERT_EQ(batch.size(), 8u);
    int exploratory = 0;
    for (const ScheduleConfig& c : batch) {
      exploratory += search.exploratory(c);
      EXPECT_TRUE(search.predicted_us(c)) << "every proposal carries its prediction";
    }
    EXPECT_EQ(exploratory, static_cast<int>(8 * epsilon)) << "epsilon " << epsilon;
    // The ranked proposals come best-predicted first.
    double previous = 0;
    for (const ScheduleConfig& c : batch) {
      if (search.exploratory(c)) continue;
      EXPECT_GE(*search.predicted_us(c), previous);
      previous = *search.predicted_us(c);
    }
  }
}

TEST(ModelGuidedSearch, RanksItsFirstBatchFromSimilarWorkloads) {
  const Workload w = matmul_workload_from_shape("256x256x256");
  const Workload near = matmul_workload_from_shape("128x256x256");
  const auto space = make_schedule_space(w, TargetKind::cpu);
  const auto near_space = make_schedule_space(near, TargetKind::cpu);
  const auto record_of = [](const Workload& workload, const ScheduleConfig& c, double us) {
    TuningRecord r;
    r.workload = workload;
    r.config = c;
    r.result = tuner_test::ok_result(us);
    return r;
  };
  std::mt19937_64 rng(4);
  ModelGuidedSearch learned(*space, 13, w, tuner_test::synthetic_target(), 0.25, 128, 8);
  ModelGuidedSearch unlike(*space, 13, w, tuner_test::synthetic_target(), 0.25, 128, 8);
  for (int i = 0; i < 16; ++i) {
    const ScheduleConfig c = near_space->random_config(rng);
    learned.learn_from_similar(record_of(near, c, tuner_test::synthetic_us(c)));
    ScheduleConfig other_space = c;
    other_space.knobs["tile_oc"] = 4;  // a knob this space lacks
    unlike.learn_from_similar(record_of(near, other_space, tuner_test::synthetic_us(c)));
  }
  EXPECT_TRUE(learned.learns_from_similar()) << "else the tuner never reads similar records for it";
  for (const ScheduleConfig& c : learned.propose(8)) EXPECT_TRUE(learned.predicted_us(c)) << c.to_string();
  for (const ScheduleConfig& c : unlike.propose(8)) EXPECT_FALSE(unlike.predicted_us(c)) << c.to_string();
}

}  // namespace
}  // namespace nee
