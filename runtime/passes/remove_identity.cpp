#include "runtime/passes/passes.h"

namespace nee {

// An Identity whose output is internal is dropped and its readers read the input. When
// the output is a graph output, the input's producer is renamed to write it directly,
// provided the input is itself internal; otherwise the Identity stays (it then copies a
// graph input or constant to an output, which needs a node).
void remove_identity(Graph& graph) {
  auto& nodes = graph.nodes();
  for (size_t i = 0; i < nodes.size();) {
    const Node& node = nodes[i];
    if (node.op != "Identity") {
      ++i;
      continue;
    }
    const std::string in = node.inputs[0], out = node.outputs[0];
    if (!graph.is_output(out)) {
      nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(i));
      graph.replace_uses(out, in);
      graph.remove_value(out);
      continue;
    }
    const Node* producer = graph.producer(in);
    if (!producer || graph.is_output(in)) {
      ++i;
      continue;
    }
    nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(i));
    for (Node& other : nodes) {
      for (std::string& o : other.outputs) {
        if (o == in) o = out;
      }
    }
    graph.replace_uses(in, out);
    graph.remove_value(in);
  }
}

}  // namespace nee
