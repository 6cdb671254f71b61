// Fuzz target: ONNX model bytes -> import (whole, or stage by stage where shapes depend on
// values the model computes) -> Session::prepare on the reference kernels -> one run on
// zero-filled inputs when the model is small. nee::Error is the importer's and the
// runtime's documented refusal; anything else escaping, a crash, a sanitizer report, a
// hang or an allocation over fuzz_caps() is a finding.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "fuzz/fuzz_caps.h"
#include "fuzz/refusal.h"
#include "importer/import_onnx.h"
#include "importer/value_needed.h"
#include "runtime/node_flops.h"
#include "runtime/passes/passes.h"
#include "runtime/session.h"
#include "runtime/staged_session.h"

namespace {

using namespace nee;

// At most this many operations per run (FLOPs plus elements written), so that a run stays
// far below libFuzzer's -timeout (10 s in scripts/fuzz.sh) even under ASan. For scale:
// the 932 ONNX node-test models replay in 0.2 s together (gcc build, import included),
// and libFuzzer's slowest input in 60 s of model_fuzzer took under a second.
constexpr double kMaxRunWork = 1e6;

double run_work(const Graph& graph) {
  double work = 0;
  for (const Node& node : graph.nodes()) {
    work += node_flops(graph, node);
    for (const std::string& out : node.outputs) {
      if (!out.empty() && graph.has_value(out)) work += static_cast<double>(graph.type_of(out).elements());
    }
  }
  return work;
}

// Zero-filled inputs for `types`, or none when one is larger than a run may take.
bool zero_inputs(const std::map<std::string, TensorType>& types, std::map<std::string, Tensor>& inputs) {
  for (const auto& [name, type] : types) {
    if (checked_elements(type, "graph input " + name, fuzz::fuzz_caps().tensor_bytes) > kMaxRunWork) return false;
    inputs.emplace(name, Tensor(type));
  }
  return true;
}

void run_whole(Graph graph) {
  const bool small = run_work(graph) <= kMaxRunWork;
  std::map<std::string, TensorType> types;
  for (const std::string& name : graph.inputs()) types.emplace(name, graph.type_of(name));
  Session session(std::move(graph), {}, SessionOptions(optimize_graph, fuzz::fuzz_caps()));
  session.prepare();
  std::map<std::string, Tensor> inputs;
  if (small && zero_inputs(types, inputs)) session.run(inputs);
}

// A model that runs in stages: the first is imported and prepared for the declared input
// shapes; the whole model runs when those shapes are static and the first stage small.
void run_staged(const std::string& bytes) {
  const std::shared_ptr<const StagedModel> model = load_staged_onnx_bytes(bytes, fuzz::fuzz_caps());
  KnownValues known;
  for (const DeclaredValue& input : model->declared_inputs()) {
    if (!input.dtype || !input.has_shape) return;
    for (int64_t d : input.dims) {
      if (d < 0) return;
    }
    known.typed.emplace(input.name, TensorType{*input.dtype, input.dims});
  }
  Stage first = model->stage(known);
  const bool small = run_work(first.graph) <= kMaxRunWork;
  Session(std::move(first.graph), {}, SessionOptions(optimize_graph, fuzz::fuzz_caps())).prepare();
  std::map<std::string, Tensor> inputs;
  if (!small || !zero_inputs(known.typed, inputs)) return;
  StagedSession session(model, [] { return std::vector<std::unique_ptr<KernelProvider>>(); },
                        SessionOptions(optimize_graph, fuzz::fuzz_caps()));
  session.run(inputs);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    run_whole(import_onnx_bytes(bytes, {}, {}, fuzz::fuzz_caps()));
  } catch (const ValueNeeded&) {
    try {
      run_staged(bytes);
    } catch (const Error& e) {
      fuzz::note_refusal(e);
    }
  } catch (const Error& e) {
    fuzz::note_refusal(e);
  }
  return 0;
}
