#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/target.h"
#include "runtime/bundle/bundle_manifest.h"
#include "runtime/bundle/halide_kernel.h"
#include "runtime/kernel_provider.h"

namespace nee {

struct BundleLoadOptions {
  std::string model_path;                  // the model about to run; empty skips the model check
  TargetKind expected_kind = TargetKind::cpu;
  // Threads of the kernel pool, which runs every parallel loop of the bundle's kernels;
  // 0: one per CPU this process may run on. Negative counts are refused.
  int threads = 0;
  // How long the pool's workers stay awake after a loop (KernelPoolSettings::spin_us).
  int spin_us = KernelPoolSettings{}.spin_us;
  // Picks kernels as a CPU at most at this ISA level would (core/isa_level.h), on top of
  // NEE_MAX_ISA; empty: no cap of its own.
  std::string max_isa;
};

// A loaded kernel bundle. load() refuses, with an error that names the problem, a bundle
// built by another NEE version or ABI, for another kind of target, with no variant whose
// ISA level this CPU runs (naming the CPU's levels and the bundle's), for another model,
// whose library changed since it was built, or whose library lacks a kernel or holds one
// whose arguments differ from its workload's. Each workload runs the variant of the
// highest level this CPU runs, or a lower level's where only that one was tuned or its
// tuned kernel measured faster; only the libraries of chosen variants are loaded.
class KernelBundle {
 public:
  static std::shared_ptr<KernelBundle> load(const std::string& dir, const BundleLoadOptions& options);

  const BundleManifest& manifest() const { return manifest_; }
  const HalideKernel* find(const std::string& workload_key) const;
  // Soft mismatches, e.g. tuned on another machine than this one.
  const std::vector<std::string>& warnings() const { return warnings_; }
  // The size of the kernel pool that runs the bundle's parallel loops.
  int threads() const { return threads_; }
  // How many of the loaded kernels each ISA level's variant gives.
  const std::map<std::string, int>& kernels_by_level() const { return kernels_by_level_; }

 private:
  BundleManifest manifest_;
  std::vector<std::unique_ptr<SharedLibrary>> libraries_;
  std::map<std::string, HalideKernel> kernels_;  // by workload key
  std::map<std::string, int> kernels_by_level_;
  std::vector<std::string> warnings_;
  int threads_ = 0;
};

// The "bundle" execution provider: binds every node whose workload the bundle holds.
std::unique_ptr<KernelProvider> make_bundle_provider(std::shared_ptr<KernelBundle> bundle);

}  // namespace nee
