// GridSample (opset 16) on 4-D input, as ONNX's reference implementation computes it.
#include <algorithm>
#include <cmath>
#include <vector>

#include "runtime/reference/parallel_ranges.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

enum class SampleMode { bilinear, nearest, bicubic };
enum class Padding { zeros, border, reflection };

struct GridSampleSettings {
  SampleMode mode;
  Padding padding;
  bool align_corners;
};

// The pixel coordinate of normalized position n in [-1, 1] along a dim of `length`:
// -1 and 1 are the centres of the end pixels with align_corners, their outer edges
// without.
template <typename T>
T denormalize(T n, int64_t length, bool align_corners) {
  return align_corners ? (n + 1) / 2 * static_cast<T>(length - 1) : ((n + 1) * static_cast<T>(length) - 1) / 2;
}

// x reflected at `low` and `high` until it lies between them.
template <typename T>
T reflect(T x, T low, T high) {
  const T range = high - low;
  if (range <= 0) return low;
  if (x >= low && x <= high) return x;
  const bool below = x < low;
  const T distance = below ? low - x : x - high;
  const T flips = std::floor(distance / range);
  const T rest = distance - flips * range;
  const bool even = std::fmod(flips, T(2)) == 0;
  return below == even ? low + rest : high - rest;
}

// Where one dim's coordinates may lie before the padding mode applies: the pixel
// centres with align_corners, their outer edges without.
template <typename T>
struct Extent {
  int64_t length;
  T low, high;
  Extent(int64_t n, bool align_corners)
      : length(n),
        low(align_corners ? T(0) : T(-0.5)),
        high(align_corners ? static_cast<T>(n - 1) : static_cast<T>(n) - T(0.5)) {}

  // Border and reflection padding bring an outside coordinate inside; zeros padding
  // keeps it (its taps read zeros). The result is kept within 4 pixels of the input,
  // beyond the widest (bicubic) tap reach of 2, so that it converts to an integer
  // safely (a NaN goes to the low end) without changing which taps read zeros.
  T pad(T x, Padding padding) const {
    if (x < low || x > high) {
      if (padding == Padding::border) x = std::min(std::max(x, T(0)), static_cast<T>(length - 1));
      if (padding == Padding::reflection) x = reflect(x, low, high);
    }
    const T far_low = T(-4), far_high = static_cast<T>(length + 4);
    if (!(x >= far_low)) return far_low;
    return x > far_high ? far_high : x;
  }

  // The input index tap i reads, or -1 for a zero (zeros padding outside the input).
  int64_t index(int64_t i, Padding padding) const {
    if (i >= 0 && i < length) return i;
    if (padding == Padding::zeros) return -1;
    if (padding == Padding::reflection) i = static_cast<int64_t>(reflect(static_cast<T>(i), low, high));
    return std::min<int64_t>(std::max<int64_t>(i, 0), length - 1);
  }
};

// Keys' cubic convolution weights (A = -0.75, as PyTorch and ONNX) of the taps at
// floor(x) - 1 .. floor(x) + 2, for t = x - floor(x).
template <typename T>
void cubic_weights(T t, T* w) {
  const T a = T(-0.75);
  const auto outer = [a](T d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };  // 1 <= d < 2
  const auto inner = [a](T d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };        // 0 <= d < 1
  w[0] = outer(t + 1);
  w[1] = inner(t);
  w[2] = inner(1 - t);
  w[3] = outer(2 - t);
}

// One output value's taps: up to 4 x 4 input positions (-1 reads zero) and weights.
template <typename T>
struct Taps {
  int taps_y = 0, taps_x = 0;
  int64_t row[4], col[4];
  T weight_y[4], weight_x[4];
};

template <typename T>
Taps<T> taps_at(T gx, T gy, const Extent<T>& along_y, const Extent<T>& along_x, const GridSampleSettings& s) {
  T x = denormalize(gx, along_x.length, s.align_corners), y = denormalize(gy, along_y.length, s.align_corners);
  if (s.mode == SampleMode::nearest) {
    x = std::nearbyint(x);  // halves to even, as PyTorch's 2-D sampler
    y = std::nearbyint(y);
  }
  x = along_x.pad(x, s.padding);
  y = along_y.pad(y, s.padding);
  Taps<T> taps;
  if (s.mode == SampleMode::nearest) {
    taps.taps_y = taps.taps_x = 1;
    taps.row[0] = along_y.index(static_cast<int64_t>(y), s.padding);
    taps.col[0] = along_x.index(static_cast<int64_t>(x), s.padding);
    taps.weight_y[0] = taps.weight_x[0] = 1;
    return taps;
  }
  const T x0 = std::floor(x), y0 = std::floor(y);
  const auto first_x = static_cast<int64_t>(x0), first_y = static_cast<int64_t>(y0);
  if (s.mode == SampleMode::bilinear) {
    taps.taps_y = taps.taps_x = 2;
    taps.weight_x[0] = 1 - (x - x0), taps.weight_x[1] = x - x0;
    taps.weight_y[0] = 1 - (y - y0), taps.weight_y[1] = y - y0;
  } else {
    taps.taps_y = taps.taps_x = 4;
    cubic_weights(x - x0, taps.weight_x);
    cubic_weights(y - y0, taps.weight_y);
  }
  const int64_t start = s.mode == SampleMode::bicubic ? -1 : 0;
  for (int i = 0; i < taps.taps_x; ++i) taps.col[i] = along_x.index(first_x + start + i, s.padding);
  for (int i = 0; i < taps.taps_y; ++i) taps.row[i] = along_y.index(first_y + start + i, s.padding);
  return taps;
}

