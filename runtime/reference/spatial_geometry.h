#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/sliding_window.h"
#include "runtime/attributes.h"

namespace nee {

// Arithmetic of the operators that slide a window over the spatial dims of an
// N x C x D1 x ... x Dn tensor (Conv, ConvTranspose, MaxPool, AveragePool), shared by
// their import functions (which resolve auto_pad into explicit pads) and their
// reference kernels.

enum class AutoPad { not_set, same_upper, same_lower, valid };

// Parses ONNX's auto_pad string; throws nee::Error on any other value.
AutoPad parse_auto_pad(const std::string& text);

// One entry per spatial dim; pads_begin and pads_end split ONNX's [x1_begin.., x1_end..].
struct WindowGeometry {
  std::vector<int64_t> kernel, strides, dilations, pads_begin, pads_end;

  size_t rank() const { return kernel.size(); }
  // ONNX's `pads` layout: all begin values, then all end values.
  std::vector<int64_t> onnx_pads() const;
};

// Reads kernel_shape (or takes `kernel` from the weights when the attribute is absent;
// it must match when both exist), strides, dilations and pads (defaults 1, 1, 0) and
// checks their lengths and signs. auto_pad is not applied here.
WindowGeometry read_window_attributes(const Attributes& attrs, size_t spatial_rank,
                                      const std::vector<int64_t>& kernel_from_weights = {});

// Pads that SAME_UPPER / SAME_LOWER choose so that the output extent is
// ceil(input / stride): the total is (output - 1) * stride + dilated kernel - input,
// clamped at 0, with the odd element at the end for SAME_UPPER and at the beginning for
// SAME_LOWER. VALID gives no pads; NOTSET keeps `window`'s explicit pads.
void apply_auto_pad(AutoPad mode, const std::vector<int64_t>& input, WindowGeometry& window);

// ConvTranspose's output extent along one axis:
// stride * (input - 1) + output_padding + dilated kernel - pad_begin - pad_end.
int64_t transposed_output_size(int64_t input, int64_t kernel, int64_t stride, int64_t dilation,
                               int64_t pad_begin, int64_t pad_end, int64_t output_padding);

// ConvTranspose's pads for a requested output extent: the total padding (clamped at 0,
// as ONNX Runtime does) split with the extra element at the beginning unless
// `extra_at_end` (ONNX: at the end only for SAME_UPPER).
void transposed_pads_for_output(int64_t input, int64_t kernel, int64_t stride, int64_t dilation,
                                int64_t output_padding, int64_t output, bool extra_at_end,
                                int64_t& pad_begin, int64_t& pad_end);

// A 1-D, 2-D or 3-D window padded with unit leading dims to three spatial dims, so one
// loop nest serves every rank. Entries are in D, H, W order.
struct Window3d {
  std::array<int64_t, 3> input{1, 1, 1}, output{1, 1, 1}, kernel{1, 1, 1}, strides{1, 1, 1},
      dilations{1, 1, 1}, pads_begin{0, 0, 0}, pads_end{0, 0, 0};
  int64_t input_size() const { return input[0] * input[1] * input[2]; }
  int64_t output_size() const { return output[0] * output[1] * output[2]; }
  int64_t kernel_size() const { return kernel[0] * kernel[1] * kernel[2]; }
};

// The window of a node whose attributes the importer normalized (kernel_shape, strides,
// dilations, pads all explicit), for the given N x C x spatial input and output shapes.
// Throws nee::Error for more than three spatial dims.
Window3d window_3d(const Attributes& normalized, const std::vector<int64_t>& input_shape,
                   const std::vector<int64_t>& output_shape);

// The window of a 2-D family workload (conv2d, pool2d): kernel, strides and dilations in
// H, W order and pads as [top, left, bottom, right], over NCHW input and output shapes.
Window3d window_2d(const std::array<int64_t, 2>& kernel, const std::array<int64_t, 2>& strides,
                   const std::array<int64_t, 2>& dilations, const std::array<int64_t, 4>& pads,
                   const std::vector<int64_t>& input_nchw, const std::vector<int64_t>& output_nchw);

// The indices i in [0, count) with 0 <= i * stride + offset < bound form [first, last):
// the positions where a strided window tap lands inside a tensor, with no per-element test.
struct IndexRange {
  int64_t first, last;
};
IndexRange in_bounds_range(int64_t count, int64_t stride, int64_t offset, int64_t bound);

}  // namespace nee
