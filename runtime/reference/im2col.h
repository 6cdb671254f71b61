#pragma once
#include <algorithm>
#include <cstdint>

#include "runtime/reference/spatial_geometry.h"

namespace nee {

// Lays out the patches of one group's `channels` input planes as a
// (channels * kernel_size) x output_size matrix: row (c, kd, kh, kw) holds, for every
// output position, the input element that kernel tap reads (0 in the padding, so a
// quantized caller subtracts the zero point first).
template <typename T>
void im2col(const T* x, int64_t channels, const Window3d& w, T* col) {
  const int64_t out_size = w.output_size();
  T* row = col;
  for (int64_t c = 0; c < channels; ++c) {
    const T* plane = x + c * w.input_size();
    for (int64_t kd = 0; kd < w.kernel[0]; ++kd) {
      for (int64_t kh = 0; kh < w.kernel[1]; ++kh) {
        for (int64_t kw = 0; kw < w.kernel[2]; ++kw, row += out_size) {
          const int64_t w_offset = kw * w.dilations[2] - w.pads_begin[2];
          const IndexRange valid = in_bounds_range(w.output[2], w.strides[2], w_offset, w.input[2]);
          for (int64_t od = 0; od < w.output[0]; ++od) {
            const int64_t id = od * w.strides[0] - w.pads_begin[0] + kd * w.dilations[0];
            for (int64_t oh = 0; oh < w.output[1]; ++oh) {
              const int64_t ih = oh * w.strides[1] - w.pads_begin[1] + kh * w.dilations[1];
              T* dst = row + (od * w.output[1] + oh) * w.output[2];
              if (id < 0 || id >= w.input[0] || ih < 0 || ih >= w.input[1]) {
                std::fill(dst, dst + w.output[2], T{});
                continue;
              }
              const T* src = plane + (id * w.input[1] + ih) * w.input[2];
              std::fill(dst, dst + valid.first, T{});
              for (int64_t ow = valid.first; ow < valid.last; ++ow) dst[ow] = src[ow * w.strides[2] + w_offset];
              std::fill(dst + valid.last, dst + w.output[2], T{});
            }
          }
        }
      }
    }
  }
}

}  // namespace nee
