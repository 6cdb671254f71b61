#include <algorithm>
#include <vector>

#include "runtime/reference/blocked_gemm.h"
#include "runtime/reference/reference_ops.h"
#include "runtime/reference/spatial_geometry.h"

namespace nee {

namespace {

struct ConvTransposeShape {
  Window3d window;  // input = X's spatial extents, output = Y's
  int64_t batch, channels, out_channels, group;
};

// Adds each row (m, kd, kh, kw) of `col` (one value per input position) into output
// plane m at the position that kernel tap writes; taps that land in the pads or beyond
// the output are dropped.
void col2im_add(const float* col, int64_t out_channels, const Window3d& w, float* y) {
  const int64_t in_size = w.input_size();
  const float* row = col;
  for (int64_t m = 0; m < out_channels; ++m) {
    float* plane = y + m * w.output_size();
    for (int64_t kd = 0; kd < w.kernel[0]; ++kd) {
      for (int64_t kh = 0; kh < w.kernel[1]; ++kh) {
        for (int64_t kw = 0; kw < w.kernel[2]; ++kw, row += in_size) {
          const int64_t w_offset = kw * w.dilations[2] - w.pads_begin[2];
          const IndexRange valid = in_bounds_range(w.input[2], w.strides[2], w_offset, w.output[2]);
          for (int64_t id = 0; id < w.input[0]; ++id) {
            const int64_t od = id * w.strides[0] - w.pads_begin[0] + kd * w.dilations[0];
            if (od < 0 || od >= w.output[0]) continue;
            for (int64_t ih = 0; ih < w.input[1]; ++ih) {
              const int64_t oh = ih * w.strides[1] - w.pads_begin[1] + kh * w.dilations[1];
              if (oh < 0 || oh >= w.output[1]) continue;
              const float* src = row + (id * w.input[1] + ih) * w.input[2];
              float* dst = plane + (od * w.output[1] + oh) * w.output[2];
              for (int64_t iw = valid.first; iw < valid.last; ++iw) dst[iw * w.strides[2] + w_offset] += src[iw];
            }
          }
        }
      }
    }
  }
}

// Per image and group: col (M/g*k x in) = W_g^T * X_g, where W_g is C/g x (M/g*k), then
// col2im scatters col into Y_g, which starts at B.
void conv_transpose_f32(const ConvTransposeShape& s, const float* x, const float* weights, const float* bias,
                        float* y) {
  const Window3d& w = s.window;
  const int64_t in_size = w.input_size(), out_size = w.output_size();
  const int64_t group_channels = s.channels / s.group, group_out_channels = s.out_channels / s.group;
  const int64_t rows = group_out_channels * w.kernel_size();
  std::vector<float> col(rows * in_size);
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t g = 0; g < s.group; ++g) {
      const float* x_g = x + (n * s.channels + g * group_channels) * in_size;
      float* y_g = y + (n * s.out_channels + g * group_out_channels) * out_size;
      for (int64_t m = 0; m < group_out_channels; ++m) {
        const float init = bias ? bias[g * group_out_channels + m] : 0.0f;
        std::fill(y_g + m * out_size, y_g + (m + 1) * out_size, init);
      }
      std::fill(col.begin(), col.end(), 0.0f);
      gemm_accumulate(rows, in_size, group_channels, weights + g * group_channels * rows, 1, rows, x_g, in_size,
                      col.data(), in_size);
      col2im_add(col.data(), group_out_channels, w, y_g);
    }
  }
}

}  // namespace

ReferenceFn make_reference_conv_transpose(const Graph& graph, const Node& node) {
  const TensorType& x = graph.type_of(node.inputs[0]);
  const TensorType& y = graph.type_of(node.outputs[0]);
  if (x.dtype != DType::f32) return nullptr;
  ConvTransposeShape s;
  s.window = window_3d(node.attrs, x.shape, y.shape);
  s.batch = x.shape[0];
  s.channels = x.shape[1];
  s.out_channels = y.shape[1];
  s.group = node.attrs.get_int("group");
  return [s](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const float* bias = in.size() > 2 && in[2] ? in[2]->data_as<float>() : nullptr;
    conv_transpose_f32(s, in[0]->data_as<float>(), in[1]->data_as<float>(), bias, out[0]->data_as<float>());
  };
}

}  // namespace nee
