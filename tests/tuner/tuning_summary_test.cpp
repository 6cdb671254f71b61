// The end-of-run table: each workload's share of the model's time, figures and
// speed-ups, and the model estimate default -> tuned weighted by counts.
#include <gtest/gtest.h>

#include "core/matmul_workload.h"
#include "tuner/compile/autoscheduler_config.h"
#include "tuner/report/tuning_summary.h"

namespace nee {
namespace {

TuningRecord record(double us, const std::string& strategy) {
  TuningRecord r;
  r.result.status = MeasureStatus::ok;
  r.result.median_us = us;
  r.strategy = strategy;
  return r;
}

TEST(TuningSummary, TableHoldsSpeedupsAndTheModelEstimate) {
  TuneReport a;
  a.workload = matmul_workload_from_shape("64x64x64");
  a.count = 3;
  a.measured = 10;
  a.default_record = record(400, "default");
  a.best = record(100, "evolutionary");
  a.baselines["Adams2019"] = record(250, "adams2019");
  a.baselines["Mullapudi2016"] = record(500, "mullapudi2016");
  TuneReport b;
  b.workload = matmul_workload_from_shape("32x64x16");
  b.count = 1;
  b.measured = 2;
  b.default_record = record(3000, "default");
  b.best = record(1500, "adams2019");

  const ModelEstimate e = model_estimate({a, b});
  EXPECT_DOUBLE_EQ(e.default_us, 3 * 400 + 3000);
  EXPECT_DOUBLE_EQ(e.tuned_us, 3 * 100 + 1500);
  EXPECT_EQ(e.covered, 2);

  const std::string table = tuning_summary({a, b}, true);
  EXPECT_NE(table.find("Adams2019"), std::string::npos);
  EXPECT_NE(table.find("Mullapudi2016"), std::string::npos);
  EXPECT_NE(table.find("4.00x"), std::string::npos) << "a: 400 / 100 over the default\n" << table;
  EXPECT_NE(table.find("2.50x"), std::string::npos) << "a: 250 / 100 over Adams2019\n" << table;
  EXPECT_NE(table.find("2.00x"), std::string::npos) << "b: 3000 / 1500 over the default\n" << table;
  EXPECT_NE(table.find("default 4.2 ms -> tuned 1.8 ms (2.33x)"), std::string::npos) << table;
  // Each workload's share of the tuned model time: 3 x 100 and 1500 of 1800 us.
  EXPECT_NE(table.find(" 16.7% "), std::string::npos) << table;
  EXPECT_NE(table.find(" 83.3% "), std::string::npos) << table;
  // Every row has the header's width: the columns line up.
  const size_t width = table.find('\n');
  size_t start = 0;
  for (int row = 0; row < 3; ++row) {
    const size_t end = table.find('\n', start);
    EXPECT_EQ(end - start, width) << "row " << row << "\n" << table;
    start = end + 1;
  }
  EXPECT_EQ(tuning_summary({a}, false).find("estimated model time"), std::string::npos);
}

TEST(TuningSummary, RunningEstimateCountsTheSearchesBestFirstMedians) {
  // a's search found 80 us, not re-measured yet: its best record is still the default.
  TuneReport a;
  a.workload = matmul_workload_from_shape("64x64x64");
  a.count = 3;
  a.default_record = record(400, "default");
  a.best = a.default_record;
  a.convergence = {{1, 0.1, 400}, {2, 0.2, 80}};
  // b's best record (a transferred point, 150 us) beats its search's 200 us.
  TuneReport b;
  b.workload = matmul_workload_from_shape("32x64x16");
  b.default_record = record(300, "default");
  b.best = record(150, "transfer");
  b.convergence = {{1, 0.1, 300}, {2, 0.2, 200}};
  EXPECT_DOUBLE_EQ(model_estimate({a, b}).tuned_us, 3 * 400 + 150);
  const ModelEstimate running = running_model_estimate({a, b});
  EXPECT_DOUBLE_EQ(running.tuned_us, 3 * 80 + 150);
  EXPECT_DOUBLE_EQ(running.default_us, 3 * 400 + 300);
  EXPECT_EQ(running.covered, 2);
}

TEST(TuningSummary, FormatsTimes) {
  EXPECT_EQ(format_us(850), "850 us");
  EXPECT_EQ(format_us(12345), "12.3 ms");
  EXPECT_EQ(format_us(1.25e6), "1.25 s");
  EXPECT_EQ(format_us(0), "-");
}

}  // namespace
}  // namespace nee
