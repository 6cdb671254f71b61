#include "bench/slow_peer_check.h"

#include <fmt/format.h>

#include "bench/roofline_figures.h"

namespace nee::bench {

bool is_vendor_library(const std::string& engine) { return engine == "openblas" || engine == "onednn"; }

std::string slow_peer_warning(const WorkloadComparison& c, const EngineTiming& t, const MachinePeaks& peaks) {
  if (!is_vendor_library(t.engine) || t.ms.count == 0 || peaks.fma_gflops <= 0) return "";
  if (roof_gflops(c.workload, peaks) < peaks.fma_gflops) return "";  // bandwidth-bound: a low share is expected
  const double share = t.executed_flops / (t.ms.median * 1e6) / peaks.fma_gflops;
  if (share >= kSlowPeerFraction) return "";
  return fmt::format("{} ran at {:.1f}% of the FMA peak on a compute-bound shape, far below the ~50% vendor libraries "
                     "reach (flagged under {:.0f}%); its kernel: {}. A ratio against it says little.",
                     t.engine, 100 * share, 100 * kSlowPeerFraction,
                     t.implementation.empty() ? t.provenance : t.implementation);
}

}  // namespace nee::bench
