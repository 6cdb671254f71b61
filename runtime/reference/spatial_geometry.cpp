#include "runtime/reference/spatial_geometry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/error.h"

namespace nee {

AutoPad parse_auto_pad(const std::string& text) {
  if (text == "NOTSET") return AutoPad::not_set;
  if (text == "SAME_UPPER") return AutoPad::same_upper;
  if (text == "SAME_LOWER") return AutoPad::same_lower;
  if (text == "VALID") return AutoPad::valid;
  throw Error(fmt::format("auto_pad '{}' is none of NOTSET, SAME_UPPER, SAME_LOWER, VALID", text));
}

std::vector<int64_t> WindowGeometry::onnx_pads() const {
  std::vector<int64_t> pads = pads_begin;
  pads.insert(pads.end(), pads_end.begin(), pads_end.end());
  return pads;
}

namespace {

std::vector<int64_t> positive_ints(const Attributes& attrs, const std::string& name, size_t rank) {
  const std::vector<int64_t> values = attrs.get_ints(name, std::vector<int64_t>(rank, 1));
  if (values.size() != rank) {
    throw Error(fmt::format("{} [{}] needs {} values, one per spatial dim", name, fmt::join(values, ","),
                            rank));
  }
  for (int64_t v : values) {
    if (v < 1) throw Error(fmt::format("{} [{}] must be positive", name, fmt::join(values, ",")));
  }
  return values;
}

}  // namespace

WindowGeometry read_window_attributes(const Attributes& attrs, size_t spatial_rank,
                                      const std::vector<int64_t>& kernel_from_weights) {
  WindowGeometry window;
  if (attrs.has("kernel_shape")) {
    window.kernel = positive_ints(attrs, "kernel_shape", spatial_rank);
    if (!kernel_from_weights.empty() && window.kernel != kernel_from_weights) {
      throw Error(fmt::format("kernel_shape [{}] differs from the weights' spatial dims [{}]",
                              fmt::join(window.kernel, ","), fmt::join(kernel_from_weights, ",")));
    }
  } else if (!kernel_from_weights.empty()) {
    window.kernel = kernel_from_weights;
  } else {
    throw Error("missing attribute 'kernel_shape'");
  }
  window.strides = positive_ints(attrs, "strides", spatial_rank);
  window.dilations = positive_ints(attrs, "dilations", spatial_rank);
  const std::vector<int64_t> pads = attrs.get_ints("pads", std::vector<int64_t>(2 * spatial_rank, 0));
  if (pads.size() != 2 * spatial_rank) {
    throw Error(fmt::format("pads [{}] needs {} values (begin and end per spatial dim)",
                            fmt::join(pads, ","), 2 * spatial_rank));
  }
  for (int64_t p : pads) {
    if (p < 0) throw Error(fmt::format("pads [{}] must not be negative", fmt::join(pads, ",")));
  }
  window.pads_begin.assign(pads.begin(), pads.begin() + spatial_rank);
  window.pads_end.assign(pads.begin() + spatial_rank, pads.end());
  return window;
}

void apply_auto_pad(AutoPad mode, const std::vector<int64_t>& input, WindowGeometry& window) {
  if (mode == AutoPad::not_set) return;
  for (size_t d = 0; d < window.rank(); ++d) {
    int64_t total = 0;
    if (mode != AutoPad::valid) {
      const int64_t output = (input[d] + window.strides[d] - 1) / window.strides[d];
      total = std::max<int64_t>(0, (output - 1) * window.strides[d] +
                                       dilated_extent(window.kernel[d], window.dilations[d]) - input[d]);
    }
    const int64_t smaller_half = total / 2;
    window.pads_begin[d] = mode == AutoPad::same_lower ? total - smaller_half : smaller_half;
    window.pads_end[d] = total - window.pads_begin[d];
  }
}

int64_t transposed_output_size(int64_t input, int64_t kernel, int64_t stride, int64_t dilation,
                               int64_t pad_begin, int64_t pad_end, int64_t output_padding) {
  return stride * (input - 1) + output_padding + dilated_extent(kernel, dilation) - pad_begin - pad_end;
}

void transposed_pads_for_output(int64_t input, int64_t kernel, int64_t stride, int64_t dilation,
                                int64_t output_padding, int64_t output, bool extra_at_end,
                                int64_t& pad_begin, int64_t& pad_end) {
  const int64_t total = std::max<int64_t>(
      0, transposed_output_size(input, kernel, stride, dilation, 0, 0, output_padding) - output);
  pad_begin = extra_at_end ? total / 2 : total - total / 2;
  pad_end = total - pad_begin;
}

Window3d window_3d(const Attributes& normalized, const std::vector<int64_t>& input_shape,
                   const std::vector<int64_t>& output_shape) {
  const size_t rank = input_shape.size() - 2;
  if (rank > 3) throw Error(fmt::format("{} spatial dims; NEE supports 1 to 3", rank));
  const std::vector<int64_t>& kernel = normalized.get_ints("kernel_shape");
  const std::vector<int64_t>& strides = normalized.get_ints("strides");
  const std::vector<int64_t>& dilations = normalized.get_ints("dilations");
  const std::vector<int64_t>& pads = normalized.get_ints("pads");
  Window3d w;
  const size_t offset = 3 - rank;
  for (size_t d = 0; d < rank; ++d) {
    w.input[offset + d] = input_shape[2 + d];
    w.output[offset + d] = output_shape[2 + d];
    w.kernel[offset + d] = kernel[d];
    w.strides[offset + d] = strides[d];
    w.dilations[offset + d] = dilations[d];
    w.pads_begin[offset + d] = pads[d];
    w.pads_end[offset + d] = pads[rank + d];
  }
  return w;
}

Window3d window_2d(const std::array<int64_t, 2>& kernel, const std::array<int64_t, 2>& strides,
                   const std::array<int64_t, 2>& dilations, const std::array<int64_t, 4>& pads,
                   const std::vector<int64_t>& input_nchw, const std::vector<int64_t>& output_nchw) {
  Window3d w;
  for (size_t d = 0; d < 2; ++d) {
    w.input[1 + d] = input_nchw[2 + d];
    w.output[1 + d] = output_nchw[2 + d];
    w.kernel[1 + d] = kernel[d];
    w.strides[1 + d] = strides[d];
    w.dilations[1 + d] = dilations[d];
    w.pads_begin[1 + d] = pads[d];
    w.pads_end[1 + d] = pads[2 + d];
  }
  return w;
}

IndexRange in_bounds_range(int64_t count, int64_t stride, int64_t offset, int64_t bound) {
  // i * stride + offset >= 0  <=>  i >= ceil(-offset / stride)
  const int64_t first = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  // i * stride + offset < bound  <=>  i < ceil((bound - offset) / stride)
  const int64_t last = bound - offset <= 0 ? 0 : (bound - offset + stride - 1) / stride;
  const int64_t clamped_first = std::min(first, count);
  return IndexRange{clamped_first, std::clamp(last, clamped_first, count)};
}

}  // namespace nee
