// The ratio every kernel report shows is NEE's tuned engine over each other engine, on
// the CPU ("nee-tuned") and in nee-bench --gpu ("nee-tuned-cuda") alike.
#include <gtest/gtest.h>

#include "bench/kernel_markdown.h"
#include "bench/kernel_plots.h"
#include "bench/report.h"
#include "core/matmul_workload.h"
#include "core/workload.h"

namespace nee::bench {
namespace {

EngineTiming timing(const std::string& engine, double median_ms) {
  EngineTiming t;
  t.engine = engine;
  t.provenance = engine == "cublas" ? "cublasSgemm" : "tuned: record 3";
  t.calls_per_sample = 1;
  t.samples_ms = {median_ms};
  t.ms = summarize({median_ms});
  return t;
}

WorkloadComparison gpu_comparison() {
  WorkloadComparison c;
  c.label = "256x256x256";
  c.workload = matmul_workload_from_shape("256x256x256");
  c.engines = {timing("nee-tuned-cuda", 0.04), timing("cublas", 0.02)};
  for (EngineTiming& t : c.engines) {
    t.executed_flops = c.workload.flops();
    t.executed_method = "direct";
  }
  return c;
}

TEST(KernelReport, GpuRatiosAreTakenAgainstNeesCudaEngine) {
  const WorkloadComparison c = gpu_comparison();
  EXPECT_TRUE(is_nee_tuned("nee-tuned-cuda"));
  EXPECT_FALSE(is_nee_tuned("nee-default-cuda"));
  ASSERT_TRUE(nee_speed_ratio(c, "cublas").has_value());
  EXPECT_DOUBLE_EQ(*nee_speed_ratio(c, "cublas"), 0.5);

  const std::string table = format_table(c, std::nullopt);
  EXPECT_NE(table.find("0.50"), std::string::npos) << table;

  RunInfo info;
  info.gpu = {{"name", "test GPU"}};
  const nlohmann::json j = to_json(info, {c}, {}, {});
  EXPECT_EQ(j.at("gpu").at("name"), "test GPU");
  EXPECT_DOUBLE_EQ(j.at("workloads").at(0).at("engines").at(1).at("speed_ratio_nee_tuned_over_engine").get<double>(),
                   0.5);
  const std::string markdown = format_kernel_markdown(info, {c}, {}, {}, "");
  EXPECT_NE(markdown.find("| cublas | "), std::string::npos) << markdown;
  EXPECT_NE(markdown.find(" | 0.50 | cublasSgemm |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("GPU: `{\"name\":\"test GPU\"}`"), std::string::npos) << markdown;

  const BarChart chart = kernel_ratio_chart({c});
  ASSERT_EQ(chart.series, std::vector<std::string>{"cublas"});
  ASSERT_EQ(chart.groups.size(), 1u);
  EXPECT_DOUBLE_EQ(chart.groups[0].values.at(0).value(), 0.5);
}

TEST(KernelReport, NoRatioWithoutANeeTunedEngine) {
  WorkloadComparison c = gpu_comparison();
  c.engines.erase(c.engines.begin());
  EXPECT_FALSE(nee_speed_ratio(c, "cublas").has_value());
}

}  // namespace
}  // namespace nee::bench
