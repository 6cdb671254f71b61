#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include "core/resize_coordinates.h"
#include "core/resize_workload.h"
#include "runtime/reference/family_reference.h"
#include "runtime/reference/reference_ops.h"
#include "runtime/reference/strided_copy.h"

namespace nee {

namespace {

// The input positions one output index reads and their weights; `outside` marks a
// tf_crop_and_resize position outside the input, which takes extrapolation_value.
struct Taps {
  std::vector<int64_t> index;
  std::vector<double> weight;
  bool outside = false;
};

struct ResizeSettings {
  std::string mode, coordinates, nearest;
  double cubic_a;
  bool exclude_outside;
  bool antialias = false;
};

// ONNX's coordinate transformation: the input coordinate of output index x, for
// tf_crop_and_resize within the region of interest, for half_pixel_symmetric about the
// centre of the input (the output's whole extent `out_dim` against its unrounded width),
// else as the resize family's kernels compute it (core/resize_coordinates.h).
double source_coordinate(const std::string& coordinates, double x, double scale, int64_t in_dim, int64_t out_dim,
                         double roi_start, double roi_end) {
  const double width = scale * static_cast<double>(in_dim);
  if (coordinates == "tf_crop_and_resize") {
    const double extent = (roi_end - roi_start) * (in_dim - 1);
    return (width == 1 ? extent / 2 : x * extent / (width - 1)) + roi_start * (in_dim - 1);
  }
  if (coordinates == "half_pixel_symmetric") {
    const double offset = static_cast<double>(in_dim) / 2 * (1 - static_cast<double>(out_dim) / width);
    return offset + (x + 0.5) / scale - 0.5;
  }
  return resize_source_coordinate(coordinates, x, scale, in_dim);
}

// Keys' cubic convolution kernel with coefficient a at distance t >= 0, written as ONNX's
// reference implementation evaluates it.
double keys_cubic(double t, double a) {
  if (t <= 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
  return 0;
}

std::vector<double> cubic_weights(double r, double a) {
  return {keys_cubic(r + 1, a), keys_cubic(r, a), keys_cubic(1 - r, a), keys_cubic((1 - r) + 1, a)};
}

// Antialiased taps where `scale` < 1: the linear (tent) or cubic filter stretched by
// 1 / scale over the neighbours left + i for i from `first` on, the weights normalized to
// sum 1, as ONNX's reference implementation computes them; at scale 1 or more, the
// filter's own taps.
std::vector<double> antialiased_weights(const ResizeSettings& s, double ratio, double scale, int64_t& first) {
  scale = std::min(scale, 1.0);
  const double reach = s.mode == "linear" ? 1.0 : 2.0;
  first = static_cast<int64_t>(std::floor(-reach / scale) + 1);
  std::vector<double> weights;
  double sum = 0;
  for (int64_t i = first; i < 2 - first; ++i) {
    const double t = std::fabs(scale * (static_cast<double>(i) - ratio));
    const double w = s.mode == "linear" ? std::max(0.0, 1 - t) : keys_cubic(t, s.cubic_a);
    weights.push_back(w);
    sum += w;
  }
  for (double& w : weights) w /= sum;
  return weights;
}

Taps taps_for(const ResizeSettings& s, double x, double scale, int64_t in_dim) {
  Taps taps;
  const auto clamp = [in_dim](int64_t i) { return std::min<int64_t>(std::max<int64_t>(i, 0), in_dim - 1); };
  if (s.coordinates == "tf_crop_and_resize" && (x < 0 || x > in_dim - 1)) {
    taps.outside = true;
    return taps;
  }
  // Neighbours are floor(x) and up, except that an integral x counts as ratio 1 from
  // x - 1 (the reference implementation prefers the left pixel).
  int64_t left = static_cast<int64_t>(std::floor(x));
  double ratio = x - static_cast<double>(left);
  if (ratio == 0) {
    left -= 1;
    ratio = 1;
  }
  if (s.mode == "nearest") {
    bool right = true;
    if (ratio != 1) {
      if (s.nearest == "floor") right = false;
      else if (s.nearest == "ceil") right = true;
      else if (s.nearest == "round_prefer_floor") right = ratio > 0.5;
      else right = ratio >= 0.5;  // round_prefer_ceil
    }
    taps.index = {clamp(right ? left + 1 : left)};
    taps.weight = {1.0};
    return taps;
  }
  std::vector<int64_t> raw;
  if (s.antialias) {
    int64_t first = 0;
    taps.weight = antialiased_weights(s, ratio, scale, first);
    for (size_t k = 0; k < taps.weight.size(); ++k) raw.push_back(left + first + static_cast<int64_t>(k));
  } else if (s.mode == "linear") {
    raw = {left, left + 1};
    taps.weight = {1 - ratio, ratio};
  } else {
    raw = {left - 1, left, left + 1, left + 2};
    taps.weight = cubic_weights(ratio, s.cubic_a);
  }
  if (s.exclude_outside) {
    double sum = 0;
    for (size_t k = 0; k < raw.size(); ++k) {
      if (raw[k] < 0 || raw[k] >= in_dim) taps.weight[k] = 0;
      sum += taps.weight[k];
    }
    for (double& w : taps.weight) w /= sum;
  }
  for (int64_t i : raw) taps.index.push_back(clamp(i));
  return taps;
}

// Resizes `in_shape` to `out_shape` by the settings: per dim and output index the input
// taps are computed once at bind time; nearest copies bytes (any dtype), linear and cubic
// weigh float values. `scales` (one per dim, or empty: output over input extent) and
// `roi` (tf_crop_and_resize's starts, then ends; or empty) as the importer stores them.
ReferenceFn resize_kernel(const std::vector<int64_t>& in_shape, const std::vector<int64_t>& out_shape,
                          const ResizeSettings& s, const std::vector<double>& scales, const std::vector<float>& roi,
                          float extrapolation) {
  const size_t rank = in_shape.size();
  std::vector<std::vector<Taps>> taps(rank);
  for (size_t d = 0; d < rank; ++d) {
    const double scale =
        scales.empty() ? static_cast<double>(out_shape[d]) / static_cast<double>(in_shape[d]) : scales[d];
    for (int64_t x = 0; x < out_shape[d]; ++x) {
      const double source = source_coordinate(s.coordinates, static_cast<double>(x), scale, in_shape[d],
                                              out_shape[d], roi.empty() ? 0.0 : roi[d],
                                              roi.empty() ? 1.0 : roi[d + rank]);
      taps[d].push_back(taps_for(s, source, scale, in_shape[d]));
    }
  }
  const std::vector<int64_t> in_strides = dense_strides(in_shape);
  return [taps, in_strides, out_shape, rank, extrapolation, nearest = s.mode == "nearest"](
             const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const size_t size = dtype_size(in[0]->dtype());
    const auto* src = static_cast<const uint8_t*>(in[0]->data());
    auto* dst = static_cast<uint8_t*>(out[0]->data());
    std::vector<int64_t> index(rank, 0);
    std::vector<const Taps*> current(rank);
    // Sum over the cartesian product of the taps of dims d.. (float data only).
    std::function<double(size_t, int64_t)> weigh = [&](size_t d, int64_t offset) -> double {
      if (d == rank) return static_cast<const float*>(in[0]->data())[offset];
      double sum = 0;
      for (size_t k = 0; k < current[d]->index.size(); ++k) {
        if (current[d]->weight[k] != 0) {
          sum += current[d]->weight[k] * weigh(d + 1, offset + current[d]->index[k] * in_strides[d]);
        }
      }
      return sum;
    };
    for (int64_t o = 0, n = out[0]->elements(); o < n; ++o) {
      bool outside = false;
      for (size_t d = 0; d < rank; ++d) {
        current[d] = &taps[d][index[d]];
        outside = outside || current[d]->outside;
      }
      if (outside) {
        out[0]->data_as<float>()[o] = extrapolation;
      } else if (nearest) {
        int64_t source = 0;
        for (size_t d = 0; d < rank; ++d) source += current[d]->index[0] * in_strides[d];
        std::memcpy(dst + o * size, src + source * size, size);
      } else {
        out[0]->data_as<float>()[o] = static_cast<float>(weigh(0, 0));
      }
      for (size_t d = rank; d-- > 0;) {
        if (++index[d] < out_shape[d]) break;
        index[d] = 0;
      }
    }
  };
}

}  // namespace

// Resize by the importer-normalized attributes.
ReferenceFn make_reference_resize(const Graph& graph, const Node& node) {
  const ResizeSettings s{node.attrs.get_string("mode"), node.attrs.get_string("coordinate_transformation_mode"),
                         node.attrs.get_string("nearest_mode"), node.attrs.get_float("cubic_coeff_a"),
                         node.attrs.get_int("exclude_outside") != 0, node.attrs.get_int("antialias", 0) != 0};
  std::vector<double> scales;
  if (node.attrs.has("scales")) {
    for (float v : node.attrs.get_floats("scales")) scales.push_back(v);
  }
  return resize_kernel(graph.type_of(node.inputs[0]).shape, graph.type_of(node.outputs[0]).shape, s, scales,
                       node.attrs.has("roi") ? node.attrs.get_floats("roi") : std::vector<float>{},
                       node.attrs.get_float("extrapolation_value"));
}

// The resize family's: the same kernel, its outer dims (and lanes) at scale 1.
ReferenceFn make_resize_reference(const Workload& w) {
  const ResizeAttrs a = resize_attrs(w);
  const std::vector<int64_t>& in_shape = w.inputs[0].shape;
  std::vector<double> scales(in_shape.size(), 1.0);
  const size_t w_dim = in_shape.size() - (a.lanes != 0 ? 2 : 1);
  scales[w_dim - 1] = a.scale_h;
  scales[w_dim] = a.scale_w;
  return resize_kernel(in_shape, w.output.shape, ResizeSettings{a.mode, a.coordinates, a.nearest_mode, -0.75, false},
                       scales, {}, 0.0f);
}

}  // namespace nee
