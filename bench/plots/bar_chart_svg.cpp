#include "bench/plots/bar_chart_svg.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/svg_canvas.h"

namespace nee::bench {

std::string bar_chart_svg(const BarChart& chart) {
  double top = chart.reference;
  for (const BarGroup& g : chart.groups) {
    for (const std::optional<double>& v : g.values) top = std::max(top, v.value_or(0));
  }
  top *= 1.15;
  const double bar = 26, gap = 34, left = 60, plot_height = 260, base = 290;
  const double group = static_cast<double>(std::max<size_t>(1, chart.series.size())) * bar + gap;
  const double width = std::max(480.0, left + static_cast<double>(chart.groups.size()) * group + 40);
  // Room below the axis for labels turned 30 degrees and one legend row per series.
  const double height = base + 110 + 16.0 * static_cast<double>(chart.series.size());
  const auto y = [&](double v) { return base - v / top * plot_height; };

  SvgCanvas svg(width, height);
  svg.text(left, 16, chart.title, 13);
  svg.line(left, base, width - 20, base, "black");
  svg.line(left, y(chart.reference), width - 20, y(chart.reference), "grey", 1, true);
  svg.text(left - 6, y(chart.reference) + 4, fmt::format("{:.1f}", chart.reference), 11, "end");
  for (size_t i = 0; i < chart.groups.size(); ++i) {
    const BarGroup& g = chart.groups[i];
    const double x0 = left + static_cast<double>(i) * group + gap / 2;
    for (size_t s = 0; s < chart.series.size(); ++s) {
      const double x = x0 + static_cast<double>(s) * bar;
      const std::optional<double> v = s < g.values.size() ? g.values[s] : std::nullopt;
      if (!v) {
        svg.text(x + 2, base - 4, "n/a", 10, "start", "grey");
        continue;
      }
      svg.rect(x, y(*v), bar - 4, base - y(*v), series_color(s));
      svg.text(x + (bar - 4) / 2, y(*v) - 3, fmt::format("{:.2f}", *v), 10, "middle");
    }
    svg.text(x0, base + 14, g.label, 10, "end", "black", -30);
  }
  for (size_t s = 0; s < chart.series.size(); ++s) {
    const double row = base + 100 + 16.0 * static_cast<double>(s);
    svg.rect(left, row - 9, 10, 10, series_color(s));
    svg.text(left + 14, row, chart.series[s], 11);
  }
  return svg.str();
}

}  // namespace nee::bench
