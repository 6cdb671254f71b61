// RoiAlign (opsets 10 and 16), as ONNX's reference implementation (and ONNX Runtime)
// computes it.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "runtime/reference/reference_ops.h"

namespace nee {

namespace {

struct RoiAlignSettings {
  bool max_mode;  // max of the samples, else their average
  int64_t output_height, output_width;
  int64_t sampling_ratio;  // samples per bin along each dim; 0: ceil(bin size)
  double spatial_scale;
  bool half_pixel;  // ROI corners shifted by half a pixel (opset 16's default)
};

// One bilinear sample: the four pixels it reads (offsets in a plane) and their weights.
struct Sample {
  int64_t offset[4] = {0, 0, 0, 0};
  double weight[4] = {0, 0, 0, 0};
};

// The sample at (y, x) in a plane of height x width. A point more than a pixel outside
// the plane (or NaN) reads nothing; one within a pixel of it is moved to its edge.
Sample sample_at(double y, double x, int64_t height, int64_t width) {
  Sample s;
  if (!(y >= -1.0 && y <= static_cast<double>(height) && x >= -1.0 && x <= static_cast<double>(width))) return s;
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  auto low_y = static_cast<int64_t>(y), low_x = static_cast<int64_t>(x);
  int64_t high_y = low_y + 1, high_x = low_x + 1;
  if (low_y >= height - 1) {
    low_y = high_y = height - 1;
    y = static_cast<double>(low_y);
  }
  if (low_x >= width - 1) {
    low_x = high_x = width - 1;
    x = static_cast<double>(low_x);
  }
  const double ly = y - static_cast<double>(low_y), lx = x - static_cast<double>(low_x);
  const double hy = 1 - ly, hx = 1 - lx;
  s.offset[0] = low_y * width + low_x;
  s.offset[1] = low_y * width + high_x;
  s.offset[2] = high_y * width + low_x;
  s.offset[3] = high_y * width + high_x;
  s.weight[0] = hy * hx;
  s.weight[1] = hy * lx;
  s.weight[2] = ly * hx;
  s.weight[3] = ly * lx;
  return s;
}

// Samples per bin along a dim: sampling_ratio, else ceil(bin size). A non-finite or
// non-positive bin size gives none (the bin's value is 0); the cap keeps the conversion
// defined.
int64_t samples_per_bin(int64_t sampling_ratio, double bin_size) {
  if (sampling_ratio > 0) return sampling_ratio;
  if (!(bin_size > 0) || !std::isfinite(bin_size)) return 0;
  return static_cast<int64_t>(std::ceil(std::min(bin_size, double(std::numeric_limits<int32_t>::max()))));
}

// The samples of every bin of one ROI, bin by bin (row-major), grid_h x grid_w each.
struct RoiSamples {
  int64_t grid_h, grid_w;
  std::vector<Sample> samples;
};

RoiSamples roi_samples(const RoiAlignSettings& s, const double* corners, int64_t height, int64_t width) {
  const double offset = s.half_pixel ? 0.5 : 0.0;
  const double start_x = corners[0] * s.spatial_scale - offset, start_y = corners[1] * s.spatial_scale - offset;
  const double end_x = corners[2] * s.spatial_scale - offset, end_y = corners[3] * s.spatial_scale - offset;
  double roi_width = end_x - start_x, roi_height = end_y - start_y;
  if (!s.half_pixel) {  // opset 10's behaviour: a malformed ROI counts as 1 x 1
    roi_width = std::max(roi_width, 1.0);
    roi_height = std::max(roi_height, 1.0);
  }
  const double bin_h = roi_height / static_cast<double>(s.output_height);
  const double bin_w = roi_width / static_cast<double>(s.output_width);
  RoiSamples r{samples_per_bin(s.sampling_ratio, bin_h), samples_per_bin(s.sampling_ratio, bin_w), {}};
  r.samples.reserve(static_cast<size_t>(s.output_height * s.output_width * r.grid_h * r.grid_w));
  for (int64_t ph = 0; ph < s.output_height; ++ph) {
    for (int64_t pw = 0; pw < s.output_width; ++pw) {
      for (int64_t iy = 0; iy < r.grid_h; ++iy) {
        const double y = start_y + static_cast<double>(ph) * bin_h +
                         (static_cast<double>(iy) + 0.5) * bin_h / static_cast<double>(r.grid_h);
        for (int64_t ix = 0; ix < r.grid_w; ++ix) {
          const double x = start_x + static_cast<double>(pw) * bin_w +
                           (static_cast<double>(ix) + 0.5) * bin_w / static_cast<double>(r.grid_w);
          r.samples.push_back(sample_at(y, x, height, width));
        }
      }
    }
  }
  return r;
}

template <typename T>
ReferenceFn roi_align_kernel(const std::vector<int64_t>& x_shape, const RoiAlignSettings& s) {
  const int64_t images = x_shape[0], channels = x_shape[1], height = x_shape[2], width = x_shape[3];
  return [=](const std::vector<const Tensor*>& in, const std::vector<Tensor*>& out) {
    const T* x = in[0]->data_as<T>();
    const T* rois = in[1]->data_as<T>();
    const int64_t* batch_indices = in[2]->data_as<int64_t>();
    T* y = out[0]->data_as<T>();
    const int64_t count = in[2]->elements(), bins = s.output_height * s.output_width;
    for (int64_t r = 0; r < count; ++r) {
      const int64_t image = batch_indices[r];
      if (image < 0 || image >= images) {
        throw Error(
            fmt::format("RoiAlign batch index {} (ROI {}) is out of range for X's {} images", image, r, images));
      }
      const double corners[4] = {static_cast<double>(rois[r * 4]), static_cast<double>(rois[r * 4 + 1]),
                                 static_cast<double>(rois[r * 4 + 2]), static_cast<double>(rois[r * 4 + 3])};
      const RoiSamples roi = roi_samples(s, corners, height, width);
      const int64_t per_bin = roi.grid_h * roi.grid_w;
      for (int64_t c = 0; c < channels; ++c) {
        const T* plane = x + (image * channels + c) * height * width;
        T* target = y + (r * channels + c) * bins;
        for (int64_t bin = 0; bin < bins; ++bin) {
          // max: the largest weighted corner value of any sample, as the reference takes it.
          double sum = 0, largest = 0;
          for (int64_t i = 0; i < per_bin; ++i) {
            const Sample& p = roi.samples[static_cast<size_t>(bin * per_bin + i)];
            double sample_max = p.weight[0] * static_cast<double>(plane[p.offset[0]]);
            for (int k = 0; k < 4; ++k) {
              const double weighted = p.weight[k] * static_cast<double>(plane[p.offset[k]]);
              sum += weighted;
              sample_max = std::max(sample_max, weighted);
            }
            largest = i == 0 ? sample_max : std::max(largest, sample_max);
          }
          target[bin] = static_cast<T>(s.max_mode ? largest : sum / static_cast<double>(std::max<int64_t>(per_bin, 1)));
        }
      }
    }
  };
}

}  // namespace

// The importer stores every attribute with its default and coordinate_transformation_mode
// as the opset decides it; X is f32 or f64 [N, C, H, W] with H, W > 0, rois [R, 4] of its
// dtype, batch_indices int64 [R] (checked against N here, since it is data).
ReferenceFn make_reference_roi_align(const Graph& graph, const Node& node) {
  RoiAlignSettings s;
  s.max_mode = node.attrs.get_string("mode") == "max";
  s.output_height = node.attrs.get_int("output_height");
  s.output_width = node.attrs.get_int("output_width");
  s.sampling_ratio = node.attrs.get_int("sampling_ratio");
  s.spatial_scale = node.attrs.get_float("spatial_scale");
  s.half_pixel = node.attrs.get_string("coordinate_transformation_mode") == "half_pixel";
  const TensorType& x = graph.type_of(node.inputs[0]);
  if (x.dtype == DType::f64) return roi_align_kernel<double>(x.shape, s);
  return roi_align_kernel<float>(x.shape, s);
}

}  // namespace nee
