#include <algorithm>
#include <vector>

#include "runtime/reference/blocked_gemm.h"
#include "runtime/reference/im2col.h"
#include "runtime/reference/reference_ops.h"
#include "runtime/reference/spatial_geometry.h"

namespace nee {

namespace {

struct ConvShape {
  Window3d window;
  int64_t batch, channels, out_channels, group;
  bool pointwise;  // 1x1 kernel, stride 1, no pads: X's channel planes are already the columns
};

// Per image and group: Y_g (M/g x out) = W_g (M/g x C/g*k) * im2col(X_g) + B.
void conv_f32(const ConvShape& s, const float* x, const float* weights, const float* bias, float* y) {
  const Window3d& w = s.window;
  const int64_t in_size = w.input_size(), out_size = w.output_size();
  const int64_t group_channels = s.channels / s.group, group_out_channels = s.out_channels / s.group;
  const int64_t depth = group_channels * w.kernel_size();
  std::vector<float> col(s.pointwise ? 0 : depth * out_size);
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t g = 0; g < s.group; ++g) {
      const float* x_g = x + (n * s.channels + g * group_channels) * in_size;
      float* y_g = y + (n * s.out_channels + g * group_out_channels) * out_size;
      for (int64_t m = 0; m < group_out_channels; ++m) {
        const float init = bias ? bias[g * group_out_channels + m] : 0.0f;
        std::fill(y_g + m * out_size, y_g + (m + 1) * out_size, init);
      }
      const float* columns = x_g;
      if (!s.pointwise) {
        im2col(x_g, group_channels, w, col.data());
        columns = col.data();
      }
      gemm_accumulate(group_out_channels, out_size, depth, weights + g * group_out_channels * depth, depth, 1,
                      columns, out_size, y_g, out_size);
    }
  }
}

}  // namespace

ReferenceFn make_reference_conv(const Graph& graph, const Node& node) {
  const TensorType& x = graph.type_of(node.inputs[0]);
  const TensorType& y = graph.type_of(node.outputs[0]);
  if (x.dtype != DType::f32) return nullptr;
  return conv_kernel(window_3d(node.attrs, x.shape, y.shape), x.shape[0], x.shape[1], y.shape[1],
                     node.attrs.get_int("group"));
}

ReferenceFn conv_kernel(const Window3d& window, int64_t batch, int64_t channels, int64_t out_channels,
                        int64_t group) {
  ConvShape s;
  s.window = window;
  s.batch = batch;
  s.channels = channels;
  s.out_channels = out_channels;
  s.group = group;
  const Window3d& w = s.window;
  s.pointwise = w.kernel_size() == 1 && w.input == w.output &&
                std::all_of(w.pads_begin.begin(), w.pads_begin.end(), [](int64_t p) { return p == 0; });
  return [s](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const float* bias = in.size() > 2 && in[2] ? in[2]->data_as<float>() : nullptr;
    conv_f32(s, in[0]->data_as<float>(), in[1]->data_as<float>(), bias, out[0]->data_as<float>());
  };
}

}  // namespace nee
