#include "tuner/report/convergence_svg.h"

#include <algorithm>
#include <fstream>
#include <limits>

#include <fmt/format.h>

#include "core/error.h"
#include "core/svg_canvas.h"

namespace nee {

namespace {

constexpr double kPanelWidth = 480, kPanelHeight = 320;
constexpr double kLeft = 70, kRight = 20, kTop = 30, kBottom = 45;

void render_panel(SvgCanvas& svg, const PlotPanel& panel, double x0) {
  double xmin = std::numeric_limits<double>::infinity(), xmax = -xmin, ymin = xmin, ymax = -xmin;
  for (const PlotSeries& s : panel.series) {
    for (const auto& [x, y] : s.points) {
      xmin = std::min(xmin, x), xmax = std::max(xmax, x), ymin = std::min(ymin, y), ymax = std::max(ymax, y);
    }
  }
  if (xmin > xmax) xmin = 0, xmax = 1, ymin = 0, ymax = 1;  // no points at all
  if (xmax == xmin) xmax = xmin + 1;
  if (ymax == ymin) ymax = ymin + 1;
  ymin = std::min(ymin, 0.0);  // times from zero, so ratios read off the chart honestly
  const double w = kPanelWidth - kLeft - kRight, h = kPanelHeight - kTop - kBottom;
  const auto px = [&](double x) { return x0 + kLeft + (x - xmin) / (xmax - xmin) * w; };
  const auto py = [&](double y) { return kTop + h - (y - ymin) / (ymax - ymin) * h; };

  svg.text(x0 + kLeft + w / 2, 18, panel.title, 14, "middle");
  svg.rect(x0 + kLeft, kTop, w, h, "none", "#888");
  for (int i = 0; i <= 4; ++i) {
    const double xv = xmin + (xmax - xmin) * i / 4, yv = ymin + (ymax - ymin) * i / 4;
    svg.text(px(xv), kTop + h + 14, fmt::format("{:.4g}", xv), 10, "middle");
    svg.text(x0 + kLeft - 4, py(yv) + 3, fmt::format("{:.4g}", yv), 10, "end");
  }
  svg.text(x0 + kLeft + w / 2, kPanelHeight - 8, panel.x_label, 12, "middle");
  svg.text(x0 + 14, kTop + h / 2, panel.y_label, 12, "middle", "black", -90);
  for (size_t i = 0; i < panel.series.size(); ++i) {
    const PlotSeries& s = panel.series[i];
    if (s.points.empty()) continue;
    const std::string& color = series_color(i);
    std::vector<std::pair<double, double>> points;
    for (const auto& [x, y] : s.points) points.emplace_back(px(x), py(y));
    svg.polyline(points, color);
    svg.text(x0 + kLeft + w - 6, kTop + 14 + 13.0 * static_cast<double>(i), s.name, 11, "end", color);
  }
}

}  // namespace

std::string render_svg(const std::vector<PlotPanel>& panels) {
  SvgCanvas svg(kPanelWidth * static_cast<double>(std::max<size_t>(1, panels.size())), kPanelHeight);
  for (size_t i = 0; i < panels.size(); ++i) render_panel(svg, panels[i], kPanelWidth * static_cast<double>(i));
  return svg.str();
}

void write_svg(const std::string& path, const std::vector<PlotPanel>& panels) {
  std::ofstream out(path);
  out << render_svg(panels);
  out.close();
  if (!out) throw Error("cannot write " + path);
}

std::optional<int> trials_to_level(const std::vector<ConvergenceStep>& steps, double level_us) {
  for (const ConvergenceStep& s : steps) {
    if (s.best_us > 0 && s.best_us <= level_us) return s.measured;
  }
  return std::nullopt;
}

std::optional<int> trials_to_within(const std::vector<ConvergenceStep>& steps, double fraction) {
  if (steps.empty() || steps.back().best_us <= 0) return std::nullopt;
  return trials_to_level(steps, steps.back().best_us * (1 + fraction));
}

void write_convergence_svg(const std::string& path, const std::string& title, const std::vector<NamedRun>& runs) {
  PlotPanel by_trial{title, "trials", "best median (us)", {}}, by_time{title, "wall time (s)", "best median (us)", {}};
  for (const NamedRun& run : runs) {
    PlotSeries trials{run.name, {}}, time{run.name, {}};
    for (const ConvergenceStep& s : run.steps) {
      if (s.best_us <= 0) continue;
      trials.points.emplace_back(s.measured, s.best_us);
      time.points.emplace_back(s.seconds, s.best_us);
    }
    by_trial.series.push_back(std::move(trials));
    by_time.series.push_back(std::move(time));
  }
  write_svg(path, {by_trial, by_time});
}

void write_convergence_svg(const std::string& path, const std::string& title, const std::string& strategy,
                           const std::vector<ConvergenceStep>& steps) {
  write_convergence_svg(path, title, std::vector<NamedRun>{{strategy, steps}});
}

}  // namespace nee
