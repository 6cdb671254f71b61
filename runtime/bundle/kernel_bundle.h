#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/target.h"
#include "runtime/bundle/bundle_manifest.h"
#include "runtime/bundle/bundle_signature.h"
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
  // When set, a bundle is loaded only when signed by one of these keys (docs/TRUST.md).
  std::shared_ptr<const TrustedKeys> trusted_keys;
};

// A loaded kernel bundle. Its files are read through BundleFolder (regular files inside
// the folder, never through a link, each up to a size limit), and all is checked before
// any of its code is mapped: the signature (given trusted keys), then the manifest, then
// every library to load (its sha256 against the manifest's, an ELF shared object for
// this CPU), each of which is then loaded from the very bytes that were checked.
// load() refuses, with an error that names the problem, a bundle not signed by a trusted
// key, built by another NEE version or ABI, for another kind of target, with no variant
// whose ISA level this CPU runs (naming the CPU's levels and the bundle's), for another
// model, whose library changed since it was built or is no library for this CPU, or
// whose library lacks a kernel or holds one whose arguments differ from its workload's.
// Each workload runs the variant of the highest level this CPU runs, or a lower level's
// where only that one was tuned or its tuned kernel measured faster; only the libraries
// of chosen variants are read and loaded.
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
