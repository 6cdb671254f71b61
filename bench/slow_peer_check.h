#pragma once
#include <string>

#include "bench/comparison.h"
#include "bench/probes/machine_peaks.h"

namespace nee::bench {

// Vendor libraries reach about half the FMA peak on compute-bound shapes on these
// machines (OpenBLAS and oneDNN sgemm 120-135 GFLOP/s at 1024-2048 cubed of a 250-270
// peak; oneDNN's convs 145-170). Under this share the library ran a kernel that does
// not fit the CPU (oneDNN 2.6's matmul: 4 GFLOP/s at 256 cubed on a Zen 4, 2% of 222),
// and a ratio against it says little.
constexpr double kSlowPeerFraction = 0.10;

// Whether `engine` is a vendor library with the usual share above (openblas, onednn).
bool is_vendor_library(const std::string& engine);

// For a vendor library timed on a compute-bound workload (the roofline's bound is the
// FMA peak) below kSlowPeerFraction of the peak: a warning naming its share and the
// kernel it ran (Engine::implementation, else its provenance). Empty otherwise.
std::string slow_peer_warning(const WorkloadComparison& c, const EngineTiming& t, const MachinePeaks& peaks);

}  // namespace nee::bench
