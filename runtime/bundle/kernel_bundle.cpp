#include "runtime/bundle/kernel_bundle.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "core/content_hash.h"
#include "core/error.h"
#include "core/isa_level.h"
#include "core/version.h"
#include "runtime/bundle/bundle_abi.h"
#include "runtime/bundle/bundle_folder.h"
#include "runtime/bundle/elf_image_check.h"
#include "runtime/bundle/halide_device_values.h"
#include "runtime/node_workload.h"

namespace nee {

static_assert(NEE_BUNDLE_ABI_VERSION == kBundleAbiVersion, "bundle ABI versions out of step");

// 1 GiB: the kernel libraries of MobileNetV3 and SqueezeNet measured 1.2 and 0.7 MB; a
// library is held in memory twice while it loads (as read, and in its memory file).
static constexpr uint64_t kMaxLibraryBytes = uint64_t{1} << 30;

static std::string level_list(const std::vector<const IsaLevel*>& levels) {
  std::vector<std::string> names;
  for (const IsaLevel* l : levels) names.push_back(l->name);
  return names.empty() ? "none of NEE's levels" : fmt::format("{}", fmt::join(names, ", "));
}

// The variants whose code this CPU runs, by the levels it claims (NEE_MAX_ISA included);
// nee::Error naming the CPU's levels and the bundle's when there is none.
static std::vector<const BundleVariant*> runnable_variants(const BundleManifest& m, const std::string& where,
                                                           const std::string& max_isa) {
  const std::vector<const IsaLevel*> host = host_isa_levels(max_isa);
  std::vector<const BundleVariant*> runs;
  std::vector<std::string> held;
  for (const BundleVariant& v : m.variants) {
    const IsaLevel& level = isa_level_named(v.isa);
    if (isa_level_of_target(v.halide) != &level) {
      throw Error(fmt::format("{}: its {} library was compiled for {}, which is not that level's target", where,
                              v.isa, v.halide));
    }
    if (std::find(host.begin(), host.end(), &level) != host.end()) runs.push_back(&v);
    const std::vector<std::string> lacks = missing_cpu_flags(level);
    held.push_back(level.arch != host_arch() ? fmt::format("{} (for {})", v.isa, level.arch)
                   : lacks.empty()           ? fmt::format("{} (above the cap)", v.isa)
                                             : fmt::format("{} (needs {})", v.isa, fmt::join(lacks, " ")));
  }
  if (runs.empty()) {
    const char* variable = std::getenv(kMaxIsaVariable);
    std::string caps = variable && *variable ? fmt::format(", {}={}", kMaxIsaVariable, variable) : "";
    if (!max_isa.empty()) caps += ", capped at " + max_isa;
    throw Error(fmt::format("{} holds kernels for {}; this CPU ({}{}) runs {}", where, fmt::join(held, ", "), host_arch(),
                            caps, level_list(host)));
  }
  return runs;
}

// Per workload, the variant that runs it: of those this CPU runs, the one whose tuned
// kernel measured fastest on the tuning machine; where none is tuned, the highest level.
static std::map<std::string, std::pair<const BundleVariant*, const BundleKernelEntry*>> choose_kernels(
    const std::vector<const BundleVariant*>& runnable) {
  std::map<std::string, std::pair<const BundleVariant*, const BundleKernelEntry*>> chosen;
  for (const BundleVariant* v : runnable) {  // ascending: a later level wins a tie
    for (const BundleKernelEntry& k : v->kernels) {
      auto [it, fresh] = chosen.try_emplace(k.workload.key(), v, &k);
      if (fresh) continue;
      const BundleKernelEntry& held = *it->second.second;
      const bool tuned = k.median_us.has_value(), held_tuned = held.median_us.has_value();
      if ((tuned && (!held_tuned || *k.median_us <= *held.median_us)) || (!tuned && !held_tuned)) {
        it->second = {v, &k};
      }
    }
  }
  return chosen;
}

std::shared_ptr<KernelBundle> KernelBundle::load(const std::string& dir, const BundleLoadOptions& options) {
  auto bundle = std::shared_ptr<KernelBundle>(new KernelBundle());
  const std::string where = "bundle '" + dir + "'";
  const BundleFolder folder(dir);
  const std::optional<std::string> manifest_text = folder.read(kManifestFile, kMaxManifestBytes, "bundle manifest");
  if (!manifest_text) throw Error("'" + dir + "' is not a NEE bundle: no manifest.json");
  // The signature first: nothing of an untrusted bundle is interpreted.
  if (options.trusted_keys) {
    options.trusted_keys->verify(where, *manifest_text,
                                 folder.read(kSignatureFile, kMaxSignatureBytes, "bundle signature"));
  }
  BundleManifest& m = bundle->manifest_ = BundleManifest::parse(*manifest_text, dir + "/" + kManifestFile);

  if (m.target.kind() != options.expected_kind) {
    throw Error(fmt::format("{} was built for a {} target ({}), but a {} run was asked for", where,
                            to_string(m.target.kind()), m.target.halide, to_string(options.expected_kind)));
  }
  const std::vector<const BundleVariant*> runnable = runnable_variants(m, where, options.max_isa);
  if (!options.model_path.empty() && !m.model_sha256.empty()) {
    const std::string model_hash = sha256_file(options.model_path);
    if (model_hash != m.model_sha256) {
      throw Error(fmt::format("{} was built for model '{}' (sha256 {}...), not for '{}' (sha256 {}...)", where,
                              m.model_file, m.model_sha256.substr(0, 12), options.model_path,
                              model_hash.substr(0, 12)));
    }
  }
  if (m.target.device.hash() != DeviceFingerprint::of_host().hash() && m.target.kind() == TargetKind::cpu) {
    bundle->warnings_.push_back(fmt::format("{} was tuned on '{}' ({} cores); this machine differs, so its "
                                            "kernels may not be the fastest here",
                                            where, m.target.device.cpu_model, m.target.device.cores));
  }

  // Every library to load is read once and checked before any is mapped: a library's
  // constructors run as it loads.
  const auto chosen = choose_kernels(runnable);
  std::map<const BundleVariant*, std::string> images;
  for (const auto& [key, pick] : chosen) {
    const BundleVariant& v = *pick.first;
    if (images.count(&v)) continue;
    std::optional<std::string> image = folder.read(v.library_file, kMaxLibraryBytes, "kernel library");
    if (!image) throw Error(where + " has no kernel library " + v.library_file);
    if (sha256_hex(*image) != v.library_sha256) {
      throw Error(where + ": " + v.library_file + " changed since the bundle was built (content hash differs)");
    }
    check_elf_shared_object(*image, where + ": kernel library " + v.library_file);
    images.emplace(&v, std::move(*image));
  }

  std::map<const BundleVariant*, const SharedLibrary*> libraries;
  for (const auto& [key, pick] : chosen) {
    const BundleVariant& v = *pick.first;
    if (!libraries.count(&v)) {
      bundle->libraries_.push_back(std::make_unique<SharedLibrary>(dir + "/" + v.library_file, images.at(&v)));
      const SharedLibrary& lib = *bundle->libraries_.back();
      auto abi = reinterpret_cast<nee_bundle_abi_version_fn>(lib.require("nee_bundle_abi_version"));
      if (abi() != kBundleAbiVersion) {
        throw Error(fmt::format("{}: {} speaks bundle ABI {}, this runtime {}", where, v.library_file, abi(),
                                kBundleAbiVersion));
      }
      auto target = reinterpret_cast<nee_bundle_target_fn>(lib.require("nee_bundle_target"));
      if (v.halide != target()) {
        throw Error(fmt::format("{}: {} was compiled for {}, the manifest says {}", where, v.library_file, target(),
                                v.halide));
      }
      bundle->threads_ = attach_kernel_pool(lib, options.threads, options.spin_us);
      libraries[&v] = &lib;
    }
    const SharedLibrary& lib = *libraries.at(&v);
    const BundleKernelEntry& k = *pick.second;
    auto count = reinterpret_cast<nee_bundle_kernel_count_fn>(lib.require("nee_bundle_kernel_count"));
    auto table = reinterpret_cast<nee_bundle_kernels_fn>(lib.require("nee_bundle_kernels"))();
    const nee_bundle_kernel* entry = std::find_if(
        table, table + count(), [&](const nee_bundle_kernel& e) { return e.symbol && k.symbol == e.symbol; });
    if (entry == table + count()) {
      throw Error(where + ": kernel '" + k.symbol + "' is missing from " + v.library_file);
    }
    if (key != entry->workload_key) {
      throw Error(where + ": kernel '" + k.symbol + "' computes another workload than the manifest says");
    }
    HalideKernel kernel(lib, k.symbol);
    kernel.check_signature(k.workload.inputs, k.workload.output);
    bundle->kernels_.emplace(key, std::move(kernel));
    ++bundle->kernels_by_level_[v.isa];
  }
  return bundle;
}

const HalideKernel* KernelBundle::find(const std::string& workload_key) const {
  auto it = kernels_.find(workload_key);
  return it == kernels_.end() ? nullptr : &it->second;
}

namespace {

class BundleNodeKernel : public NodeKernel {
 public:
  // `device`: the provider's device memory when the bundle's kernels run on a GPU.
  // `operands`: the node's inputs the kernel takes, its first ones; the rest (Slice's
  // starts, ends, axes and steps) are constants the workload's attributes hold.
  BundleNodeKernel(std::shared_ptr<KernelBundle> bundle, const HalideKernel* kernel, HalideDeviceValues* device,
                   size_t operands)
      : bundle_(std::move(bundle)), kernel_(kernel), device_(device), operands_(operands) {}
  void run(const std::vector<const Tensor*>& inputs, const std::vector<Tensor*>& outputs) override {
    kernel_->run({inputs.begin(), inputs.begin() + operands_}, *outputs.at(0));
  }
  std::string name() const override { return kernel_->symbol(); }
  // A Halide pipeline realizes its output over the whole output buffer (the compiled-
  // kernel tests run every kernel on NaN-filled outputs to check it).
  bool writes_every_output_element() const override { return true; }
  DeviceValues* device_values() const override { return device_; }
  size_t run_on_device(const std::vector<std::string>& input_names, const std::vector<const Tensor*>& inputs,
                       const std::string& output_name, Tensor& output) override {
    size_t uploaded = 0;
    std::vector<halide_buffer_t*> buffers;
    for (size_t i = 0; i < operands_; ++i) {
      halide_buffer_t* buffer = nullptr;
      const size_t bytes = device_->input(input_names.at(i), *inputs[i], &buffer);
      // A value read twice (x * x) is uploaded once.
      if (std::find(buffers.begin(), buffers.end(), buffer) == buffers.end()) uploaded += bytes;
      buffers.push_back(buffer);
    }
    buffers.push_back(device_->output(output_name, output));
    kernel_->call(buffers);
    device_->kernel_launched(buffers.back());
    return uploaded;
  }

