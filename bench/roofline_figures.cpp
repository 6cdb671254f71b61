#include "bench/roofline_figures.h"

#include <algorithm>

#include "core/dtype.h"

namespace nee::bench {

double min_bytes(const Workload& workload) {
  double bytes = static_cast<double>(workload.output.elements() * dtype_size(workload.output.dtype));
  for (const TensorType& t : workload.inputs) bytes += static_cast<double>(t.elements() * dtype_size(t.dtype));
  return bytes;
}

double arithmetic_intensity(const Workload& workload) { return workload.flops() / min_bytes(workload); }

double roof_gflops(const Workload& workload, const MachinePeaks& peaks) {
  return std::min(peaks.fma_gflops, arithmetic_intensity(workload) * peaks.triad_gbs);
}

}  // namespace nee::bench
