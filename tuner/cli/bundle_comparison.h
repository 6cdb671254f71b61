#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "core/records.h"
#include "importer/import_onnx.h"
#include "runtime/bundle/bundle_manifest.h"
#include "runtime/profiling/run_statistics.h"

namespace nee {

// A model's whole-run latency on two CPU bundles, measured side by side in this process:
// the same random inputs, warm-up runs on each, then runs alternating between the two so
// that machine noise hits both alike.
struct BundleTimes {
  TimingSummary first, second;
  // Per bundle kernel (by symbol: a workload's and an ISA level's, the same in both
  // bundles), the median over the runs of the summed time of the nodes it ran, µs.
  std::map<std::string, double> first_kernel_us, second_kernel_us;
};

// Per database record, the times of the tuned kernels at ISA level `level` of the `tuned`
// bundle (the first of `times`) and of the other bundle's kernels of the same symbol.
std::map<int64_t, InModelTimes> tuned_kernels_in_model(const BundleManifest& tuned, const BundleTimes& times,
                                                      const std::string& level);

BundleTimes time_bundles_side_by_side(const std::string& model_path, const InputShapes& shapes,
                                      const std::string& first_bundle, const std::string& second_bundle, int warmup,
                                      int runs);

}  // namespace nee
