#include <fmt/format.h>

#include "core/error.h"
#include "importer/expansions/expanded_operators.h"
#include "importer/expansions/node_expansion.h"
#include "importer/ops/constant_inputs.h"

namespace nee {

// CenterCropPad (opset 18): each axis named is cropped to the target around its centre
// (a Slice from floor((dim - target) / 2)) or padded with zeros around it (a Pad of
// floor((target - dim) / 2) before, the rest after). The target shape must be a constant.
std::vector<Node> expand_center_crop_pad(Graph& graph, const Node& node, int64_t opset) {
  if (node.inputs.size() != 2 || node.inputs[0].empty() || node.inputs[1].empty()) {
    throw Error("CenterCropPad takes input_data and shape");
  }
  const TensorType& x = graph.type_of(node.inputs[0]);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const std::vector<int64_t> target = *constant_ints(ImportContext{graph, opset}, node, 1, "shape");
  std::vector<int64_t> axes = node.attrs.get_ints("axes", {});
  if (axes.empty()) {
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  }
  if (target.size() != axes.size()) {
    throw Error(fmt::format("shape has {} values for {} axes", target.size(), axes.size()));
  }
  std::vector<int64_t> starts, ends, slice_axes, pads(2 * static_cast<size_t>(rank), 0);
  bool padded = false;
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (axis < 0 || axis >= rank) throw Error(fmt::format("axis {} is outside the input's {} dims", axes[i], rank));
    if (target[i] < 0) throw Error(fmt::format("shape value {} is negative", target[i]));
    const int64_t dim = x.shape[static_cast<size_t>(axis)];
    if (target[i] < dim) {
      starts.push_back((dim - target[i]) / 2);
      ends.push_back(starts.back() + target[i]);
      slice_axes.push_back(axis);
    } else if (target[i] > dim) {
      pads[static_cast<size_t>(axis)] = (target[i] - dim) / 2;
      pads[static_cast<size_t>(axis + rank)] = target[i] - dim - (target[i] - dim) / 2;
      padded = true;
    }
  }
  NodeExpansion build(graph, node.name);
  std::string value = node.inputs[0];
  if (!slice_axes.empty()) {
    value = build.add("Slice", "cropped",
                      {value, build.int64s("starts", starts), build.int64s("ends", ends),
                       build.int64s("axes", slice_axes)});
  }
  if (padded) {
    Attributes constant_mode;
    constant_mode.set("mode", std::string("constant"));
    value = build.add("Pad", "padded", {value, build.int64s("pads", pads)}, constant_mode);
  }
  build.add("Identity", "y", {value}, {}, node.outputs[0]);
  return build.take();
}

}  // namespace nee
