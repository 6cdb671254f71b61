#include <cstdint>
#include <vector>

#include "core/sliding_window.h"
#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

namespace {

// A Pad of zeros (constant mode, fill 0) of an f32 tensor [N, C, spatial...]'s spatial
// dims, nothing cropped: its pads as a window's [begins..., ends...] over the spatial
// dims; empty otherwise.
std::vector<int64_t> spatial_zero_pads(const Graph& graph, const Node& pad) {
  if (pad.op != "Pad" || pad.attrs.get_string("mode", "constant") != "constant") return {};
  const TensorType& x = graph.type_of(pad.inputs[0]);
  const size_t rank = x.shape.size();
  if (x.dtype != DType::f32 || rank < 3) return {};
  if (pad.inputs.size() > 2 && !pad.inputs[2].empty()) {
    if (scalar_f32_constant(graph, pad.inputs[2]) != 0.0f) return {};
  } else if (pad.attrs.get_float("value", 0.0f) != 0.0f) {
    return {};
  }
  const std::vector<int64_t> p = pad.attrs.get_ints("pads");
  if (p.size() != 2 * rank || p[0] != 0 || p[1] != 0 || p[rank] != 0 || p[rank + 1] != 0) return {};
  for (int64_t v : p) {
    if (v < 0) return {};
  }
  std::vector<int64_t> spatial(p.begin() + 2, p.begin() + static_cast<std::ptrdiff_t>(rank));
  spatial.insert(spatial.end(), p.begin() + static_cast<std::ptrdiff_t>(rank) + 2, p.end());
  return spatial;
}

// `pads` grown by `extra` (both [begins..., ends...]), where no window would then lie in
// the padding alone (which ONNX gives no meaning for pools); false, `pads` unchanged, else.
bool grow_pads(std::vector<int64_t>& pads, const std::vector<int64_t>& extra, const std::vector<int64_t>& kernel,
               const std::vector<int64_t>& dilations) {
  const size_t dims = kernel.size();
  if (pads.size() != 2 * dims || extra.size() != 2 * dims || dilations.size() != dims) return false;
  std::vector<int64_t> grown = pads;
  for (size_t i = 0; i < grown.size(); ++i) {
    grown[i] += extra[i];
    if (grown[i] >= dilated_extent(kernel[i % dims], dilations[i % dims])) return false;
  }
  pads = grown;
  return true;
}

// The Pad writing `value`, when it pads zeros around spatial dims only: its input and its
// spatial pads.
const Node* zero_pad_producer(const Graph& graph, const std::string& value, std::vector<int64_t>& extra) {
  const Node* pad = graph.producer(value);
  if (!pad) return nullptr;
  extra = spatial_zero_pads(graph, *pad);
  return extra.empty() ? nullptr : pad;
}

void fold_into_convs(Graph& graph, bool& folded) {
  for (Node& conv : graph.nodes()) {
    if (conv.op != "Conv") continue;
    std::vector<int64_t> extra;
    const Node* pad = zero_pad_producer(graph, conv.inputs[0], extra);
    if (!pad) continue;
    const std::vector<int64_t> kernel = conv.attrs.get_ints("kernel_shape");
    std::vector<int64_t> pads = conv.attrs.get_ints("pads");
    if (!grow_pads(pads, extra, kernel, conv.attrs.get_ints("dilations", std::vector<int64_t>(kernel.size(), 1)))) {
      continue;
    }
    conv.inputs[0] = pad->inputs[0];
    conv.attrs.set("pads", pads);
    folded = true;
  }
}

void fold_into_pools(Graph& graph, bool& folded) {
  for (Node& pool : graph.nodes()) {
    if (pool.op != "AveragePool" || pool.inputs.size() != 1 || pool.attrs.get_int("ceil_mode", 0) != 0) continue;
    std::vector<int64_t> extra;
    const Node* pad = zero_pad_producer(graph, pool.inputs[0], extra);
    std::vector<int64_t> pads = pool.attrs.get_ints("pads");
    if (!pad || pads.size() != 4) continue;
    // The explicit zeros count in every window's divisor: so must the pool's own padding.
    const bool counted = pool.attrs.get_int("count_include_pad", 0) != 0;
    if (!counted && (pads[0] || pads[1] || pads[2] || pads[3])) continue;
    const std::vector<int64_t> kernel = pool.attrs.get_ints("kernel_shape");
    if (!grow_pads(pads, extra, kernel, pool.attrs.get_ints("dilations", {1, 1}))) continue;
    pool.inputs[0] = pad->inputs[0];
    pool.attrs.set("pads", pads);
    pool.attrs.set("count_include_pad", int64_t{1});
    folded = true;
  }
}

}  // namespace

void fold_zero_pads(Graph& graph, bool into_convs) {
  bool folded = false;
  fold_into_pools(graph, folded);
  if (into_convs) fold_into_convs(graph, folded);
  if (!folded) return;
  auto& nodes = graph.nodes();
  for (size_t i = 0; i < nodes.size();) {
    const std::string out = nodes[i].outputs.empty() ? "" : nodes[i].outputs[0];
    if (nodes[i].op == "Pad" && graph.consumers(out).empty() && !graph.is_output(out)) {
      nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(i));
      graph.remove_value(out);
    } else {
      ++i;
    }
  }
}

}  // namespace nee
