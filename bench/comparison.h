#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bench/engines/engine.h"
#include "bench/machine_load.h"
#include "bench/statistics.h"
#include "core/workload.h"

namespace nee::bench {

struct CompareOptions {
  uint64_t seed = 1;          // inputs: uniform in [-1, 1) from this seed, the same for every engine
  int repeats = 9;            // timed rounds; each round takes one sample of every engine
  double min_sample_ms = 50;  // calls per sample grow until a sample lasts this long
  double warmup_ms = 100;     // untimed calls per engine first (caches, thread pools)
  double settle_ms = 200;     // pause before each timed sample, for the previous engine's threads to park
  double rtol = 1e-4;         // agreement with the reference: |d| <= atol + rtol*|ref|
  double atol_per_k = 2e-6;   // absolute tolerance per reduction step (fp32 summation order)
  int threads = 1;            // the engines' threads: a load average above it is other work
};

struct EngineTiming {
  std::string engine;
  std::string provenance;
  std::string implementation;  // what the engine's library says ran (Engine::implementation)
  double executed_flops = 0;   // per call, what the engine's kernel executes (Engine::executed_work)
  std::string executed_method;  // "direct", "Winograd F(4x4,3x3)"
  int calls_per_sample = 0;
  std::vector<double> samples_ms;  // per-call time of each sample, in round order
  Summary ms;
  double max_abs_error = 0;  // largest difference from compute_reference, over both checks
};

struct EngineSkipped {
  std::string engine;
  std::string reason;
};

struct WorkloadComparison {
  std::string label;  // e.g. "1024x1024x1024"
  Workload workload;
  std::vector<EngineTiming> engines;  // in the order the engines were given
  std::vector<EngineSkipped> skipped;  // engines that could not prepare or run this workload
  double max_pairwise_difference = 0;  // largest difference between two engines' outputs
  LoadReading load;  // the machine's load from warm-up to the last timed round
};

// Prepares every engine for the workload, binds the same random inputs to each (an
// engine in a layout of its own converts them there, untimed) and runs each once (an
// engine that throws in any of these is listed as skipped, with the reason), bringing
// each output back to the plain layout (finish_output, untimed) and checking it against
// compute_reference. Only when all agree are they timed: warm-up, then `repeats`
// rounds, each taking one sample of every engine in an order rotated round by round, so
// machine noise falls on all engines alike. The outputs of the last timed calls are
// checked again. Throws nee::Error naming the engine whose output is wrong; no times
// are reported then. `sampler` reads the machine's load before the warm-up and after
// every round (WorkloadComparison::load).
WorkloadComparison compare_engines(const std::string& label, const Workload& workload,
                                   const std::vector<Engine*>& engines, const CompareOptions& options,
                                   const LoadSampler& sampler = read_machine_load);

}  // namespace nee::bench