 private:
  std::shared_ptr<KernelBundle> bundle_;  // keeps the library loaded
  const HalideKernel* kernel_;
  HalideDeviceValues* device_;
  size_t operands_;
};

class BundleProvider : public KernelProvider {
 public:
  explicit BundleProvider(std::shared_ptr<KernelBundle> bundle) : bundle_(std::move(bundle)) {}
  std::string name() const override { return "bundle"; }
  std::unique_ptr<NodeKernel> bind(const Graph& graph, const Node& node) override {
    const std::optional<Workload> w = workload_of(graph, node);
    if (!w) return nullptr;
    const HalideKernel* kernel = bundle_->find(w->key());
    if (!kernel) return nullptr;
    // A GPU bundle's values stay on the device from kernel to kernel, in memory shared by
    // this provider's kernels (one session's).
    if (bundle_->manifest().target.kind() != TargetKind::cpu && !device_) {
      device_ = std::make_unique<HalideDeviceValues>(kernel->device_api());
    }
    return std::make_unique<BundleNodeKernel>(bundle_, kernel, device_.get(), w->inputs.size());
  }
  std::optional<GraphOptions> graph_options() const override { return bundle_->manifest().graph; }

 private:
  std::shared_ptr<KernelBundle> bundle_;
  std::unique_ptr<HalideDeviceValues> device_;  // freed before the library it calls into
};

}  // namespace

std::unique_ptr<KernelProvider> make_bundle_provider(std::shared_ptr<KernelBundle> bundle) {
  return std::make_unique<BundleProvider>(std::move(bundle));
}

}  // namespace nee
