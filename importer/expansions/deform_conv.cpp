#include <fmt/format.h>

#include "core/error.h"
#include "core/sliding_window.h"
#include "importer/expansions/expanded_operators.h"
#include "importer/expansions/node_expansion.h"
#include "runtime/reference/spatial_geometry.h"

namespace nee {

namespace {

// The normalized GridSample coordinate (align_corners 0) of pixel coordinate p along a
// dim of n pixels: -1 and 1 are the outer edges, so any n (1 included) maps exactly.
float normalized(int64_t p, int64_t n) {
  return (2.0f * static_cast<float>(p) + 1.0f) / static_cast<float>(n) - 1.0f;
}

}  // namespace

// DeformConv (opsets 19 and 22) over 2-D images: every tap k of every output position
// samples X bilinearly (zeros outside) at the tap's position plus its offset, times its
// mask; the samples of all taps, [N, C x kH x kW, oH, oW], then meet the weights in a 1x1
// Conv of the same groups, which runs on the bundle's conv family. The sampling is one
// GridSample per offset group: its grid is the offsets, scaled to normalized coordinates,
// plus a constant grid of the taps' undeformed positions.
std::vector<Node> expand_deform_conv(Graph& graph, const Node& node, int64_t opset) {
  if (node.inputs.size() < 3 || node.inputs[0].empty() || node.inputs[1].empty() || node.inputs[2].empty()) {
    throw Error("DeformConv takes X, W, offset and optional B and mask");
  }
  const TensorType& x = graph.type_of(node.inputs[0]);
  const TensorType& w = graph.type_of(node.inputs[1]);
  const TensorType& offset = graph.type_of(node.inputs[2]);
  if (x.shape.size() != 4 || !is_floating(x.dtype)) {
    throw Error(fmt::format("X is {}; NEE reads DeformConv over 2-D images, floats [N, C, H, W]", x.to_string()));
  }
  const int64_t batch = x.shape[0], channels = x.shape[1], height = x.shape[2], width = x.shape[3];
  const int64_t group = node.attrs.get_int("group", 1);
  const int64_t offset_group = node.attrs.get_int("offset_group", 1);
  if (group < 1 || offset_group < 1 || channels % offset_group != 0) {
    throw Error(fmt::format("group {} and offset_group {} must be positive, and X {}'s channels a multiple of "
                            "offset_group", group, offset_group, x.to_string()));
  }
  if (w.shape.size() != 4 || w.dtype != x.dtype || w.shape[1] * group != channels || w.shape[0] % group != 0) {
    throw Error(fmt::format("W is {}; it must be [M, {}, kH, kW] of X's dtype with M a multiple of group {}",
                            w.to_string(), channels / group, group));
  }
  const WindowGeometry window = read_window_attributes(node.attrs, 2, {w.shape[2], w.shape[3]});
  const int64_t taps = window.kernel[0] * window.kernel[1];
  std::vector<int64_t> out_size(2);
  for (size_t d = 0; d < 2; ++d) {
    out_size[d] = sliding_output_size(x.shape[d + 2], window.kernel[d], window.strides[d], window.dilations[d],
                                      window.pads_begin[d], window.pads_end[d], false);
    if (out_size[d] < 1) throw Error(fmt::format("the window leaves no output along spatial dim {} of X {}", d,
                                                 x.to_string()));
  }
  const int64_t out_h = out_size[0], out_w = out_size[1];
  if (offset.shape != std::vector<int64_t>{batch, offset_group * taps * 2, out_h, out_w} || offset.dtype != x.dtype) {
    throw Error(fmt::format("offset is {}; it must be [{}, {}, {}, {}] of X's dtype", offset.to_string(), batch,
                            offset_group * taps * 2, out_h, out_w));
  }
  const std::string& mask = optional_name(node.inputs, 4);
  if (!mask.empty()) {
    const TensorType& m = graph.type_of(mask);
    if (m.shape != std::vector<int64_t>{batch, offset_group * taps, out_h, out_w} || m.dtype != x.dtype) {
      throw Error(fmt::format("mask is {}; it must be [{}, {}, {}, {}] of X's dtype", m.to_string(), batch,
                              offset_group * taps, out_h, out_w));
    }
  }

  // Undeformed tap positions, normalized, as (x, y) pairs [taps, oH, oW, 2], and the
  // scale from pixels to normalized units of each.
  std::vector<float> base;
  base.reserve(static_cast<size_t>(taps * out_h * out_w * 2));
  for (int64_t a = 0; a < window.kernel[0]; ++a) {
    for (int64_t b = 0; b < window.kernel[1]; ++b) {
      for (int64_t i = 0; i < out_h; ++i) {
        for (int64_t j = 0; j < out_w; ++j) {
          base.push_back(normalized(j * window.strides[1] - window.pads_begin[1] + b * window.dilations[1], width));
          base.push_back(normalized(i * window.strides[0] - window.pads_begin[0] + a * window.dilations[0], height));
        }
      }
    }
  }
  NodeExpansion build(graph, node.name);
  std::string positions = build.float_tensor("positions", {taps, out_h, out_w, 2}, base);
  std::string scale =
      build.float_tensor("scale", {2}, {2.0f / static_cast<float>(width), 2.0f / static_cast<float>(height)});
  if (x.dtype != DType::f32) {
    positions = build.cast("positions_typed", positions, x.dtype);
    scale = build.cast("scale_typed", scale, x.dtype);
  }
  // offset [N, G, taps, (y, x), oH, oW] -> (x, y) -> [N x G, taps x oH, oW, 2].
  const std::string pairs = build.reshape("pairs", node.inputs[2], {batch, offset_group, taps, 2, out_h, out_w});
  Attributes pair_axis;
  pair_axis.set("axis", int64_t{3});
  const std::string swapped = build.add("Gather", "x_first", {pairs, build.int64s("x_then_y", {1, 0})}, pair_axis);
  const std::string last = build.transpose("pairs_last", swapped, {0, 1, 2, 4, 5, 3});
  const std::string moved = build.add("Mul", "moved", {last, scale});
  const std::string placed = build.add("Add", "placed", {moved, positions});
  const std::string grid = build.reshape("grid", placed, {batch * offset_group, taps * out_h, out_w, 2});

  Attributes sampling;
  sampling.set("mode", std::string(opset >= 20 ? "linear" : "bilinear"));
  sampling.set("padding_mode", std::string("zeros"));
  sampling.set("align_corners", int64_t{0});
  const std::string images =
      build.reshape("images", node.inputs[0], {batch * offset_group, channels / offset_group, height, width});
  std::string samples = build.add("GridSample", "samples", {images, grid}, sampling);
  if (!mask.empty()) {
    const std::string mask_rows = build.reshape("mask_rows", mask, {batch * offset_group, 1, taps * out_h, out_w});
    samples = build.add("Mul", "masked", {samples, mask_rows});
  }
  // [N x G, C / G, taps x oH, oW] is [N, C x taps, oH, oW] in memory: channel-major, then
  // tap, as W's [M, C / group, kH, kW] flattens.
  const std::string columns = build.reshape("columns", samples, {batch, channels * taps, out_h, out_w});
  const std::string weights = build.reshape("weights", node.inputs[1], {w.shape[0], w.shape[1] * taps, 1, 1});
  std::vector<std::string> conv_inputs = {columns, weights};
  const std::string& bias = optional_name(node.inputs, 3);
  if (!bias.empty()) conv_inputs.push_back(bias);
  Attributes conv;
  conv.set("group", group);
  conv.set("kernel_shape", std::vector<int64_t>{1, 1});
  build.add("Conv", "y", conv_inputs, conv, node.outputs[0]);
  return build.take();
}

}  // namespace nee