// One output position's taps flattened into (plane element, weight) pairs, 1 for nearest,
// 4 bilinear, 16 bicubic; a tap that reads a zero (zeros padding) weighs 0 at element 0.
template <typename T>
void flatten_taps(const Taps<T>& taps, int64_t width, int64_t* element, T* weight) {
  for (int r = 0; r < taps.taps_y; ++r) {
    for (int c = 0; c < taps.taps_x; ++c, ++element, ++weight) {
      const bool zero = taps.row[r] < 0 || taps.col[c] < 0;
      *element = zero ? 0 : taps.row[r] * width + taps.col[c];
      *weight = zero ? T(0) : taps.weight_y[r] * taps.weight_x[c];
    }
  }
}

// One channel's values at `positions` positions of `kTaps` flattened taps each (a count
// the compiler unrolls).
template <typename T, int kTaps>
void sample_plane(const T* plane, const int64_t* element, const T* weight, int64_t positions, T* to) {
  for (int64_t p = 0; p < positions; ++p, element += kTaps, weight += kTaps) {
    T value = 0;
    for (int t = 0; t < kTaps; ++t) value += weight[t] * plane[element[t]];
    to[p] = value;
  }
}

// The taps of an image's output positions are flattened once for all its channels, which
// the threads split: DeformConv's sampling in a DCN ResNet-18 took 16.2 ms a run tapping
// per value on one thread (built for size), 2.6 so (3.7 with the tap count a variable,
// 5.6 keeping each tap's row and column weights apart; session 47).
template <typename T>
ReferenceFn grid_sample_kernel(const std::vector<int64_t>& x_shape, const std::vector<int64_t>& grid_shape,
                               const GridSampleSettings& s) {
  const int64_t batch = x_shape[0], channels = x_shape[1], height = x_shape[2], width = x_shape[3];
  const int64_t positions = grid_shape[1] * grid_shape[2];
  const int per_position = s.mode == SampleMode::nearest ? 1 : s.mode == SampleMode::bilinear ? 4 : 16;
  return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const Extent<T> along_y(height, s.align_corners), along_x(width, s.align_corners);
    const T* x = in[0]->data_as<T>();
    const T* grid = in[1]->data_as<T>();
    T* y = out[0]->data_as<T>();
    std::vector<int64_t> elements(static_cast<size_t>(positions * per_position));
    std::vector<T> weights(elements.size());
    for (int64_t n = 0; n < batch; ++n) {
      const auto place = [&](int64_t begin, int64_t end) {
        for (int64_t p = begin; p < end; ++p) {
          const T* g = grid + (n * positions + p) * 2;
          flatten_taps(taps_at(g[0], g[1], along_y, along_x, s), width, &elements[p * per_position],
                       &weights[p * per_position]);
        }
      };
      run_in_parallel(positions, workers_for(positions * 64, int64_t{1} << 16, positions), place);
      const auto sample_channels = [&](int64_t begin, int64_t end) {
        for (int64_t c = begin; c < end; ++c) {
          const T* plane = x + (n * channels + c) * height * width;
          T* to = y + (n * channels + c) * positions;
          if (per_position == 4) {
            sample_plane<T, 4>(plane, elements.data(), weights.data(), positions, to);
          } else if (per_position == 1) {
            sample_plane<T, 1>(plane, elements.data(), weights.data(), positions, to);
          } else {
            sample_plane<T, 16>(plane, elements.data(), weights.data(), positions, to);
          }
        }
      };
      run_in_parallel(channels, workers_for(channels * positions * per_position, int64_t{1} << 16, channels),
                      sample_channels);
    }
  };
}

}  // namespace

// The importer stores mode, padding_mode and align_corners with their defaults; X is
// f32 or f64 [N, C, H, W] with H, W > 0, the grid [N, Hout, Wout, 2] of X's dtype.
ReferenceFn make_reference_grid_sample(const Graph& graph, const Node& node) {
  const std::string mode = node.attrs.get_string("mode"), padding = node.attrs.get_string("padding_mode");
  GridSampleSettings s;
  s.mode = mode == "nearest" ? SampleMode::nearest : mode == "bicubic" ? SampleMode::bicubic : SampleMode::bilinear;
  s.padding = padding == "border" ? Padding::border : padding == "reflection" ? Padding::reflection : Padding::zeros;
  s.align_corners = node.attrs.get_int("align_corners") != 0;
  const TensorType& x = graph.type_of(node.inputs[0]);
  const std::vector<int64_t>& grid = graph.type_of(node.inputs[1]).shape;
  if (x.dtype == DType::f64) return grid_sample_kernel<double>(x.shape, grid, s);
  return grid_sample_kernel<float>(x.shape, grid, s);
}

}  // namespace nee
