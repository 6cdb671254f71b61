#pragma once
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

namespace nee::bench {

struct ProbeOptions {
  int threads = 1;
  int repetitions = 5;           // Google Benchmark repetitions of each probe
  double min_time_s = 0.5;       // Google Benchmark's minimum time per repetition
  double llc_multiple = 4;       // each triad array is this many times the last-level cache
};

// The machine's measured ceilings, with the same thread count as the engines.
struct MachinePeaks {
  int threads = 0;
  double fma_gflops = 0;  // best repetition: noise only ever lowers a ceiling
  double triad_gbs = 0;   // best repetition
  std::vector<double> fma_gflops_samples, triad_gbs_samples;
  int64_t llc_bytes = 0;
  int64_t triad_bytes_per_array = 0;
};

// Runs the FMA and triad probes as Google Benchmark benchmarks (manual time, its
// console table printed as they run) and reads the results back through a reporter.
// Throws nee::Error when a probe fails.
MachinePeaks measure_machine_peaks(const ProbeOptions& options);

nlohmann::json to_json(const MachinePeaks& peaks);

}  // namespace nee::bench
