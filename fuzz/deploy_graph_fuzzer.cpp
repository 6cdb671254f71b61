// Fuzz target: a deploy artifact's graph description and weights (nee-tune --deploy
// writes them; whoever can write the folder can rewrite deploy.json's hashes too, so both
// are untrusted) -> deserialize_graph -> Session::prepare on the reference kernels with
// the graph passes off, as a deployed session runs -> one run on zero-filled inputs when
// the graph is small. The input is the graph.json text, a NUL byte, then the weights.
// nee::Error is the documented refusal; anything else escaping, a crash, a sanitizer
// report, a hang or an allocation over fuzz_caps() is a finding.
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "fuzz/fuzz_caps.h"
#include "fuzz/refusal.h"
#include "fuzz/small_run.h"
#include "runtime/deploy/graph_file.h"
#include "runtime/session.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nee;
  const uint8_t* split = static_cast<const uint8_t*>(std::memchr(data, 0, size));
  const size_t text_bytes = split ? static_cast<size_t>(split - data) : size;
  const size_t weights_bytes = split ? size - text_bytes - 1 : 0;
  // The weights as a mapping gives them: page-aligned, so the 64-byte offsets stay aligned.
  std::shared_ptr<uint8_t> weights(static_cast<uint8_t*>(operator new[](weights_bytes + 1, std::align_val_t{4096})),
                                   [](uint8_t* p) { operator delete[](p, std::align_val_t{4096}); });
  if (weights_bytes > 0) std::memcpy(weights.get(), split + 1, weights_bytes);
  const nlohmann::json description =
      nlohmann::json::parse(data, data + text_bytes, nullptr, /*allow_exceptions=*/false);
  if (description.is_discarded()) return 0;
  try {
    Graph graph = deserialize_graph(description, weights, weights_bytes);
    const bool small = fuzz::run_work(graph) <= fuzz::kMaxRunWork;
    std::map<std::string, TensorType> types;
    for (const std::string& name : graph.inputs()) types.emplace(name, graph.type_of(name));
    Session session(std::move(graph), {}, SessionOptions(false, fuzz::fuzz_caps()));
    session.prepare();
    std::map<std::string, Tensor> inputs;
    if (small && fuzz::zero_inputs(types, inputs)) session.run(inputs);
  } catch (const Error& e) {
    fuzz::note_refusal(e);
  }
  return 0;
}
