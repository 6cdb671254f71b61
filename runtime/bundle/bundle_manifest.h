#pragma once
#include <cstdint>
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

// One ISA level's build of a bundle's kernels: a library of its own, with its own copy of
// the Halide runtime compiled for that level (core/isa_level.h). A GPU bundle has one
// variant, named after the level of its host code.
struct BundleVariant {
  std::string isa;     // an IsaLevel name
  std::string halide;  // the target its library was compiled for
  std::string library_file;
  std::string library_sha256;
  std::vector<BundleKernelEntry> kernels;
};

// manifest.json beside the kernel libraries: what they hold and what they were built for.
struct BundleManifest {
  std::string nee_version;
  int abi_version = 0;
  // The kind of target, the device the records were measured on and their cache state;
  // `target.halide` is the tuning machine's own target.
  Target target;
  std::string model_file;    // empty for a bundle not built from a model
  std::string model_sha256;
  std::vector<BundleVariant> variants;  // ascending ISA levels
  // The graph rewrites the workload keys were taken with, which the runtime must apply
  // too.
  GraphOptions graph;

  nlohmann::json to_json() const;
  static BundleManifest from_json(const nlohmann::json& j);
  // The bytes of manifest.json (what a signature signs) and the manifest they hold;
  // nee::Error naming `path` when they are not a NEE manifest of this runtime's ABI.
  std::string text() const;
  static BundleManifest parse(const std::string& text, const std::string& path);
  // Reads manifest.json through BundleFolder (a regular file of at most
  // kMaxManifestBytes); nee::Error naming the file when it is missing or not a manifest.
  static BundleManifest load(const std::string& bundle_dir);
  void save(const std::string& bundle_dir) const;
};

inline constexpr const char* kManifestFile = "manifest.json";
// 64 MiB: a MobileNetV3 bundle's manifest measured 125 KB for one ISA level, so this
// holds a model a hundred times larger at five levels, and stops a file that is not one.
inline constexpr uint64_t kMaxManifestBytes = uint64_t{64} << 20;

}  // namespace nee
