// GridSample (opset 16; 3-D from 20) on 4-D or 5-D input, as ONNX's reference
// implementation computes it.
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

// One axis's taps of a normalized coordinate g: up to 4 indices (-1 reads zero) and their
// weights; returns how many (1 nearest, 2 linear, 4 cubic).
template <typename T>
int axis_taps(T g, const Extent<T>& along, const GridSampleSettings& s, int64_t* index, T* weight) {
  T p = denormalize(g, along.length, s.align_corners);
  if (s.mode == SampleMode::nearest) p = std::nearbyint(p);  // halves to even, as PyTorch's sampler
  p = along.pad(p, s.padding);
  if (s.mode == SampleMode::nearest) {
    index[0] = along.index(static_cast<int64_t>(p), s.padding);
    weight[0] = 1;
    return 1;
  }
  const T p0 = std::floor(p);
  int count = 2;
  if (s.mode == SampleMode::bilinear) {
    weight[0] = 1 - (p - p0), weight[1] = p - p0;
  } else {
    count = 4;
    cubic_weights(p - p0, weight);
  }
  const int64_t first = static_cast<int64_t>(p0) - (s.mode == SampleMode::bicubic ? 1 : 0);
  for (int i = 0; i < count; ++i) index[i] = along.index(first + i, s.padding);
  return count;
}

// One output position's taps, the product of its axes' (outermost first), flattened into
// (element, weight) pairs: 1 for nearest, 2^rank linear, 16 bicubic; a tap that reads a
// zero (zeros padding) weighs 0 at element 0. `g` holds the coordinates x first, as the
// grid does; `along` the extents outermost first.
template <typename T>
void flatten_taps(const T* g, const std::vector<Extent<T>>& along, const GridSampleSettings& s, int64_t* element,
                  T* weight) {
  const size_t rank = along.size();
  int64_t index[3][4];
  T weights[3][4];
  int count[3];
  for (size_t d = 0; d < rank; ++d) count[d] = axis_taps(g[rank - 1 - d], along[d], s, index[d], weights[d]);
  int at[3] = {0, 0, 0};
  for (bool more = true; more; ++element, ++weight) {
    int64_t flat = 0;
    T w = 1;
    bool zero = false;
    for (size_t d = 0; d < rank; ++d) {
      zero = zero || index[d][at[d]] < 0;
      flat = flat * along[d].length + index[d][at[d]];
      w = d == 0 ? weights[d][at[d]] : w * weights[d][at[d]];
    }
    *element = zero ? 0 : flat;
    *weight = zero ? T(0) : w;
    more = false;
    for (size_t d = rank; d-- > 0;) {
      if (++at[d] < count[d]) {
        more = true;
        break;
      }
      at[d] = 0;
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
  const size_t rank = x_shape.size() - 2;  // 2 or 3 spatial dims
  const int64_t batch = x_shape[0], channels = x_shape[1];
  int64_t plane = 1, positions = 1;
  for (size_t d = 0; d < rank; ++d) {
    plane *= x_shape[d + 2];
    positions *= grid_shape[d + 1];
  }
  const int per_position = s.mode == SampleMode::nearest ? 1 : s.mode == SampleMode::bicubic ? 16 : 1 << rank;
  return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    std::vector<Extent<T>> along;
    for (size_t d = 0; d < rank; ++d) along.emplace_back(x_shape[d + 2], s.align_corners);
    const T* x = in[0]->data_as<T>();
    const T* grid = in[1]->data_as<T>();
    T* y = out[0]->data_as<T>();
    std::vector<int64_t> elements(static_cast<size_t>(positions * per_position));
    std::vector<T> weights(elements.size());
    for (int64_t n = 0; n < batch; ++n) {
      const auto place = [&](int64_t begin, int64_t end) {
        for (int64_t p = begin; p < end; ++p) {
          flatten_taps(grid + (n * positions + p) * static_cast<int64_t>(rank), along, s, &elements[p * per_position],
                       &weights[p * per_position]);
        }
      };
      run_in_parallel(positions, workers_for(positions * 64, int64_t{1} << 16, positions), place);
      const auto sample_channels = [&](int64_t begin, int64_t end) {
        for (int64_t c = begin; c < end; ++c) {
          const T* from = x + (n * channels + c) * plane;
          T* to = y + (n * channels + c) * positions;
          if (per_position == 4) {
            sample_plane<T, 4>(from, elements.data(), weights.data(), positions, to);
          } else if (per_position == 8) {
            sample_plane<T, 8>(from, elements.data(), weights.data(), positions, to);
          } else if (per_position == 1) {
            sample_plane<T, 1>(from, elements.data(), weights.data(), positions, to);
          } else {
            sample_plane<T, 16>(from, elements.data(), weights.data(), positions, to);
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
// f32 or f64 [N, C, H, W] or [N, C, D, H, W] with every spatial extent above 0, the grid
// [N, Hout, Wout, 2] or [N, Dout, Hout, Wout, 3] of X's dtype.
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
