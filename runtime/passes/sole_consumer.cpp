#include "runtime/passes/sole_consumer.h"

namespace nee {

std::optional<size_t> sole_consumer(const Graph& graph, const std::string& value) {
  if (graph.is_output(value)) return std::nullopt;
  std::optional<size_t> found;
  int uses = 0;
  const auto& nodes = graph.nodes();
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const std::string& in : nodes[i].inputs) {
      if (in == value) {
        ++uses;
        found = i;
      }
    }
  }
  return uses == 1 ? found : std::nullopt;
}

}  // namespace nee
