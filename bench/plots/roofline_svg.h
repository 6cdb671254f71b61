#pragma once
#include <string>
#include <vector>

namespace nee::bench {

// One measured kernel on the roofline: FLOPs per byte of the fewest bytes it must move
// (every input read once, the output written once) against its median GFLOP/s.
struct RooflinePoint {
  std::string workload;
  std::string engine;
  double intensity = 0;  // FLOP/byte
  double gflops = 0;
};

// The machine's measured ceilings (bench/probes/) and the points under them.
struct Roofline {
  double peak_gflops = 0;
  double bandwidth_gbs = 0;
  std::vector<RooflinePoint> points;
};

// A log-log chart: the ceiling min(peak, intensity x bandwidth), the ridge point, and one
// marker colour per engine (with a legend). Throws nee::Error when a ceiling is not positive.
std::string roofline_svg(const Roofline& roofline);

}  // namespace nee::bench
