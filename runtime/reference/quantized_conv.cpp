// ConvInteger and QLinearConv: the convolution of 8-bit X and W, summed exactly in
// integers (an f32 sum is exact only to 2^24, which 3x3x256 taps of 8-bit products pass).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/conv_weight_layout.h"
#include "runtime/reference/im2col.h"
#include "runtime/reference/reference_ops.h"
#include "runtime/reference/spatial_geometry.h"

namespace nee {

namespace {

struct QuantizedConvShape {
  Window3d window;
  int64_t batch, channels, out_channels, group;
};

// The element of a scalar or per-channel parameter for output channel m (0 when absent).
template <typename T>
T parameter(const Tensor* t, int64_t m) {
  if (!t) return T{};
  return t->elements() == 1 ? t->data_as<T>()[0] : t->data_as<T>()[m];
}

int64_t integer_at(const Tensor& t, int64_t i) {
  return t.dtype() == DType::u8 ? t.data_as<uint8_t>()[i] : t.data_as<int8_t>()[i];
}

int64_t zero_point(const Tensor* t, int64_t m) {
  if (!t) return 0;
  return integer_at(*t, t->elements() == 1 ? 0 : m);
}

// acc[n, m, position] = sum over m's group's taps of (X - x_zp)(W - w_zp[m]).
std::vector<int64_t> integer_conv(const QuantizedConvShape& s, const Tensor& x, const Tensor* x_zp, const Tensor& w,
                                  const Tensor* w_zp) {
  const Window3d& win = s.window;
  const int64_t in_size = win.input_size(), out_size = win.output_size();
  const int64_t group_channels = s.channels / s.group, group_out_channels = s.out_channels / s.group;
  const int64_t depth = group_channels * win.kernel_size();
  const int64_t x_zero = zero_point(x_zp, 0);
  std::vector<int64_t> acc(static_cast<size_t>(s.batch * s.out_channels * out_size), 0);
  std::vector<int32_t> shifted(static_cast<size_t>(group_channels * in_size)), col(static_cast<size_t>(depth * out_size));
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t g = 0; g < s.group; ++g) {
      const int64_t x_begin = (n * s.channels + g * group_channels) * in_size;
      for (int64_t i = 0; i < group_channels * in_size; ++i) {
        shifted[i] = static_cast<int32_t>(integer_at(x, x_begin + i) - x_zero);
      }
      im2col(shifted.data(), group_channels, win, col.data());
      for (int64_t mg = 0; mg < group_out_channels; ++mg) {
        const int64_t m = g * group_out_channels + mg;
        const int64_t w_zero = zero_point(w_zp, m);
        int64_t* out = acc.data() + (n * s.out_channels + m) * out_size;
        for (int64_t k = 0; k < depth; ++k) {
          const int64_t tap = integer_at(w, m * depth + k) - w_zero;
          if (tap == 0) continue;
          const int32_t* column = col.data() + k * out_size;
          for (int64_t p = 0; p < out_size; ++p) out[p] += tap * column[p];
        }
      }
    }
  }
  return acc;
}

QuantizedConvShape shape_of(const Graph& graph, const Node& node, size_t x_index, size_t w_index) {
  const TensorType& x = graph.type_of(node.inputs[x_index]);
  const TensorType& y = graph.type_of(node.outputs[0]);
  return {window_3d(node.attrs, x.shape, y.shape), x.shape[0], x.shape[1], y.shape[1], node.attrs.get_int("group")};
}

const Tensor* optional_input(const std::vector<const Tensor*>& in, size_t index) {
  return index < in.size() ? in[index] : nullptr;
}

}  // namespace

// Inputs: x, w, x_zero_point, w_zero_point.
ReferenceFn make_reference_conv_integer(const Graph& graph, const Node& node) {
  const QuantizedConvShape s = shape_of(graph, node, 0, 1);
  return [s](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const std::vector<int64_t> acc = integer_conv(s, *in[0], optional_input(in, 2), *in[1], optional_input(in, 3));
    int32_t* y = out[0]->data_as<int32_t>();
    for (size_t i = 0; i < acc.size(); ++i) y[i] = static_cast<int32_t>(acc[i]);
  };
}

