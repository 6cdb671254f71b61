// What the kernel reports claim about each engine: the FLOPs a Winograd kernel executes
// beside its direct-equivalent rate, a share of peak that never passes 100%, and a
// vendor library far below its usual share flagged with the kernel it ran.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <regex>

#include "bench/comparison.h"
#include "bench/engines/kernel_workspace.h"
#include "bench/engines/nee_engine.h"
#include "bench/executed_flops.h"
#include "bench/kernel_markdown.h"
#include "bench/report.h"
#include "bench/slow_peer_check.h"
#include "core/conv2d_workload.h"
#include "core/matmul_workload.h"

namespace nee::bench {
namespace {
using ::testing::HasSubstr;
using ::testing::Not;

// The conv nee-bench --quick times: NEE runs it as Winograd F(4x4, 3x3).
const char* kQuickConv = "1x64x56x56,64x3x3,p1";

// 14 x 14 tiles of 4 x 4 outputs; per tile 36 products over 64 x 64 channels, the input
// transform of each of 64 channels (2 x 6 combinations of each B^T row: rows cost 4, 5,
// 5, 5, 5, 4 adds and multiplies) and the output transform of each of 64 channels
// ((6 + 4) combinations of each A^T row: rows cost 4, 5, 5, 6).
constexpr double kQuickConvExecuted = 14.0 * 14 * (2 * 36 * 64 * 64 + 64 * (2 * 6 * 28) + 64 * (10 * 20));

EngineTiming timing(const std::string& engine, double ms, double executed_flops, const std::string& method) {
  EngineTiming t;
  t.engine = engine;
  t.executed_flops = executed_flops;
  t.executed_method = method;
  t.calls_per_sample = 1;
  t.samples_ms = {ms};
  t.ms = summarize({ms});
  return t;
}

MachinePeaks peaks_of(double fma_gflops, double triad_gbs) {
  MachinePeaks p;
  p.threads = 2;
  p.fma_gflops = fma_gflops;
  p.triad_gbs = triad_gbs;
  return p;
}

// The "% peak" cells of a terminal table (the fifth number of each engine row).
std::vector<std::string> share_cells(const std::string& table) {
  std::vector<std::string> cells;
  const std::regex row(R"(\n  (\S+) +[0-9.]+ +[0-9.]+\.\.[0-9.]+ +[0-9.]+ +(\S+) )");
  for (auto it = std::sregex_iterator(table.begin(), table.end(), row); it != std::sregex_iterator(); ++it) {
    cells.push_back((*it)[2]);
  }
  return cells;
}

TEST(ExecutedFlops, WinogradConvsCountTheirTransformedProducts) {
  const Workload quick = conv2d_runtime_layout(conv2d_workload_from_shape(kQuickConv), true, true);
  ASSERT_EQ(conv2d_attrs(quick).winograd_tile, 4);
  const ExecutedWork f4 = kernel_executed_work(quick);
  EXPECT_EQ(f4.method, "Winograd F(4x4,3x3)");
  EXPECT_DOUBLE_EQ(f4.flops, kQuickConvExecuted);
  EXPECT_NEAR(f4.flops / quick.flops(), 0.279, 0.001);  // 4x fewer products, plus the transforms

  // F(2x2) on 14x14: 7 x 7 tiles; B^T rows cost 1 each, A^T rows 2 each.
  const Workload small = conv2d_runtime_layout(conv2d_workload_from_shape("1x16x14x14,16x3x3,p1"), true, true);
  ASSERT_EQ(conv2d_attrs(small).winograd_tile, 2);
  EXPECT_DOUBLE_EQ(kernel_executed_work(small).flops, 7.0 * 7 * (2 * 16 * 16 * 16 + 16 * (2 * 4 * 4) + 16 * (6 * 4)));

  const Workload pointwise = conv2d_runtime_layout(conv2d_workload_from_shape("1x64x56x56,64x1x1"), true, true);
  EXPECT_EQ(kernel_executed_work(pointwise).method, "direct");
  EXPECT_DOUBLE_EQ(kernel_executed_work(pointwise).flops, pointwise.flops());
}

TEST(ExecutedFlops, NeeEngineReportsWhatItsWinogradKernelExecutes) {
  const Workload w = conv2d_workload_from_shape("1x16x14x14,16x3x3,p1");
  NeeEngine engine(std::make_shared<KernelWorkspace>(1), NeeSchedule::default_schedule, nullptr);
  CompareOptions options;
  options.repeats = 1;
  options.min_sample_ms = 0.1;
  options.warmup_ms = 0.1;
  options.settle_ms = 0;
  const WorkloadComparison c = compare_engines("1x16x14x14,16x3x3,p1", w, {&engine}, options);
  ASSERT_EQ(c.engines.size(), 1u);
  EXPECT_EQ(c.engines[0].executed_method, "Winograd F(2x2,3x3)");
  EXPECT_DOUBLE_EQ(c.engines[0].executed_flops,
                   kernel_executed_work(conv2d_runtime_layout(w, true, true)).flops);
  EXPECT_LT(c.engines[0].executed_flops, w.flops());
}

TEST(ShareOfPeak, WinogradAtADirectRateAbovePeakShowsItsExecutedShare) {
  // The figure nee-bench --quick printed: 594 GFLOP/s direct-equivalent on a 222 GFLOP/s
  // FMA peak ("267.9% of peak").
  WorkloadComparison c;
  c.label = kQuickConv;
  c.workload = conv2d_workload_from_shape(kQuickConv);
  const double direct = c.workload.flops();
  const double ms = direct / 594e6;
  c.engines = {timing("nee-tuned", ms, kQuickConvExecuted, "Winograd F(4x4,3x3)"),
               timing("onednn", 4 * ms, direct, "direct")};
  const MachinePeaks peaks = peaks_of(222, 30);

  const std::string table = format_table(c, peaks);
  EXPECT_THAT(table, HasSubstr("exec GFLOP/s"));
  EXPECT_THAT(table,
              HasSubstr("nee-tuned executes Winograd F(4x4,3x3): 0.0645 GFLOP per call, 0.28x the direct count"));
  const std::vector<std::string> shares = share_cells(table);
  ASSERT_EQ(shares.size(), 2u) << table;
  for (const std::string& s : shares) EXPECT_LE(std::stod(s), 100.0) << table;
  EXPECT_EQ(shares[0], fmt::format("{:.1f}", 100 * kQuickConvExecuted / (ms * 1e6) / 222));  // 74.7

  RunInfo info;
  info.peaks = peaks;
  const nlohmann::json j = to_json(info, {c}, {}, {});
  const auto& nee = j["workloads"][0]["engines"][0];
  EXPECT_DOUBLE_EQ(nee["executed_flops"].get<double>(), kQuickConvExecuted);
  EXPECT_EQ(nee["executed_method"], "Winograd F(4x4,3x3)");
  EXPECT_NEAR(nee["gflops_median"].get<double>(), 594, 1e-9);
  EXPECT_LE(nee["fraction_of_peak"].get<double>(), 1.0);
  EXPECT_NEAR(nee["fraction_of_peak"].get<double>(), nee["executed_gflops_median"].get<double>() / 222, 1e-12);

  const std::string md = format_kernel_markdown(info, {c}, {}, {}, "");
  EXPECT_THAT(md, HasSubstr("| nee-tuned | 594.0 | 594.0..594.0 | 165.8 | 74.7 |"));
}

TEST(ShareOfPeak, AnExecutedRateAboveThePeakIsNeverPrintedAsAShare) {
  // A peak probe that ran on a loaded machine: 100 GFLOP/s, under the kernel's 166.
  WorkloadComparison c;
  c.label = kQuickConv;
  c.workload = conv2d_workload_from_shape(kQuickConv);
  const double ms = c.workload.flops() / 594e6;
  c.engines = {timing("nee-tuned", ms, kQuickConvExecuted, "Winograd F(4x4,3x3)")};
  const MachinePeaks peaks = peaks_of(100, 30);
  const std::string table = format_table(c, peaks);
  EXPECT_EQ(share_cells(table), std::vector<std::string>{"above"}) << table;
  EXPECT_THAT(table,
              HasSubstr("WARNING: nee-tuned's executed rate 165.8 GFLOP/s is above the measured FMA peak 100.0"));
  RunInfo info;
  info.peaks = peaks;
  EXPECT_TRUE(to_json(info, {c}, {}, {})["workloads"][0]["engines"][0]["fraction_of_peak"].is_null());
  EXPECT_THAT(format_kernel_markdown(info, {c}, {}, {}, ""), HasSubstr("| 165.8 | above |"));
}

TEST(SlowPeer, AVendorLibraryFarBelowItsUsualShareIsFlaggedWithItsKernel) {
  WorkloadComparison c;
  c.label = "256x256x256";
  c.workload = matmul_workload_from_shape("256x256x256");
  const double flops = c.workload.flops();
  // oneDNN 2.6 on a Zen 4: 4.2 GFLOP/s at 256 cubed; OpenBLAS 120; NEE's default 4.
  EngineTiming onednn = timing("onednn", flops / 4.2e6, flops, "direct");
  onednn.implementation = "brg:avx512_core (oneDNN verbose; isa: Intel AVX-512 with Intel DL Boost)";
  c.engines = {onednn, timing("openblas", flops / 120e6, flops, "direct"),
               timing("nee-default", flops / 4e6, flops, "direct")};
  const MachinePeaks peaks = peaks_of(222, 30);  // 256 cubed: 42.7 FLOP/byte, compute-bound
  EXPECT_THAT(slow_peer_warning(c, c.engines[0], peaks),
              HasSubstr("onednn ran at 1.9% of the FMA peak on a compute-bound shape"));
  EXPECT_THAT(slow_peer_warning(c, c.engines[0], peaks), HasSubstr("its kernel: brg:avx512_core (oneDNN verbose"));
  EXPECT_EQ(slow_peer_warning(c, c.engines[1], peaks), "");  // 54%
  EXPECT_EQ(slow_peer_warning(c, c.engines[2], peaks), "");  // not a vendor library
  EXPECT_THAT(format_table(c, peaks), HasSubstr("WARNING: onednn ran at 1.9%"));
  RunInfo info;
  info.peaks = peaks;
  const nlohmann::json j = to_json(info, {c}, {}, {});
  EXPECT_THAT(j["workloads"][0]["engines"][0]["warning"].get<std::string>(), HasSubstr("brg:avx512_core"));
  EXPECT_EQ(j["workloads"][0]["engines"][1]["warning"], "");
  EXPECT_THAT(format_kernel_markdown(info, {c}, {}, {}, ""), HasSubstr("**Warning:** onednn ran at 1.9%"));

  // Bandwidth-bound at this bandwidth (42.7 FLOP/byte x 1 GB/s < 222): a low share is expected there.
  EXPECT_EQ(slow_peer_warning(c, c.engines[0], peaks_of(222, 1)), "");
}

}  // namespace
}  // namespace nee::bench
