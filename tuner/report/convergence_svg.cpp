#include "tuner/report/convergence_svg.h"

#include <algorithm>
#include <fstream>
#include <limits>

#include <fmt/format.h>

#include "core/error.h"

namespace nee {

namespace {

constexpr double kPanelWidth = 480, kPanelHeight = 320;
constexpr double kLeft = 70, kRight = 20, kTop = 30, kBottom = 45;
constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"};

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

void render_panel(std::string& svg, const PlotPanel& panel, double x0) {
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

  svg += fmt::format(R"svg(<text x="{:.1f}" y="18" font-size="14" text-anchor="middle">{}</text>)svg" "\n",
                     x0 + kLeft + w / 2, escape(panel.title));
  svg += fmt::format(R"svg(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="none" stroke="#888"/>)svg" "\n",
                     x0 + kLeft, kTop, w, h);
  for (int i = 0; i <= 4; ++i) {
    const double xv = xmin + (xmax - xmin) * i / 4, yv = ymin + (ymax - ymin) * i / 4;
    svg += fmt::format(R"svg(<text x="{:.1f}" y="{:.1f}" font-size="10" text-anchor="middle">{:.4g}</text>)svg" "\n",
                       px(xv), kTop + h + 14, xv);
    svg += fmt::format(R"svg(<text x="{:.1f}" y="{:.1f}" font-size="10" text-anchor="end">{:.4g}</text>)svg" "\n",
                       x0 + kLeft - 4, py(yv) + 3, yv);
  }
  svg += fmt::format(R"svg(<text x="{:.1f}" y="{:.1f}" font-size="12" text-anchor="middle">{}</text>)svg" "\n",
                     x0 + kLeft + w / 2, kPanelHeight - 8, escape(panel.x_label));
  svg += fmt::format(R"svg(<text x="{:.1f}" y="{:.1f}" font-size="12" text-anchor="middle" transform="rotate(-90 {:.1f} {:.1f})">{}</text>)svg" "\n",
                     x0 + 14, kTop + h / 2, x0 + 14, kTop + h / 2, escape(panel.y_label));
  for (size_t i = 0; i < panel.series.size(); ++i) {
    const PlotSeries& s = panel.series[i];
    if (s.points.empty()) continue;
    const char* color = kColors[i % std::size(kColors)];
    std::string points;
    for (const auto& [x, y] : s.points) points += fmt::format("{:.1f},{:.1f} ", px(x), py(y));
    points.pop_back();
    svg += fmt::format(R"svg(<polyline fill="none" stroke="{}" stroke-width="1.5" points="{}"/>)svg" "\n", color, points);
    svg += fmt::format(R"svg(<text x="{:.1f}" y="{:.1f}" font-size="11" fill="{}" text-anchor="end">{}</text>)svg" "\n",
                       x0 + kLeft + w - 6, kTop + 14 + 13.0 * static_cast<double>(i), color, escape(s.name));
  }
}

}  // namespace

std::string render_svg(const std::vector<PlotPanel>& panels) {
  const double width = kPanelWidth * static_cast<double>(std::max<size_t>(1, panels.size()));
  std::string svg = fmt::format(
      R"svg(<svg xmlns="http://www.w3.org/2000/svg" width="{0:.0f}" height="{1:.0f}" viewBox="0 0 {0:.0f} {1:.0f}" font-family="sans-serif">)svg" "\n"
      R"svg(<rect width="100%" height="100%" fill="white"/>)svg" "\n",
      width, kPanelHeight);
  for (size_t i = 0; i < panels.size(); ++i) render_panel(svg, panels[i], kPanelWidth * static_cast<double>(i));
  svg += "</svg>\n";
  return svg;
}

void write_svg(const std::string& path, const std::vector<PlotPanel>& panels) {
  std::ofstream out(path);
  out << render_svg(panels);
  out.close();
  if (!out) throw Error("cannot write " + path);
}

std::optional<int> trials_to_within(const std::vector<ConvergenceStep>& steps, double fraction) {
  if (steps.empty() || steps.back().best_us <= 0) return std::nullopt;
  const double target = steps.back().best_us * (1 + fraction);
  for (const ConvergenceStep& s : steps) {
    if (s.best_us > 0 && s.best_us <= target) return s.measured;
  }
  return std::nullopt;
}

void write_convergence_svg(const std::string& path, const std::string& title, const std::string& strategy,
                           const std::vector<ConvergenceStep>& steps) {
  PlotSeries by_trial{strategy, {}}, by_time{strategy, {}};
  for (const ConvergenceStep& s : steps) {
    if (s.best_us <= 0) continue;
    by_trial.points.emplace_back(s.measured, s.best_us);
    by_time.points.emplace_back(s.seconds, s.best_us);
  }
  write_svg(path, {{title, "trials", "best median (us)", {by_trial}},
                   {title, "wall time (s)", "best median (us)", {by_time}}});
}

}  // namespace nee
