#include "bench/kernel_plots.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "bench/report.h"
#include "bench/roofline_figures.h"
#include "core/error.h"

namespace nee::bench {

BarChart kernel_ratio_chart(const std::vector<WorkloadComparison>& comparisons) {
  BarChart chart;
  chart.title = "NEE-tuned speed over each engine (median time ratio; above 1: NEE-tuned faster)";
  for (const WorkloadComparison& c : comparisons) {
    for (const EngineTiming& t : c.engines) {
      if (!is_nee_tuned(t.engine) && std::find(chart.series.begin(), chart.series.end(), t.engine) == chart.series.end()) {
        chart.series.push_back(t.engine);
      }
    }
  }
  for (const WorkloadComparison& c : comparisons) {
    BarGroup g{c.label, {}};
    for (const std::string& engine : chart.series) g.values.push_back(nee_speed_ratio(c, engine));
    chart.groups.push_back(std::move(g));
  }
  return chart;
}

Roofline kernel_roofline(const std::vector<WorkloadComparison>& comparisons, const MachinePeaks& peaks) {
  Roofline r{peaks.fma_gflops, peaks.triad_gbs, {}};
  for (const WorkloadComparison& c : comparisons) {
    for (const EngineTiming& t : c.engines) {
      if (t.ms.count == 0) continue;
      // The executed FLOPs on both axes: a Winograd conv's direct-equivalent rate would
      // sit above the FMA roof it cannot pass.
      const double per_byte = t.executed_flops / min_bytes(c.workload);
      r.points.push_back({c.label, t.engine, per_byte, executed_gflops(t)});
    }
  }
  return r;
}

std::vector<std::string> write_kernel_plots(const std::string& dir, const std::vector<WorkloadComparison>& comparisons,
                                            const std::optional<MachinePeaks>& peaks) {
  std::filesystem::create_directories(dir);
  std::vector<std::pair<std::string, std::string>> files = {{"ratios.svg", bar_chart_svg(kernel_ratio_chart(comparisons))}};
  if (peaks) files.emplace_back("roofline.svg", roofline_svg(kernel_roofline(comparisons, *peaks)));
  std::vector<std::string> written;
  for (const auto& [name, svg] : files) {
    const std::string path = dir + "/" + name;
    std::ofstream out(path);
    out << svg;
    out.close();
    if (!out) throw Error("cannot write " + path);
    written.push_back(name);
  }
  return written;
}

}  // namespace nee::bench
