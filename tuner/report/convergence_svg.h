#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nee {

// A line of (x, y) points.
struct PlotSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;
};

// One chart: axes fitted to the data, one polyline (and legend entry) per series.
struct PlotPanel {
  std::string title, x_label, y_label;
  std::vector<PlotSeries> series;
};

// An SVG document with the panels side by side. Series without points draw nothing.
std::string render_svg(const std::vector<PlotPanel>& panels);
// Writes render_svg(panels) to `path`; throws nee::Error when it cannot.
void write_svg(const std::string& path, const std::vector<PlotPanel>& panels);

}  // namespace nee

namespace nee {

// The state of a tuning run after one measurement.
struct ConvergenceStep {
  int measured = 0;      // measurements of this run so far, from 1
  double seconds = 0;    // since the run started
  double best_us = 0;    // best ok median so far (the database's included); 0 while none
  // This step's own point's median; none when it failed, and for a model's steps.
  std::optional<double> trial_us = std::nullopt;
};

// The first `measured` at which the best time was at or below `level_us`; nullopt if never.
std::optional<int> trials_to_level(const std::vector<ConvergenceStep>& steps, double level_us);
// The first `measured` at which the best time was within `fraction` of the run's final
// best (0.1: within 10%); nullopt when no step has a best.
std::optional<int> trials_to_within(const std::vector<ConvergenceStep>& steps, double fraction);

// One tuning run's convergence, named (for example by its strategy).
struct NamedRun {
  std::string name;
  std::vector<ConvergenceStep> steps;
};

// Writes the convergence plot of runs of one workload (or model), one line per run: best
// time against trials and against wall time.
void write_convergence_svg(const std::string& path, const std::string& title, const std::vector<NamedRun>& runs);
// The same for one run.
void write_convergence_svg(const std::string& path, const std::string& title, const std::string& strategy,
                           const std::vector<ConvergenceStep>& steps);

}  // namespace nee
