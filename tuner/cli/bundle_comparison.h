#pragma once
#include <string>

#include "importer/import_onnx.h"
#include "runtime/profiling/run_statistics.h"

namespace nee {

// A model's whole-run latency on two CPU bundles, measured side by side in this process:
// the same random inputs, warm-up runs on each, then runs alternating between the two so
// that machine noise hits both alike.
struct BundleTimes {
  TimingSummary first, second;
};

BundleTimes time_bundles_side_by_side(const std::string& model_path, const InputShapes& shapes,
                                      const std::string& first_bundle, const std::string& second_bundle, int warmup,
                                      int runs);

}  // namespace nee
