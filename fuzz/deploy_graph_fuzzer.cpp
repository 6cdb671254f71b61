// Fuzz target: a deploy artifact's graph description and weights -> deserialize_graph (the
// JSON, each value's type and dims, each constant's place in the weights, attributes) ->
// the graph's structure (every name declared, producers before consumers) and the
// memory plan's sizes under fuzz_caps(). The input is the graph.json text, a NUL byte,
// then the weights. nee::Error is the documented refusal; anything else escaping, a
// crash, a sanitizer report, a hang or an allocation over fuzz_caps() is a finding.
//
// It stops before the kernels are bound: they assume the shapes the importer checked, as
// a bundle's code is assumed to be what its builder compiled. A graph.json from outside
// is trusted through deploy.json's signature (nee-run --trust), never by inspection: in
// 85 s (842,872 runs) a first version of this target that bound and ran the reference
// kernels found a GlobalAveragePool of a rank-2 input reading past it (docs/TRUST.md).
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "fuzz/fuzz_caps.h"
#include "fuzz/refusal.h"
#include "runtime/deploy/graph_file.h"
#include "runtime/memory_plan.h"

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
    graph.sort_topologically();
    check_memory_caps(graph, plan_memory(graph, 64), fuzz::fuzz_caps());
  } catch (const Error& e) {
    fuzz::note_refusal(e);
  }
  return 0;
}
