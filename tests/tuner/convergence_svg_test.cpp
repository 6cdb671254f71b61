// The SVG writer draws one polyline per series that has points.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "temp_dir.h"
#include "tuner/report/convergence_svg.h"

namespace nee {
namespace {

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ConvergenceSvg, OnePolylinePerSeries) {
  tuner_test::TempDir dir("svg");
  PlotPanel trials{"best time <vs> trials", "trial", "best us", {}};
  trials.series.push_back({"random", {{1, 50}, {2, 40}, {3, 40}}});
  trials.series.push_back({"model", {{1, 45}, {2, 30}}});
  trials.series.push_back({"empty", {}});
  PlotPanel time{"best time vs wall time", "seconds", "best us", {}};
  time.series.push_back({"model", {{0.5, 45}}});
  const std::string path = dir.file("plot.svg");
  write_svg(path, {trials, time});
  std::ifstream in(path);
  const std::string svg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_EQ(count(svg, "<polyline"), 3);
  EXPECT_NE(svg.find("best time &lt;vs&gt; trials"), std::string::npos);
}

TEST(ConvergenceSvg, TrialsToWithinTenPercentAndPlotPerRun) {
  const std::vector<ConvergenceStep> steps = {{1, 0.1, 0}, {2, 0.2, 100}, {3, 0.3, 60}, {4, 0.4, 54}, {5, 0.5, 50}};
  EXPECT_EQ(trials_to_within(steps, 0.10), 4);  // 54 <= 55
  EXPECT_EQ(trials_to_within(steps, 0.0), 5);
  EXPECT_FALSE(trials_to_within({{1, 0.1, 0}}, 0.10));
  tuner_test::TempDir dir("svg");
  write_convergence_svg(dir.file("run.svg"), "matmul", "model", steps);
  std::ifstream in(dir.file("run.svg"));
  const std::string svg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(count(svg, "<polyline"), 2);  // best against trials and against wall time
}

}  // namespace
}  // namespace nee
