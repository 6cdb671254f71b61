#pragma once
#include <optional>
#include <string>
#include <vector>

namespace nee::bench {

// A grouped bar chart: one group per label (a workload, a model), one bar per series (a
// peer engine) in each group, and a dashed reference line (1.0 for ratios).
struct BarGroup {
  std::string label;
  std::vector<std::optional<double>> values;  // one per series; empty draws "n/a"
};

struct BarChart {
  std::string title;
  std::vector<std::string> series;
  std::vector<BarGroup> groups;
  double reference = 1.0;
};

std::string bar_chart_svg(const BarChart& chart);

}  // namespace nee::bench
