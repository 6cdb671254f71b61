// The SVG writer draws one polyline per series that has points; the CSV writer writes a
// line per step and the reader refuses anything else; runs compare by the trials each
// needed to come near its own best and the best of all.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "core/error.h"
#include "temp_dir.h"
#include "tuner/report/convergence_comparison.h"
#include "tuner/report/convergence_csv.h"
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

TEST(ConvergenceCsv, HeaderAndOneLinePerStep) {
  tuner_test::TempDir dir("csv");
  write_convergence_csv(dir.file("run.csv"), {{1, 0.25, 100, 100}, {2, 0.5, 60.5, 60.5}, {3, 0.75, 60.5, {}}});
  std::ifstream in(dir.file("run.csv"));
  const std::string csv((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(csv, "trial,seconds,best_us,trial_us\n1,0.250,100.000,100.000\n2,0.500,60.500,60.500\n3,0.750,60.500,\n");
  EXPECT_THROW(write_convergence_csv(dir.file("no-such-folder/run.csv"), {}), Error);
}

TEST(ConvergenceCsv, ReadsWhatItWroteAndNamesWhatIsWrong) {
  tuner_test::TempDir dir("csv");
  const std::vector<ConvergenceStep> steps = {{1, 0.25, 100, 100}, {2, 0.5, 60.5, 60.5}, {3, 0.75, 60.5, {}}};
  write_convergence_csv(dir.file("run.csv"), steps);
  const std::vector<ConvergenceStep> back = read_convergence_csv(dir.file("run.csv"));
  ASSERT_EQ(back.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back[i].measured, steps[i].measured);
    EXPECT_DOUBLE_EQ(back[i].seconds, steps[i].seconds);
    EXPECT_DOUBLE_EQ(back[i].best_us, steps[i].best_us);
    EXPECT_EQ(back[i].trial_us, steps[i].trial_us);
  }
  // A CSV written before trial_us was kept still reads.
  std::ofstream(dir.file("old.csv")) << "trial,seconds,best_us\n1,0.5,10\n2,0.6,9\n";
  const std::vector<ConvergenceStep> old = read_convergence_csv(dir.file("old.csv"));
  ASSERT_EQ(old.size(), 2u);
  EXPECT_DOUBLE_EQ(old[1].best_us, 9);
  EXPECT_FALSE(old[1].trial_us);
  const auto error_of = [&](const std::string& text) {
    std::ofstream(dir.file("bad.csv")) << text;
    try {
      read_convergence_csv(dir.file("bad.csv"));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(error_of("a,b,c\n1,2,3\n").find("not a convergence CSV"), std::string::npos);
  EXPECT_NE(error_of("trial,seconds,best_us\n1,0.5,10\n2;0.6;9\n").find("bad.csv:3"), std::string::npos);
  EXPECT_NE(error_of("trial,seconds,best_us\n1,0.5,10,7\n").find("bad.csv:2"), std::string::npos);
  EXPECT_NE(error_of("trial,seconds,best_us,trial_us\n1,0.5,10\n").find("bad.csv:2"), std::string::npos);
  EXPECT_NE(error_of("trial,seconds,best_us,trial_us\n1,0.5,10,x\n").find("bad.csv:2"), std::string::npos);
  EXPECT_NE(error_of("trial,seconds,best_us,trial_us\n1,0.5,10,7,8\n").find("bad.csv:2"), std::string::npos);
  EXPECT_THROW(read_convergence_csv(dir.file("missing.csv")), Error);
}

TEST(ConvergenceComparison, TrialsToOwnAndOverallLevels) {
  // Guided reaches 100 at trial 3; random reaches its own best 120 at trial 2 but never
  // comes within 10% of 100.
  const std::vector<NamedRun> runs = {{"guided", {{1, 1, 300}, {2, 2, 150}, {3, 3, 105}, {4, 4, 100}}},
                                      {"random", {{1, 1, 300}, {2, 2, 120}, {3, 3, 120}, {4, 4, 120}}}};
  const ConvergenceComparison c = compare_convergence(runs, 0.10);
  EXPECT_DOUBLE_EQ(c.overall_best_us, 100);
  ASSERT_EQ(c.runs.size(), 2u);
  EXPECT_EQ(c.runs[0].trials, 4);
  EXPECT_EQ(c.runs[0].to_own, 3);
  EXPECT_EQ(c.runs[0].to_overall, 3);
  EXPECT_EQ(c.runs[1].to_own, 2);
  EXPECT_FALSE(c.runs[1].to_overall);
  const std::string table = comparison_table(c);
  EXPECT_NE(table.find("never"), std::string::npos) << table;
  tuner_test::TempDir dir("svg");
  write_convergence_svg(dir.file("both.svg"), "w", runs);
  std::ifstream in(dir.file("both.svg"));
  const std::string svg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(count(svg, "<polyline"), 4);  // two runs, two panels
}

TEST(ConvergenceComparison, MedianDrawsOfAGeometricVariable) {
  EXPECT_EQ(median_draws_to_hit(1, 2), 1);
  EXPECT_EQ(median_draws_to_hit(1, 4), 3);     // 1 - 0.75^2 = 0.44 < 0.5 <= 1 - 0.75^3 = 0.58
  EXPECT_EQ(median_draws_to_hit(2, 765), 265);  // ln 0.5 / ln(1 - 2/765) = 264.8
  EXPECT_FALSE(median_draws_to_hit(0, 1000));
}

TEST(ConvergenceComparison, UniformRunsAreReadAsSamplesOfTheSpace) {
  // The random run's second trial happens to be at the level (110 of 100), but only 1 of
  // its 8 points is: its median is 6 draws, not 2.
  std::vector<ConvergenceStep> random;
  const std::vector<std::optional<double>> times = {300, 108, 250, std::nullopt, 400, 200, 350, 500};
  double best = 0;
  for (size_t i = 0; i < times.size(); ++i) {
    if (times[i] && (best == 0 || *times[i] < best)) best = *times[i];
    random.push_back({static_cast<int>(i) + 1, static_cast<double>(i), best, times[i]});
  }
  const std::vector<NamedRun> runs = {{"guided", {{1, 1, 150, 150}, {2, 2, 100, 100}}}, {"random", random}};
  const ConvergenceComparison c = compare_convergence(runs, 0.10, {"random"});
  ASSERT_TRUE(c.runs[1].draws);
  EXPECT_EQ(c.runs[1].to_overall, 2);
  EXPECT_EQ(c.runs[1].draws->points, 8);
  EXPECT_EQ(c.runs[1].draws->at_level, 1);
  EXPECT_EQ(c.runs[1].draws->median_draws, 6);  // 1 - (7/8)^6 = 0.55
  EXPECT_FALSE(c.runs[0].draws);
  EXPECT_NE(comparison_table(c).find("6 (1 of 8)"), std::string::npos) << comparison_table(c);

  EXPECT_FALSE(c.pooled) << "one uniform run is not pooled";

  // A second sample of the space, 2 of its 4 points at the level: pooled, 3 of 12.
  const std::vector<ConvergenceStep> again = {{1, 1, 105, 105}, {2, 2, 105, 900}, {3, 3, 105, 800}, {4, 4, 100, 100}};
  std::vector<NamedRun> three = runs;
  three.push_back({"random2", again});
  const ConvergenceComparison p = compare_convergence(three, 0.10, {"random", "random2"});
  ASSERT_TRUE(p.pooled);
  EXPECT_EQ(p.pooled->points, 12);
  EXPECT_EQ(p.pooled->at_level, 3);
  EXPECT_EQ(p.pooled->median_draws, 3);  // 1 - (3/4)^2 = 0.44 < 0.5 <= 1 - (3/4)^3 = 0.58
  EXPECT_NE(comparison_table(p).find("3 (3 of 12)"), std::string::npos) << comparison_table(p);

  EXPECT_THROW(compare_convergence(three, 0.10, {"random", "random"}), Error);
  EXPECT_THROW(compare_convergence(runs, 0.10, {"nosuch"}), Error);
  const std::vector<NamedRun> untimed = {{"old", {{1, 1, 150}, {2, 2, 100}}}};
  EXPECT_THROW(compare_convergence(untimed, 0.10, {"old"}), Error);
}

}  // namespace
}  // namespace nee
