#include <cstdint>
#include <vector>

#include "core/sliding_window.h"
#include "runtime/passes/constant_operands.h"
#include "runtime/passes/passes.h"

namespace nee {

namespace {

// A Pad of zeros (constant mode, fill 0) of an NCHW f32 tensor's two spatial dims,
// nothing cropped: its pads as a pool's [top, left, bottom, right]; empty otherwise.
std::vector<int64_t> spatial_zero_pads(const Graph& graph, const Node& pad) {
  if (pad.op != "Pad" || pad.attrs.get_string("mode", "constant") != "constant") return {};
  const TensorType& x = graph.type_of(pad.inputs[0]);
  if (x.dtype != DType::f32 || x.shape.size() != 4) return {};
  if (pad.inputs.size() > 2 && !pad.inputs[2].empty()) {
    if (scalar_f32_constant(graph, pad.inputs[2]) != 0.0f) return {};
  } else if (pad.attrs.get_float("value", 0.0f) != 0.0f) {
    return {};
  }
  const std::vector<int64_t> p = pad.attrs.get_ints("pads");
  if (p.size() != 8 || p[0] != 0 || p[1] != 0 || p[4] != 0 || p[5] != 0) return {};
  for (int64_t v : p) {
    if (v < 0) return {};
  }
  return {p[2], p[3], p[6], p[7]};
}

}  // namespace

void fold_pad_into_pool(Graph& graph) {
  bool folded = false;
  for (Node& pool : graph.nodes()) {
    if (pool.op != "AveragePool" || pool.inputs.size() != 1 || pool.attrs.get_int("ceil_mode", 0) != 0) continue;
    const Node* pad = graph.producer(pool.inputs[0]);
    if (!pad) continue;
    const std::vector<int64_t> extra = spatial_zero_pads(graph, *pad);
    std::vector<int64_t> pads = pool.attrs.get_ints("pads");
    if (extra.empty() || pads.size() != 4) continue;
    // The explicit zeros count in every window's divisor: so must the pool's own padding.
    const bool counted = pool.attrs.get_int("count_include_pad", 0) != 0;
    if (!counted && (pads[0] || pads[1] || pads[2] || pads[3])) continue;
    const std::vector<int64_t> kernel = pool.attrs.get_ints("kernel_shape");
    const std::vector<int64_t> dilations = pool.attrs.get_ints("dilations", {1, 1});
    bool fits = kernel.size() == 2 && dilations.size() == 2;
    for (size_t i = 0; i < 4 && fits; ++i) {
      pads[i] += extra[i];
      // A window of padding only has no ONNX meaning (the importer refuses such pads).
      fits = pads[i] < dilated_extent(kernel[i % 2], dilations[i % 2]);
    }
    if (!fits) continue;
    pool.inputs[0] = pad->inputs[0];
    pool.attrs.set("pads", pads);
    pool.attrs.set("count_include_pad", int64_t{1});
    folded = true;
  }
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
