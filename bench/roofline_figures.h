#pragma once
#include "bench/probes/machine_peaks.h"
#include "core/workload.h"

namespace nee::bench {

// The fewest bytes a kernel must move: every input read once and the output written
// once (a floor no cache blocking can beat).
double min_bytes(const Workload& workload);
// FLOPs per byte of min_bytes().
double arithmetic_intensity(const Workload& workload);
// The roofline's bound at the workload's intensity: min(FMA peak, intensity x bandwidth).
double roof_gflops(const Workload& workload, const MachinePeaks& peaks);

}  // namespace nee::bench
