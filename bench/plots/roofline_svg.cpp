#include "bench/plots/roofline_svg.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.h"
#include "core/svg_canvas.h"

namespace nee::bench {

std::string roofline_svg(const Roofline& r) {
  if (!(r.peak_gflops > 0) || !(r.bandwidth_gbs > 0)) {
    throw Error("a roofline needs positive ceilings, not " + fmt::format("{} GFLOP/s and {} GB/s", r.peak_gflops,
                                                                          r.bandwidth_gbs));
  }
  const double ridge = r.peak_gflops / r.bandwidth_gbs;
  double xmin = ridge, xmax = ridge, ymin = r.peak_gflops, ymax = r.peak_gflops;
  std::vector<std::string> engines;
  for (const RooflinePoint& p : r.points) {
    if (!(p.intensity > 0) || !(p.gflops > 0)) continue;
    xmin = std::min(xmin, p.intensity), xmax = std::max(xmax, p.intensity);
    ymin = std::min(ymin, p.gflops), ymax = std::max(ymax, p.gflops);
    if (std::find(engines.begin(), engines.end(), p.engine) == engines.end()) engines.push_back(p.engine);
  }
  // Whole decades around everything drawn.
  const double lx0 = std::floor(std::log10(xmin) - 0.3), lx1 = std::ceil(std::log10(xmax) + 0.3);
  const double ly0 = std::floor(std::log10(ymin) - 0.3), ly1 = std::ceil(std::log10(ymax) + 0.3);
  const double left = 70, top = 30, w = 520, h = 360, width = left + w + 190, height = top + h + 50;
  const auto px = [&](double x) { return left + (std::log10(x) - lx0) / (lx1 - lx0) * w; };
  const auto py = [&](double y) { return top + h - (std::log10(y) - ly0) / (ly1 - ly0) * h; };

  SvgCanvas svg(width, height);
  svg.text(left + w / 2, 18, "Roofline: measured FMA peak and triad bandwidth of this machine", 13, "middle");
  svg.rect(left, top, w, h, "none", "#888");
  for (double d = lx0; d <= lx1; ++d) {
    svg.line(px(std::pow(10, d)), top, px(std::pow(10, d)), top + h, "#ddd");
    svg.text(px(std::pow(10, d)), top + h + 14, fmt::format("{:g}", std::pow(10, d)), 10, "middle");
  }
  for (double d = ly0; d <= ly1; ++d) {
    svg.line(left, py(std::pow(10, d)), left + w, py(std::pow(10, d)), "#ddd");
    svg.text(left - 4, py(std::pow(10, d)) + 3, fmt::format("{:g}", std::pow(10, d)), 10, "end");
  }
  svg.text(left + w / 2, height - 8, "arithmetic intensity (FLOP per byte of the fewest bytes moved)", 12, "middle");
  svg.text(16, top + h / 2, "GFLOP/s", 12, "middle", "black", -90);

  // The bandwidth slope from the left edge up to the ridge, then the flat compute roof.
  const double x_left = std::pow(10, lx0), x_right = std::pow(10, lx1);
  const double y_left = std::max(std::pow(10, ly0), x_left * r.bandwidth_gbs);
  const double x_start = y_left / r.bandwidth_gbs;
  svg.polyline({{px(x_start), py(y_left)}, {px(ridge), py(r.peak_gflops)}, {px(x_right), py(r.peak_gflops)}}, "black",
               2);
  svg.text(px(x_right) - 4, py(r.peak_gflops) - 5, fmt::format("FMA peak {:.0f} GFLOP/s", r.peak_gflops), 11, "end");
  svg.text(px(x_start) + 6, py(y_left) - 8, fmt::format("triad {:.1f} GB/s", r.bandwidth_gbs), 11, "start");

  for (const RooflinePoint& p : r.points) {
    if (!(p.intensity > 0) || !(p.gflops > 0)) continue;
    const size_t e = static_cast<size_t>(std::find(engines.begin(), engines.end(), p.engine) - engines.begin());
    svg.circle(px(p.intensity), py(p.gflops), 4, series_color(e));
  }
  for (size_t e = 0; e < engines.size(); ++e) {
    const double row = top + 14 + 16.0 * static_cast<double>(e);
    svg.circle(left + w + 20, row - 4, 4, series_color(e));
    svg.text(left + w + 30, row, engines[e], 11);
  }
  return svg.str();
}

}  // namespace nee::bench
