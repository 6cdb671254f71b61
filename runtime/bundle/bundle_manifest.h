#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/schedule_config.h"
#include "core/target.h"
#include "core/workload.h"
#include "runtime/graph_options.h"

namespace nee {

struct BundleKernelEntry {
  Workload workload;
  std::string symbol;
  std::string source;  // "tuned" (best database record) or "default" (untuned schedule)
  std::optional<int64_t> record_id;
  ScheduleConfig schedule;
  std::optional<double> median_us;  // as measured when tuned
};

// manifest.json beside kernels.so: what the library holds and what it was built for.
struct BundleManifest {
  std::string nee_version;
  int abi_version = 0;
  Target target;
  std::string model_file;    // empty for a bundle not built from a model
  std::string model_sha256;
  std::string library_file = "kernels.so";
  std::string library_sha256;
  std::vector<BundleKernelEntry> kernels;
  // The graph rewrites the workload keys were taken with, which the runtime must apply
  // too. Bundles made before the manifest recorded them applied neither.
  GraphOptions graph = GraphOptions::legacy();

  nlohmann::json to_json() const;
  static BundleManifest from_json(const nlohmann::json& j);
  // Throws nee::Error naming the file when it is missing or not a NEE manifest.
  static BundleManifest load(const std::string& bundle_dir);
  void save(const std::string& bundle_dir) const;
};

}  // namespace nee
