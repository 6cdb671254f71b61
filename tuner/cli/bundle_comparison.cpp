#include "tuner/cli/bundle_comparison.h"

#include <chrono>
#include <map>
#include <memory>
#include <vector>

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

}  // namespace

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
  for (int i = 0; i < runs; ++i) {
    a.push_back(run_ms(*first, inputs));
    b.push_back(run_ms(*second, inputs));
  }
  return {summarize_timings(a), summarize_timings(b)};
}

}  // namespace nee