// Inputs: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B.
ReferenceFn make_reference_qlinear_conv(const Graph& graph, const Node& node) {
  const QuantizedConvShape s = shape_of(graph, node, 0, 3);
  const bool unsigned_y = graph.type_of(node.outputs[0]).dtype == DType::u8;
  return [s, unsigned_y](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const std::vector<int64_t> acc = integer_conv(s, *in[0], in[2], *in[3], in[5]);
    const Tensor* bias = optional_input(in, 8);
    const float x_scale = parameter<float>(in[1], 0), y_scale = parameter<float>(in[6], 0);
    const int64_t y_zero = zero_point(in[7], 0);
    const int64_t low = unsigned_y ? 0 : -128, high = unsigned_y ? 255 : 127;
    const int64_t out_size = s.window.output_size();
    for (int64_t n = 0; n < s.batch; ++n) {
      for (int64_t m = 0; m < s.out_channels; ++m) {
        // The scale as ONNX's reference forms it, in f32; the sum times it in f64.
        const double scale = static_cast<double>(x_scale * parameter<float>(in[4], m) / y_scale);
        const int64_t b = bias ? bias->data_as<int32_t>()[m] : 0;
        for (int64_t p = 0; p < out_size; ++p) {
          const size_t i = static_cast<size_t>((n * s.out_channels + m) * out_size + p);
          const double scaled = std::nearbyint(static_cast<double>(acc[i] + b) * scale) + static_cast<double>(y_zero);
          const auto q = static_cast<int64_t>(std::min<double>(std::max<double>(scaled, low), high));
          if (unsigned_y) {
            out[0]->data_as<uint8_t>()[i] = static_cast<uint8_t>(q);
          } else {
            out[0]->data_as<int8_t>()[i] = static_cast<int8_t>(q);
          }
        }
      }
    }
  };
}

ReferenceFn integer_conv_kernel(const Window3d& window, int64_t batch, int64_t channels, int64_t out_channels) {
  const QuantizedConvShape s{window, batch, channels, out_channels, 1};
  return [s](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const float scale = std::max(in[3]->data_as<float>()[0], std::numeric_limits<float>::min());
    const uint8_t zero = in[4]->data_as<uint8_t>()[0];
    Tensor q(DType::u8, in[0]->shape()), zero_point(DType::u8, {});
    zero_point.data_as<uint8_t>()[0] = zero;
    const float* x = in[0]->data_as<float>();
    for (int64_t i = 0; i < q.elements(); ++i) {
      const float v = std::nearbyint(x[i] / scale) + static_cast<float>(zero);
      q.data_as<uint8_t>()[i] = static_cast<uint8_t>(std::clamp(v, 0.0f, 255.0f));
    }
    const std::vector<int64_t> oihw = {s.out_channels, s.channels, s.window.kernel[1], s.window.kernel[2]};
    Tensor w(DType::i8, oihw);
    unpack_integer_conv_weights(in[1]->data_as<int8_t>(), oihw, w.data_as<int8_t>());
    const std::vector<int64_t> acc = integer_conv(s, q, &zero_point, w, nullptr);
    const float* scales = in[2]->data_as<float>();
    const int64_t depth = s.channels * s.window.kernel_size(), out_size = s.window.output_size();
    float* y = out[0]->data_as<float>();
    for (int64_t m = 0; m < s.out_channels; ++m) {
      int64_t weight_sum = 0;
      for (int64_t k = 0; k < depth; ++k) weight_sum += w.data_as<int8_t>()[m * depth + k];
      const float* block = scales + m / kConvWeightBlock * 2 * kConvWeightBlock;
      const auto stored_sum = static_cast<int64_t>(block[kConvWeightBlock + m % kConvWeightBlock]);
      const float multiplier = block[m % kConvWeightBlock];
      for (int64_t n = 0; n < s.batch; ++n) {
        const size_t first = static_cast<size_t>((n * s.out_channels + m) * out_size);
        for (int64_t p = 0; p < out_size; ++p) {
          const int64_t sum = acc[first + p] + zero * (weight_sum - stored_sum);
          y[first + p] = static_cast<float>(sum) * multiplier;
        }
      }
    }
  };
}

}  // namespace nee
