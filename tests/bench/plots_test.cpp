// The bench's SVG charts: bars per series with gaps marked, and a log-log roofline.
#include <gtest/gtest.h>

#include <regex>

#include "bench/plots/bar_chart_svg.h"
#include "bench/plots/roofline_svg.h"
#include "bench/roofline_figures.h"
#include "core/error.h"
#include "core/matmul_workload.h"

namespace nee::bench {
namespace {

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(BarChartSvg, OneBarPerValueAndNaForAGap) {
  BarChart chart{"ratios <a & b>", {"vs openblas", "vs onednn"}, {}, 1.0};
  chart.groups.push_back({"256x256x256", {2.0, 0.5}});
  chart.groups.push_back({"1x64x56x56,64x3x3,p1", {std::nullopt, 1.25}});
  const std::string svg = bar_chart_svg(chart);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_EQ(count(svg, "<rect x="), 3 + 2);  // three bars, two legend swatches
  EXPECT_EQ(count(svg, ">n/a<"), 1);
  EXPECT_NE(svg.find(">2.00<"), std::string::npos);
  EXPECT_NE(svg.find(">1.25<"), std::string::npos);
  EXPECT_NE(svg.find("ratios &lt;a &amp; b&gt;"), std::string::npos);
}

std::vector<double> circle_xs(const std::string& svg) {
  std::vector<double> xs;
  const std::regex cx(R"re(<circle cx="([0-9.]+)")re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), cx); it != std::sregex_iterator(); ++it) {
    xs.push_back(std::stod((*it)[1]));
  }
  return xs;
}

TEST(RooflineSvg, PointsSitOnLogAxesUnderLabelledCeilings) {
  // Ridge at 10 FLOP/byte; points at 1 and 100 span the decades 0.1 .. 1000 (4 decades
  // over 520 pixels), so they sit two decades = 260 pixels apart.
  Roofline r{100, 10, {{"a", "nee-tuned", 1, 5}, {"b", "onednn", 100, 5}}};
  const std::string svg = roofline_svg(r);
  EXPECT_NE(svg.find("FMA peak 100 GFLOP/s"), std::string::npos);
  EXPECT_NE(svg.find("triad 10.0 GB/s"), std::string::npos);
  const std::vector<double> xs = circle_xs(svg);
  ASSERT_EQ(xs.size(), 4u);  // two points, two legend markers
  EXPECT_NEAR(xs[1] - xs[0], 260.0, 0.2);
  EXPECT_THROW(roofline_svg({0, 10, {}}), Error);
}

TEST(RooflineFigures, FewestBytesAndIntensityOfAMatMul) {
  const Workload w = matmul_workload_from_shape("2x3x4");  // A 2x3, B 3x4, C 2x4
  EXPECT_DOUBLE_EQ(min_bytes(w), (6 + 12 + 8) * 4.0);
  EXPECT_DOUBLE_EQ(arithmetic_intensity(w), 2.0 * 2 * 3 * 4 / 104.0);
  MachinePeaks peaks;
  peaks.fma_gflops = 100;
  peaks.triad_gbs = 10;
  EXPECT_DOUBLE_EQ(roof_gflops(w, peaks), 10 * 48.0 / 104.0);  // bandwidth-bound
  peaks.triad_gbs = 1e6;
  EXPECT_DOUBLE_EQ(roof_gflops(w, peaks), 100);  // compute-bound
}

}  // namespace
}  // namespace nee::bench
