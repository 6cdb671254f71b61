#include "tuner/cli/bundle_comparison.h"

#include <chrono>
#include <map>
#include <memory>
#include <vector>

#include "core/median.h"
#include "runtime/bundle/kernel_bundle.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"
#include "runtime/tensor_io.h"

namespace nee {

namespace {

std::unique_ptr<Session> session_on(const std::string& model_path, const InputShapes& shapes,
                                    const std::string& bundle_dir) {
  BundleLoadOptions load;
  load.model_path = model_path;
  std::vector<std::unique_ptr<KernelProvider>> providers;
  providers.push_back(make_bundle_provider(KernelBundle::load(bundle_dir, load)));
  auto session = std::make_unique<Session>(import_onnx(model_path, shapes), std::move(providers),
                                           SessionOptions{optimize_graph});
  session->prepare();
  return session;
}

double run_ms(Session& s, const std::map<std::string, Tensor>& inputs) {
  const auto start = std::chrono::steady_clock::now();
  s.run(inputs);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Adds the session's last run's time per bundle kernel to `samples`.
void add_kernel_times(const Session& s, std::map<std::string, std::vector<double>>& samples) {
  const std::vector<Placement> placements = s.placements();
  const std::vector<double> times = s.node_times_us();
  std::map<std::string, double> run;
  for (size_t i = 0; i < placements.size() && i < times.size(); ++i) {
    if (placements[i].provider == "bundle") run[placements[i].kernel] += times[i];
  }
  for (const auto& [kernel, us] : run) samples[kernel].push_back(us);
}

std::map<std::string, double> medians(const std::map<std::string, std::vector<double>>& samples) {
  std::map<std::string, double> out;
  for (const auto& [kernel, us] : samples) out[kernel] = median(us);
  return out;
}

}  // namespace

std::map<int64_t, InModelTimes> tuned_kernels_in_model(const BundleManifest& tuned, const BundleTimes& times,
                                                      const std::string& level) {
  std::map<int64_t, InModelTimes> out;
  for (const BundleVariant& v : tuned.variants) {
    if (v.isa != level) continue;
    for (const BundleKernelEntry& k : v.kernels) {
      const auto mine = times.first_kernel_us.find(k.symbol);
      const auto other = times.second_kernel_us.find(k.symbol);
      if (k.source != "tuned" || !k.record_id || mine == times.first_kernel_us.end() ||
          other == times.second_kernel_us.end()) {
        continue;
      }
      out[*k.record_id] = InModelTimes{mine->second, other->second};
    }
  }
  return out;
}

BundleTimes time_bundles_side_by_side(const std::string& model_path, const InputShapes& shapes,
                                      const std::string& first_bundle, const std::string& second_bundle, int warmup,
                                      int runs) {
  const std::unique_ptr<Session> first = session_on(model_path, shapes, first_bundle);
  const std::unique_ptr<Session> second = session_on(model_path, shapes, second_bundle);
  std::map<std::string, Tensor> inputs;
  const std::vector<std::string>& names = first->graph().inputs();
  for (size_t i = 0; i < names.size(); ++i) inputs[names[i]] = random_tensor(first->graph().type_of(names[i]), 7 + i);
  for (int i = 0; i < warmup; ++i) {
    first->run(inputs);
    second->run(inputs);
  }
  std::vector<double> a, b;
  std::map<std::string, std::vector<double>> a_kernels, b_kernels;
  for (int i = 0; i < runs; ++i) {
    a.push_back(run_ms(*first, inputs));
    add_kernel_times(*first, a_kernels);
    b.push_back(run_ms(*second, inputs));
    add_kernel_times(*second, b_kernels);
  }
  return {summarize_timings(a), summarize_timings(b), medians(a_kernels), medians(b_kernels)};
}

}  // namespace nee
