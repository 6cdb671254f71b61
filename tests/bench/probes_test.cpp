// The machine probes do the work they count, and come back through Google Benchmark.
#include <gtest/gtest.h>

#include "bench/probes/fma_probe.h"
#include "bench/probes/machine_peaks.h"
#include "bench/probes/triad_probe.h"
#include "core/error.h"

namespace nee::bench {
namespace {

TEST(TriadProbe, ComputesTheTriadAndCountsStreamBytes) {
  TriadProbe probe(4096 * 4 + 3, 3);  // rounds down to whole floats, split unevenly
  EXPECT_EQ(probe.bytes_per_array(), 4096 * 4);
  EXPECT_DOUBLE_EQ(probe.run(), 3.0 * 4096 * 4);
  for (int64_t i : {0, 1, 1023, 1024, 2047, 4095}) EXPECT_FLOAT_EQ(probe.result_at(i), float(i % 1024) + 3.0f) << i;
  EXPECT_THROW(TriadProbe(0, 1), Error);
}

TEST(FmaProbe, CountsTwoFlopsPerLanePerFma) { EXPECT_DOUBLE_EQ(run_fma_probe(2, 1000), 2.0 * fma_probe_lanes() * kFmaChains * 1000 * 2); }

TEST(MachinePeaks, GoogleBenchmarkRunsReportEveryRepetition) {
  ProbeOptions options;
  options.threads = 1;
  options.repetitions = 2;
  options.min_time_s = 0.01;
  options.llc_multiple = 0.05;
  const MachinePeaks peaks = measure_machine_peaks(options);
  ASSERT_EQ(peaks.fma_gflops_samples.size(), 2u);
  ASSERT_EQ(peaks.triad_gbs_samples.size(), 2u);
  EXPECT_GT(peaks.fma_gflops, 0);
  EXPECT_GT(peaks.triad_gbs, 0);
  EXPECT_EQ(peaks.fma_gflops, std::max(peaks.fma_gflops_samples[0], peaks.fma_gflops_samples[1]));
  EXPECT_EQ(to_json(peaks).at("triad_gbs_samples").size(), 2u);
}

}  // namespace
}  // namespace nee::bench
