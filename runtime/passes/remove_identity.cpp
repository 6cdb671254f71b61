#include "runtime/passes/passes.h"

#include <algorithm>

namespace nee {

namespace {

// Identity, and a Pad that pads nothing (PyTorch exports DenseNet's transition pooling
// with one: 3 copies of its feature maps, 4.3 of its 41.7 ms per run on the reference
// kernel, `nee-run --profile` of session 26); with `same_type_casts`, a Cast or CastLike
// to the type its input has (Hugging Face's models cast f32 activations to float32
// around every norm and softmax); with `whole_slices`, a Slice that keeps every element in
// order (GhostNet's
// ghost modules cut their concatenation to its own channel count: 24 copies, 1.3 of its
// 7.3 ms per run, `nee-run --profile`).
bool copies_its_input(const Graph& graph, const Node& node, bool same_type_casts, bool whole_slices) {
  if (node.op == "Identity") return true;
  if (whole_slices && node.op == "Slice" && node.attrs.has("starts") && node.attrs.has("steps") &&
      !node.inputs.empty() && graph.type_of(node.inputs[0]) == graph.type_of(node.outputs[0])) {
    const std::vector<int64_t> starts = node.attrs.get_ints("starts"), steps = node.attrs.get_ints("steps");
    return std::all_of(starts.begin(), starts.end(), [](int64_t v) { return v == 0; }) &&
           std::all_of(steps.begin(), steps.end(), [](int64_t v) { return v == 1; });
  }
  if (same_type_casts && (node.op == "Cast" || node.op == "CastLike") && !node.inputs.empty() &&
      node.outputs.size() == 1 && graph.type_of(node.inputs[0]) == graph.type_of(node.outputs[0])) {
    return true;
  }
  if (node.op != "Pad" || !node.attrs.has("pads")) return false;
  const std::vector<int64_t> pads = node.attrs.get_ints("pads");
  return std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; });
}

}  // namespace

// A node that copies its input (copies_its_input) whose output is internal is dropped and
// its readers read the input. When the output is a graph output, the input's producer is
// renamed to write it directly, provided the input is itself internal; otherwise the node
// stays (it then copies a graph input or constant to an output, which needs a node).
void remove_identity(Graph& graph, bool same_type_casts, bool whole_slices) {
  auto& nodes = graph.nodes();
  for (size_t i = 0; i < nodes.size();) {
    const Node& node = nodes[i];
    if (!copies_its_input(graph, node, same_type_casts, whole_slices)) {
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
