// The cost model learns a synthetic timing function well enough to rank unseen points.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "core/matmul_workload.h"
#include "schedules/schedule_space.h"
#include "tests/tuner/synthetic_timing.h"
#include "tuner/cost_model/cost_model.h"

namespace nee {
namespace {

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  // Ties share their mean rank.
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    for (size_t k = i; k <= j; ++k) r[order[k]] = (static_cast<double>(i) + static_cast<double>(j)) / 2;
    i = j + 1;
  }
  return r;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  const std::vector<double> ra = ranks(a), rb = ranks(b);
  const double n = static_cast<double>(a.size());
  const double mean = (n - 1) / 2;
  double cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    cov += (ra[i] - mean) * (rb[i] - mean);
    va += (ra[i] - mean) * (ra[i] - mean);
    vb += (rb[i] - mean) * (rb[i] - mean);
  }
  return cov / std::sqrt(va * vb);
}

TEST(CostModel, RanksASyntheticMonotoneFunctionAfterTraining) {
  const Workload w = matmul_workload_from_shape("256x256x256");
  const Target target = tuner_test::synthetic_target();
  const auto space = make_schedule_space(w, TargetKind::cpu);
  std::vector<std::string> names;
  for (const Knob& k : space->knobs()) names.push_back(k.name);
  CostModel model(CostFeatures(names, target.device));
  EXPECT_FALSE(model.trained());
  EXPECT_ANY_THROW(model.predict_us(w, {space->default_config()}));

  std::mt19937_64 rng(7);
  std::vector<CostSample> train;
  for (int i = 0; i < 150; ++i) {
    const ScheduleConfig c = space->random_config(rng);
    train.push_back({w, c, tuner_test::synthetic_us(c)});
  }
  model.train(train);
  ASSERT_TRUE(model.trained());

  std::vector<ScheduleConfig> test;
  std::vector<double> truth;
  for (int i = 0; i < 200; ++i) {
    test.push_back(space->random_config(rng));
    truth.push_back(tuner_test::synthetic_us(test.back()));
  }
  const std::vector<double> predicted = model.predict_us(w, test);
  ASSERT_EQ(predicted.size(), test.size());
  for (double us : predicted) EXPECT_GT(us, 0);
  const double rho = spearman(predicted, truth);
  EXPECT_GT(rho, 0.8) << "Spearman correlation of predicted and true times";
}

}  // namespace
}  // namespace nee
